; Lab dataflows, reference solution: C[M,N] = A[M,K] @ B[K,N] on teach16,
; correct and fast on every dataflow of the 16x16 array (ws, os, is).
;
; What each dataflow keeps in the array limits a matmul's shape:
;   ws  the weight tile W[K,N]:   K <= rows, N <= cols, any M streams
;   os  the output tile [M,N]:    M <= rows, N <= cols, K streams
;   is  the input tile X[M,K]:    M <= cols, K <= rows, N streams
; so a kernel that runs on all three uses [16,16] blocks of everything:
; for each column block n and each K tile k, the weight tile B[k,n] is
; loaded once and every row block m streams through it, adding its share
; to the output block (m,n) in acc (mxu.mm for k = 0, mxu.mma after). With
; k outside and m inside, ws loads each weight tile once; with m outside it
; would load it M/T times (question 2).
;   s0  A and B loaded (the sequencer waits once)
;   s1  a row block of a column block finished in acc (the copy waits for all)
;   s2  a column block copied to SRAM (its store waits)
.const M = 128
.const K = 64
.const N = 64
.const T = 16                         ; the array is T x T
.tensor A hbm 0x00000 bf16[M,K] = random(1)
.tensor B hbm 0x10000 bf16[K,N] = random(2)
.tensor C hbm 0x20000 f32[M,N]

.const SA = 0x0000                    ; SRAM: A, bf16[M,K]
.const SB = 0x4000                    ;       B, bf16[K,N]
.const SC = 0x6000                    ;       C, f32[M,N]
.const BROW = T * N * 2               ; bytes of T rows of B
.const AROW = T * K * 2               ; bytes of T rows of A
.const CBLK = T * T * 4               ; bytes of one [T,T] f32 block in acc

        dma     sram[SA]:bf16[M,K], A                               signal s0
        dma     sram[SB]:bf16[K,N], B                               signal s0
        wait    s0, 2
        li      r4, 0                 ; byte offset of block n in a row of B (n*T*2)
        li      r5, 0                 ; byte offset of block n in a row of C (n*T*4)
        li      r6, 0                 ; acc offset of column block n (n*M*T*4)
        li      r3, N / T
block:
        mxu.ldw sram[r4+SB]:bf16[T,T]{N,1}          ; weight tile B[0,n], kept for every row block
        li      r7, 0                 ; byte offset of row block m in A
        addi    r10, r6, 0            ; acc offset of block (m, n)
        li      r9, M / T
k0:
        mxu.mm  acc[r10]:f32[T,T], sram[r7+SA]:bf16[T,T]{K,1}
        addi    r7, r7, AROW
        addi    r10, r10, CBLK
        loop    r9, k0
        mxu.ldw sram[r4+SB+BROW]:bf16[T,T]{N,1}          ; weight tile B[1,n], kept for every row block
        li      r7, 0                 ; byte offset of row block m in A
        addi    r10, r6, 0            ; acc offset of block (m, n)
        li      r9, M / T
k1:
        mxu.mma acc[r10]:f32[T,T], sram[r7+SA+T]:bf16[T,T]{K,1}
        addi    r7, r7, AROW
        addi    r10, r10, CBLK
        loop    r9, k1
        mxu.ldw sram[r4+SB+2*BROW]:bf16[T,T]{N,1}          ; weight tile B[2,n], kept for every row block
        li      r7, 0                 ; byte offset of row block m in A
        addi    r10, r6, 0            ; acc offset of block (m, n)
        li      r9, M / T
k2:
        mxu.mma acc[r10]:f32[T,T], sram[r7+SA+2*T]:bf16[T,T]{K,1}
        addi    r7, r7, AROW
        addi    r10, r10, CBLK
        loop    r9, k2
        mxu.ldw sram[r4+SB+3*BROW]:bf16[T,T]{N,1}          ; weight tile B[3,n], kept for every row block
        li      r7, 0                 ; byte offset of row block m in A
        addi    r10, r6, 0            ; acc offset of block (m, n)
        li      r9, M / T
k3:
        mxu.mma acc[r10]:f32[T,T], sram[r7+SA+3*T]:bf16[T,T]{K,1}  signal s1
        addi    r7, r7, AROW
        addi    r10, r10, CBLK
        loop    r9, k3
        vact    sram[r5+SC]:f32[M,T]{N,1}, acc[r6]:f32[M,T]        wait s1:8 signal s2
        dma     hbm[r5+C]:f32[M,T]{N,1}, sram[r5+SC]:f32[M,T]{N,1} wait s2
        addi    r4, r4, T * 2
        addi    r5, r5, T * 4
        addi    r6, r6, M * T * 4
        loop    r3, block
        halt
