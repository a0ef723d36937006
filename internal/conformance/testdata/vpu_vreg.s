; A chain of vector instructions through the register file: the operands
; come from sram by vcopy, the intermediates stay in vreg, the result goes
; back to sram. tpuv4core has 128 KiB of vector registers.
; chip: tpuv4core
.tensor a   sram 0x000 f32[4] = {1, -2, 3.5, 0}
.tensor b   sram 0x010 f32[4] = {2, 4, -1, 0}
.tensor out sram 0x100 f32[4]
        vcopy vreg[0x0]:f32[4], a
        vadd  vreg[0x40]:f32[4], vreg[0x0]:f32[4], b
        vmul  vreg[0x80]:f32[4], vreg[0x40]:f32[4], vreg[0x40]:f32[4]
        vsub  out, vreg[0x80]:f32[4], vreg[0x0]:f32[4]
        halt
; expect out = {8, 6, 2.75, 0}
