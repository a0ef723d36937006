; A tile that reaches past the end of sram (teach16: 256 KiB).
        dma  sram[0x3fff0]:f32[8], hbm[0x0]:f32[8]
        halt
; expect fault "reaches outside sram"
