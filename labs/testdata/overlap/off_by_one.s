; Lab overlap, reference solution: y = gelu(x) over N f32 elements on
; teach16, double-buffered with a single DMA engine.
;
; Two buffer sets (input tile + output tile each) let dma0 load tile i+1
; while the vector unit computes tile i. With one engine, the order of the
; transfers in dma0's queue is the schedule: load 0 | load 1, store 0 |
; load 2, store 1 | ... : every load is issued before the store of the tile
; before it, so the engine works while the vector unit does.
;   s0  loads done (vgelu waits; loads complete in queue order)
;   s1  tiles computed (the store waits)
;   s2  free buffer sets (a load waits; a store frees its set)
.const N = 8192
.const T = 256
.const TB = T * 4                     ; one tile, bytes
.const SET = 2 * TB                   ; a buffer set: input and output tile
.tensor x hbm 0x000000 f32[N] = random(1, -4, 4)
.tensor y hbm 0x010000 f32[N]

        semset  s2, 2                 ; both buffer sets free
        li      r1, 0                 ; offset of the next tile to load
        li      r2, 0                 ; its buffer set
        li      r5, 0                 ; offset of the tile to compute and store
        li      r6, 0                 ; its buffer set
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]          wait s2 signal s0   ; prologue: tile 0
        addi    r1, r1, TB
        xori    r2, r2, SET
        li      r3, N / T - 2         ; steady state: every tile but the last
steady:
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]          wait s2 signal s0   ; load tile i+1
        vgelu   sram[r6+TB]:f32[T], sram[r6]:f32[T]        wait s0 signal s1   ; compute tile i
        dma     hbm[r5+y]:f32[T], sram[r6+TB]:f32[T]       wait s1 signal s2   ; store tile i
        addi    r1, r1, TB
        xori    r2, r2, SET
        addi    r5, r5, TB
        xori    r6, r6, SET
        loop    r3, steady
        vgelu   sram[r6+TB]:f32[T], sram[r6]:f32[T]        wait s0 signal s1   ; epilogue: last tile
        dma     hbm[r5+y]:f32[T], sram[r6+TB]:f32[T]       wait s1 signal s2
        halt
