; DMA engines do not reach the vector registers.
; chip: tpuv4core
        dma  vreg[0x0]:f32[8], hbm[0x0]:f32[8]
        halt
; expect fault "dma cannot reach the vector registers"
