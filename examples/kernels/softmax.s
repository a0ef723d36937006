; softmax.s — row softmax of X[R,C] f32: y = exp(x - max(x)) / sum(exp(x - max(x))).
; Rows are processed in tiles of RT; two SRAM buffer sets let dma0 load tile
; i+1 while the vector unit works on tile i and dma1 stores tile i-1.
; Runs on teach16 (the default chip):   pulse exec softmax.s --show Y
;
; The per-row max and sum are [RT,1] columns; reading them with strides {1,0}
; broadcasts them across the row without a separate broadcast instruction.
;   s0 tiles loaded (VPU waits)   s1 tiles done (store waits)   s2 free buffer sets
.const R = 64
.const C = 128
.const RT = 16
.const TB = RT*C*4                    ; one tile, bytes
.const SET = 2*TB + 2*RT*4            ; x tile, y tile, max and sum columns
.tensor X hbm 0x00000 f32[R,C] = random(7, -4, 4)
.tensor Y hbm 0x10000 f32[R,C]

        semset  s2, 2
        li      r1, 0                 ; byte offset of the tile in X and Y
        li      r2, 0                 ; buffer set base
        li      r3, R/RT
tile:
        dma     sram[r2]:f32[RT,C], hbm[r1+X]:f32[RT,C]                         wait s2 signal s0
        vrmax   sram[r2+2*TB]:f32[RT,1], sram[r2]:f32[RT,C]                     wait s0
        vsub    sram[r2+TB]:f32[RT,C], sram[r2]:f32[RT,C], sram[r2+2*TB]:f32[RT,C]{1,0}
        vexp    sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C]
        vrsum   sram[r2+2*TB+RT*4]:f32[RT,1], sram[r2+TB]:f32[RT,C]
        vrcp    sram[r2+2*TB+RT*4]:f32[RT,1], sram[r2+2*TB+RT*4]:f32[RT,1]
        vmul    sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C], sram[r2+2*TB+RT*4]:f32[RT,C]{1,0}  signal s1
        dma     hbm[r1+Y]:f32[RT,C], sram[r2+TB]:f32[RT,C] @0                    wait s1 signal s2
        addi    r1, r1, TB
        xori    r2, r2, SET
        loop    r3, tile
        halt
