; The vector unit works on on-chip memories only.
        vfill hbm[0x0]:f32[4], 1.0
        halt
; expect fault "reads and writes only sram, acc and vreg"
