; Lab hlo, reference solution: the dense layer of dense.hlo by hand,
; y = relu(x @ w + b): x, w bf16[64,64], b f32[64], y f32[64,64], on teach16.
; It is the lab gemm kernel with the bias and the relu fused into the copy
; out of the accumulators: vact.relu adds a bias row ([1,T], broadcast down
; the block) and applies the relu on its way from acc to SRAM, for free.
; The compiler's kernel for the same module (pulse compile dense.hlo --chip
; teach16) takes about 3x longer: README.md, question 2.
;
; x and w (8 KiB each) fit SRAM whole, so they are loaded once. For each
; 16-wide column block n of y, the four K tiles w[k,n] ([16,16], strided
; out of w's rows) are loaded into the array one after the other, and the
; x panel x[:,k] ([64,16]) streams through each: mxu.mm starts the block's
; sum in acc, mxu.mma adds the next K tile. The vector unit copies the
; finished block to SRAM and dma0 stores it while the MXU works on the next.
;   s0  x, w and b loaded (the sequencer waits once)
;   s1  a block finished in acc (the copy waits)
;   s2  a block copied to SRAM (its store waits)
.const M = 64
.const K = 64
.const N = 64
.const T = 16                         ; the array is T x T
.tensor x hbm 0x00000 bf16[M,K] = random(1)
.tensor w hbm 0x10000 bf16[K,N] = random(2)
.tensor b hbm 0x18000 f32[N] = random(3)
.tensor y hbm 0x20000 f32[M,N]

.const SA = 0x0000                    ; SRAM: x, bf16[M,K]
.const SB = 0x2000                    ;       w, bf16[K,N]
.const SC = 0x4000                    ;       y, f32[M,N]
.const SBIAS = 0x8000                 ;       b, f32[N]
.const BROW = T * N * 2               ; bytes of T rows of w

        dma     sram[SA]:bf16[M,K], x                               signal s0
        dma     sram[SB]:bf16[K,N], w                               signal s0
        dma     sram[SBIAS]:f32[N], b                               signal s0
        wait    s0, 3
        li      r4, 0                 ; byte offset of block n in a row of B (n*T*2)
        li      r5, 0                 ; byte offset of block n in a row of C (n*T*4)
        li      r6, 0                 ; acc offset of block n (n*M*T*4)
        li      r3, N / T
block:
        mxu.ldw sram[r4+SB]:bf16[T,T]{N,1}
        mxu.mm  acc[r6]:f32[M,T], sram[SA]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+T*2]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+2*BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+2*T*2]:bf16[M,T]{K,1}
        mxu.ldw sram[r4+SB+3*BROW]:bf16[T,T]{N,1}
        mxu.mma acc[r6]:f32[M,T], sram[SA+3*T*2]:bf16[M,T]{K,1}    signal s1
        vact.relu sram[r5+SC]:f32[M,T]{N,1}, acc[r6]:f32[M,T], sram[r4+SBIAS]:f32[1,T]   wait s1 signal s2
        dma     hbm[r5+y]:f32[M,T]{N,1}, sram[r5+SC]:f32[M,T]{N,1} wait s2
        addi    r4, r4, T * 2
        addi    r5, r5, T * 4
        addi    r6, r6, M * T * 4
        loop    r3, block
        halt
