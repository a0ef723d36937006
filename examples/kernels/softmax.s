; softmax.s — row softmax of X[R,C] f32: y = exp(x - max(x)) / sum(exp(x - max(x))).
; Runs on teach16 (the default chip):   pulse exec softmax.s --show Y
;
; Rows are processed in tiles of RT, double-buffered with teach16's single
; DMA engine: loads and stores share dma0's in-order queue, so the load of
; tile i+1 is issued before the store of tile i (a store issued first would
; wait for the vector unit and hold up the load behind it). The queue runs
;   load 0 | load 1, store 0 | load 2, store 1 | load 3, store 2 | store 3
; while the vector unit works on tile i.
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

        semset  s2, 2                 ; both buffer sets free
        li      r1, 0                 ; offset of the next tile to load
        li      r2, 0                 ; its buffer set
        li      r5, 0                 ; offset of the tile to compute and store
        li      r6, 0                 ; its buffer set
        dma     sram[r2]:f32[RT,C], hbm[r1+X]:f32[RT,C]                         wait s2 signal s0
        addi    r1, r1, TB
        xori    r2, r2, SET
        li      r3, R/RT
tile:
        li      r4, 1                 ; a next tile to load?
        beq     r3, r4, compute       ; no: the last tile
        dma     sram[r2]:f32[RT,C], hbm[r1+X]:f32[RT,C]                         wait s2 signal s0
compute:
        vrmax   sram[r6+2*TB]:f32[RT,1], sram[r6]:f32[RT,C]                     wait s0
        vsub    sram[r6+TB]:f32[RT,C], sram[r6]:f32[RT,C], sram[r6+2*TB]:f32[RT,C]{1,0}
        vexp    sram[r6+TB]:f32[RT,C], sram[r6+TB]:f32[RT,C]
        vrsum   sram[r6+2*TB+RT*4]:f32[RT,1], sram[r6+TB]:f32[RT,C]
        vrcp    sram[r6+2*TB+RT*4]:f32[RT,1], sram[r6+2*TB+RT*4]:f32[RT,1]
        vmul    sram[r6+TB]:f32[RT,C], sram[r6+TB]:f32[RT,C], sram[r6+2*TB+RT*4]:f32[RT,C]{1,0}  signal s1
        dma     hbm[r5+Y]:f32[RT,C], sram[r6+TB]:f32[RT,C]                      wait s1 signal s2
        addi    r1, r1, TB
        xori    r2, r2, SET
        addi    r5, r5, TB
        xori    r6, r6, SET
        loop    r3, tile
        halt
