; vadd_teach16.s — z = x + y over N f32 elements, double-buffered with a
; single DMA engine (teach16). Compare vadd.s, which has an engine for loads
; and one for stores.
; Runs on teach16 (the default chip):   pulse run vadd_teach16.s --explain
;
; With one engine, loads and stores share dma0's in-order queue: its order is
; the schedule. The loads of tile i+1 are issued before the store of tile i,
; so dma0 fetches the next tile while the vector unit adds this one:
;   loads 0 | loads 1, store 0 | loads 2, store 1 | ... | store N/T-1
; Two buffer sets (x, y and z tiles each); semaphores:
;   s0  loads done (two per tile; vadd waits for 2; loads complete in queue order)
;   s1  tiles added (the store waits)
;   s2  free buffer sets (the first load of a tile waits; the store frees its set)
.const N = 8192
.const T = 512
.const TB = T * 4                     ; one tile, bytes
.const SET = 3 * TB                   ; a buffer set: x, y and z tiles
.tensor x hbm 0x000000 f32[N] = random(1)
.tensor y hbm 0x100000 f32[N] = random(2)
.tensor z hbm 0x200000 f32[N]

        semset  s2, 2                 ; both buffer sets free
        li      r1, 0                 ; offset of the next tile to load
        li      r2, 0                 ; its buffer set
        li      r5, 0                 ; offset of the tile to add and store
        li      r6, 0                 ; its buffer set
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]                       wait s2 signal s0   ; prologue: tile 0
        dma     sram[r2+TB]:f32[T], hbm[r1+y]:f32[T]                    signal s0
        addi    r1, r1, TB
        xori    r2, r2, SET
        li      r3, N / T - 1         ; steady state: every tile but the last
steady:
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]                       wait s2 signal s0   ; loads of tile i+1
        dma     sram[r2+TB]:f32[T], hbm[r1+y]:f32[T]                    signal s0
        vadd    sram[r6+2*TB]:f32[T], sram[r6]:f32[T], sram[r6+TB]:f32[T]   wait s0:2 signal s1 ; add tile i
        dma     hbm[r5+z]:f32[T], sram[r6+2*TB]:f32[T]                  wait s1 signal s2   ; store tile i
        addi    r1, r1, TB
        xori    r2, r2, SET
        addi    r5, r5, TB
        xori    r6, r6, SET
        loop    r3, steady
        vadd    sram[r6+2*TB]:f32[T], sram[r6]:f32[T], sram[r6+TB]:f32[T]   wait s0:2 signal s1 ; epilogue: last tile
        dma     hbm[r5+z]:f32[T], sram[r6+2*TB]:f32[T]                  wait s1 signal s2
        halt
