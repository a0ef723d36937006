; Lab gemm (README.md): C[M,N] = A[M,K] @ B[K,N] on teach16's 16x16
; MXU, weight-stationary: bf16 inputs, f32 accumulation.
;
; A and B (8 KiB each) fit SRAM whole, so they are loaded once. For each
; 16-wide column block n of C, the four K tiles B[k,n] ([16,16], strided
; out of B's rows) are loaded into the array one after the other, and the
; A panel A[:,k] ([64,16]) streams through each: mxu.mm starts the block's
; sum in acc, mxu.mma adds the next K tile. The vector unit copies the
; finished block to SRAM and dma0 stores it while the MXU works on the next.
;   s0  A and B loaded (the sequencer waits once)
;   s1  a block finished in acc (the copy waits)
;   s2  a block copied to SRAM (its store waits)
.const M = 64
.const K = 64
.const N = 64
.const T = 16                         ; the array is T x T
.tensor A hbm 0x00000 bf16[M,K] = random(1)
.tensor B hbm 0x10000 bf16[K,N] = random(2)
.tensor C hbm 0x20000 f32[M,N]

.const SA = 0x0000                    ; SRAM: A, bf16[M,K]
.const SB = 0x2000                    ;       B, bf16[K,N]
.const SC = 0x4000                    ;       C, f32[M,N]
.const BROW = T * N * 2               ; bytes of T rows of B

        dma     sram[SA]:bf16[M,K], A                               signal s0
        dma     sram[SB]:bf16[K,N], B                               signal s0
        wait    s0, 2
        li      r4, 0                 ; byte offset of block n in a row of B (n*T*2)
        li      r5, 0                 ; byte offset of block n in a row of C (n*T*4)
        li      r6, 0                 ; acc offset of block n (n*M*T*4)
        li      r3, N / T
        ; TODO: for each 16-wide column block n of C (N/T blocks):
        ;   for each K tile k: mxu.ldw the tile B[k,n] (a [T,T] window of B's
        ;   rows: strides {N,1}), then stream the panel A[:,k] ([M,T], strides
        ;   {K,1}) through it: mxu.mm for the first k, mxu.mma after;
        ;   then copy the block from acc to SRAM (vact) and store it to C
        ;   (strides {N,1}), with semaphores so each waits for the one before.
        halt
