; Lab memory, reference solution: S[1,N] = the column sums of X[M,N] f32 on
; teach16 with the bank-level HBM model and a 64 GB/s DMA engine (lab.yaml),
; where HBM, not the engine, is the bound.
;
; X is read in panels of R whole rows: each panel is one contiguous run of
; HBM, so the DRAM rows it opens are read from end to end (row hits). Two
; buffer sets let the next panel load while the cross-lane unit reduces
; this one (xred.sum: the sum over a panel's rows) and the vector unit adds
; that to the running total.
;   s0  panels loaded (xred.sum waits)
;   s1  panel sums ready (vadd waits)
;   s2  free buffer sets (a load waits; the vadd that used a set frees it)
.const M = 256
.const N = 256
.const R = 16                         ; rows per panel
.const PB = R * N * 4                 ; panel bytes
.const SET = PB + N * 4               ; a buffer set: panel and its column sums
.const TOT = 2 * SET                  ; the running total, f32[1,N]
.tensor X hbm 0x000000 f32[M,N] = random(1)
.tensor S hbm 0x100000 f32[1,N]

        vfill   sram[TOT]:f32[1,N], 0
        semset  s2, 2
        li      r1, 0                 ; offset of the next panel to load
        li      r2, 0                 ; its buffer set
        li      r6, 0                 ; buffer set of the panel to reduce
        dma     sram[r2]:f32[R,N], hbm[r1+X]:f32[R,N]                   wait s2 signal s0
        addi    r1, r1, PB
        xori    r2, r2, SET
        li      r3, M / R - 1
steady:
        dma     sram[r2]:f32[R,N], hbm[r1+X]:f32[R,N]                   wait s2 signal s0
        xred.sum sram[r6+PB]:f32[1,N], sram[r6]:f32[R,N]                wait s0 signal s1
        vadd    sram[TOT]:f32[1,N], sram[TOT]:f32[1,N], sram[r6+PB]:f32[1,N]   signal s2
        addi    r1, r1, PB
        xori    r2, r2, SET
        xori    r6, r6, SET
        loop    r3, steady
        xred.sum sram[r6+PB]:f32[1,N], sram[r6]:f32[R,N]                wait s0 signal s1
        vadd    sram[TOT]:f32[1,N], sram[TOT]:f32[1,N], sram[r6+PB]:f32[1,N]   wait s1 signal s2
        wait    s2, 2                 ; every panel added
        dma     S, sram[TOT]:f32[1,N]
        halt
