; Epilogues: activation of (src + bias), cast to the destination dtype.
.tensor r    sram 0x000 f32[1,3] = {1, 2, 3}
.tensor z    sram 0x010 f32[1,3] = {0, 0, 0}
.tensor id   sram 0x100 f32[1,3]
.tensor th   sram 0x110 f32[1,3]
.tensor ge   sram 0x120 f32[1,3]
.tensor lg   sram 0x130 f32[1,3]
.tensor i8   sram 0x140 s8[1,3]
        vact          id, r, r
        vact.tanh     th, r, z
        vact.gelu     ge, r
        vact.logistic lg, r
        vact          i8, r, r
        halt
; expect id = {2, 4, 6}
; expect th = {0.7615941762924194, 0.9640275835990906, 0.9950547814369202}
; expect ge = {0.8411920070648193, 1.9545977115631104, 2.9963626861572266}
; expect lg = {0.7310585975646973, 0.8807970881462097, 0.9525741338729858}
; expect i8 = {2, 4, 6}
