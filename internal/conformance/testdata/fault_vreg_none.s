; A chip without a register file (teach16) has no vreg space to address.
        vfill vreg[0x0]:f32[4], 1.0
        halt
; expect fault "more than all of vreg (0 bytes)"
