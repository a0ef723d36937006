; teach16 has one DMA engine.
        dma  sram[0x0]:f32[4], hbm[0x0]:f32[4] @1
        halt
; expect fault "dma unit 1 does not exist on chip teach16"
