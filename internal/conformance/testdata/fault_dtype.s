; DMA copies bytes and does not convert.
        dma  sram[0x0]:f32[4], hbm[0x0]:s32[4]
        halt
; expect fault "dtype mismatch in dma"
