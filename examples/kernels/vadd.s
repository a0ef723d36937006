; vadd.s — z = x + y over N f32 elements, streamed through SRAM in tiles of T.
; chip: tpuv1
;
; Two DMA engines (loads on dma0, stores on dma1) and the vector unit work in a
; pipeline ordered by semaphores:
;   s0  tiles loaded (two DMAs signal it per tile; vadd waits for 2)
;   s1  tiles added (vadd signals; the store waits)
;   s2  free SRAM buffer pairs (the store signals; loads wait)
; SRAM holds two buffer sets, so tile i+1 loads while tile i is added and stored.
; Runs on any chip with 2 DMA engines, e.g.  pulse exec vadd.s --chip tpuv1

.const N = 8192
.const T = 1024
.const TB = T * 4                     ; tile bytes
.tensor x hbm 0x000000 f32[N] = random(1)
.tensor y hbm 0x100000 f32[N] = random(2)
.tensor z hbm 0x200000 f32[N]

        semset  s2, 2                 ; two buffer sets free
        li      r1, 0                 ; byte offset of the current tile in x, y, z
        li      r2, 0                 ; SRAM buffer set base: 0 or 3*TB
        li      r3, N / T             ; tiles left
tile:
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]           wait s2 signal s0
        dma     sram[r2+TB]:f32[T], hbm[r1+y]:f32[T]        signal s0
        vadd    sram[r2+2*TB]:f32[T], sram[r2]:f32[T], sram[r2+TB]:f32[T]   wait s0:2 signal s1
        dma     hbm[r1+z]:f32[T], sram[r2+2*TB]:f32[T] @1   wait s1 signal s2
        addi    r1, r1, TB
        xori    r2, r2, 3*TB                ; flip buffer sets
        loop    r3, tile
        halt
