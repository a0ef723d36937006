; stream.s — z = x + y over N f32 elements, memory bound: measures how close a
; chip: tpuv4core
; streaming kernel gets to HBM peak.   pulse run stream.s --chip tpuv4core --timing-only
; Tiles of T elements rotate through NSET SRAM buffer sets: dma0 loads tile
; i+2 while the vector unit adds tile i+1 and dma1 stores tile i.
;   s0 tile loaded (two loads per tile)   s1 tile added   s2 free buffer sets
.const N = 16 * 1024 * 1024
.const T = 256 * 1024
.const TB = T * 4
.const NSET = 3
.const SET = 3 * TB
.tensor x hbm 0x00000000 f32[N]
.tensor y hbm 0x08000000 f32[N]
.tensor z hbm 0x10000000 f32[N]

        semset  s2, NSET
        li      r1, 0                 ; byte offset of the tile
        li      r2, 0                 ; buffer set base
        li      r3, N / T
tile:
        dma     sram[r2]:f32[T], hbm[r1+x]:f32[T]              wait s2 signal s0
        dma     sram[r2+TB]:f32[T], hbm[r1+y]:f32[T]           signal s0
        vadd    sram[r2+2*TB]:f32[T], sram[r2]:f32[T], sram[r2+TB]:f32[T]  wait s0:2 signal s1
        dma     hbm[r1+z]:f32[T], sram[r2+2*TB]:f32[T] @1      wait s1 signal s2
        addi    r1, r1, TB
        addi    r2, r2, SET           ; next buffer set, wrapping after NSET
        snei    r4, r2, NSET*SET
        sub     r4, r0, r4
        and     r2, r2, r4
        loop    r3, tile
        halt
