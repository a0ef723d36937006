; f32 tiles must be 4-byte aligned.
        li    r1, 2
        vfill sram[r1]:f32[4], 1.0
        halt
; expect fault "misaligned"
