; Lab gemm, reference solution: C[M,N] = A[M,K] @ B[K,N] on teach16's 16x16
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
block:
        mxu.ldw sram[r4+SB]:bf16[T,T]{N,1}
        mxu.mm  acc[r6]:f32[M,T], sram[SA]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+T]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+2*BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+2*T]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+3*BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+3*T]:bf16[M,T]{K,1}    signal s1
        vact    sram[r5+SC]:f32[M,T]{N,1}, acc[r6]:f32[M,T]        wait s1 signal s2
        dma     hbm[r5+C]:f32[M,T]{N,1}, sram[r5+SC]:f32[M,T]{N,1} wait s2
        addi    r4, r4, T * 2
        addi    r5, r5, T * 4
        addi    r6, r6, M * T * 4
        loop    r3, block
        halt
