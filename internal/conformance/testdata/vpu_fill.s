; Broadcasts, iota, memset, scale-and-bias, copies, epilogue without bias.
.tensor row  sram 0x000 f32[1,3] = {1, 2, 3}
.tensor col  sram 0x010 f32[2,1] = {7, 8}
.tensor one  sram 0x018 f32[1,1] = {9}
.tensor br   sram 0x100 f32[2,3]
.tensor bc   sram 0x120 f32[2,3]
.tensor bs   sram 0x140 s32[2,3]
.tensor io0  sram 0x200 s32[2,3]
.tensor io1  sram 0x220 f32[2,3]
.tensor ff   sram 0x300 f32[2] 
.tensor fi   sram 0x308 s32[2]
.tensor fb   sram 0x310 bf16[2]
.tensor sc   sram 0x400 f32[3]
.tensor cp   sram 0x500 f32[3,1]
.tensor act  sram 0x600 bf16[1,3]
        vbcast br, row
        vbcast bc, col
        vbcast bs, one
        viota  io0, 0
        viota  io1, 1
        vfill  ff, 2.5
        vfill  fi, -7
        vfill  fb, -inf
        vscale sc, sram[0x0]:f32[3], 0.5, -1.0
        vcopy  cp, row
        vact.exp act, row
        halt
; expect br = {1, 2, 3, 1, 2, 3}
; expect bc = {7, 7, 7, 8, 8, 8}
; expect bs = {9, 9, 9, 9, 9, 9}
; expect io0 = {0, 0, 0, 1, 1, 1}
; expect io1 = {0, 1, 2, 0, 1, 2}
; expect ff = {2.5, 2.5}
; expect fi = {-7, -7}
; expect fb = {-inf, -inf}
; expect sc = {-0.5, 0, 0.5}
; expect cp = {1, 2, 3}
; bf16 of e, e^2, e^3
; expect act = {2.71875, 7.375, 20.125}
