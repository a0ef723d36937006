; Lab memory: S[1,N] = the column sums of X[M,N] f32 (README.md), on teach16
; with the bank-level HBM model and a 64 GB/s DMA engine:
;     pulse run kernel.s --set hbm.model=banked --set dma.engine_gbps=64
;
; This kernel is correct: it reads X one column block at a time (a strided
; [M,C] window: M short rows of C*4 bytes each), sums it on the cross-lane
; unit and stores the block of S. It is also slow.
; TODO: read X in a way the DRAM serves well, and overlap the loads with the
; sums (README.md, "Rows, banks and refresh" and "Making HBM the bound").
.const M = 256
.const N = 256
.const C = 16                         ; columns per block
.tensor X hbm 0x000000 f32[M,N] = random(1)
.tensor S hbm 0x100000 f32[1,N]

        li      r1, 0                 ; byte offset of the column block
        li      r3, N / C
block:
        dma     sram[0]:f32[M,C], hbm[r1+X]:f32[M,C]{N,1}               signal s0
        xred.sum sram[0x10000]:f32[1,C], sram[0]:f32[M,C]               wait s0 signal s1
        dma     hbm[r1+S]:f32[1,C], sram[0x10000]:f32[1,C]              wait s1 signal s2
        wait    s2, 1
        addi    r1, r1, C * 4
        loop    r3, block
        halt
