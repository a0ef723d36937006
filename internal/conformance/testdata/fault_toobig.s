; A tile bigger than the whole memory.
        vfill sram[0x0]:f32[100000], 1.0
        halt
; expect fault "more than all of sram"
