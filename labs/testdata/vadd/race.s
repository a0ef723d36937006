; Lab vadd, reference solution: z = x + y over N f32 elements on teach16,
; one tile of T elements at a time through SRAM.
;
; One DMA engine (dma0) does every transfer, in its queue's order: load x,
; load y, then (after the add) store z. Semaphores order the units:
;   s0  the tile's inputs are in SRAM (the y load signals; the x load is
;       before it in dma0's queue, so it is done too)
;   s1  the sum is in SRAM (vadd signals; the store waits)
;   s2  the store is done (the sequencer waits before reusing the buffers)
.const N = 4096
.const T = 256
.const TB = T * 4                     ; tile bytes
.tensor x hbm 0x000000 f32[N] = random(1)
.tensor y hbm 0x010000 f32[N] = random(2)
.tensor z hbm 0x020000 f32[N]

        li      r1, 0                 ; byte offset of the tile in x, y and z
        li      r3, N / T             ; tiles left
tile:
        dma     sram[0]:f32[T], hbm[r1+x]:f32[T]
        dma     sram[TB]:f32[T], hbm[r1+y]:f32[T]                    signal s0
        vadd    sram[2*TB]:f32[T], sram[0]:f32[T], sram[TB]:f32[T]   wait s0 signal s1
        dma     hbm[r1+z]:f32[T], sram[2*TB]:f32[T]                  signal s2
        wait    s2, 1                 ; the buffers are free again
        addi    r1, r1, TB
        loop    r3, tile
        halt
