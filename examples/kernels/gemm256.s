; gemm256.s — tiled C[M,N] = A[M,K] @ B[K,N], bf16 in, f32 out, with
; chip: tpuv4core
; double-buffered DMA and semaphores. M = N = K = 256, tiles of T = 128, for
; tpuv4core (or trn1nc).   pulse exec gemm256.s --chip tpuv4core
;
; For each output column block n (T wide) the kernel walks K in steps of T:
; it loads the A panel A[:, k] ([M,T]) and the B tile B[k, n] ([T,T]) into one
; of two SRAM buffer sets, loads the B tile as the MXU's stationary operand and
; streams the A panel through it, overwriting (first step) or accumulating into
; acc. Loads of step k+1 run while the MXU works on step k. After the last step
; the vector unit moves the block from acc to SRAM and dma1 stores it.
;
; Semaphores (an instruction waits on one and signals one):
;   s0  free buffer sets: a step's loads wait, its matmul frees the set
;   s1  loaded sets: the MXU waits
;   s2  block complete in acc: the epilogue waits
;   s3  block in SRAM: the store waits
;   s4  block stored, so acc, the C buffer and every buffer set are free:
;       the sequencer waits before starting the next block
; The last matmul of a block signals s2 instead of s0; the sequencer returns
; that set to s0 once the block is stored. Needs K/T >= 2.

.const M = 256
.const N = 256
.const K = 256
.const T = 128
.const ABYTES = M*T*2                 ; A panel [M,T] bf16
.const SET = ABYTES + T*T*2           ; one buffer set: A panel + B tile
.const CBUF = 2*SET                   ; output block [M,T] f32
.tensor A hbm 0x0000000 bf16[M,K] = random(1)
.tensor B hbm 0x1000000 bf16[K,N] = random(2)
.tensor C hbm 0x2000000 f32[M,N]

        semset  s0, 1                 ; the first block's "signal s0" makes it 2
        semset  s4, 1
        li      r1, 0                 ; byte offset of column block n in a B row
        li      r8, 0                 ; byte offset of column block n in a C row
        li      r2, N/T               ; blocks left
block:
        wait    s4, 1                 ; previous block stored
        signal  s0, 1                 ; ... so its last buffer set is free
        li      r3, 0                 ; byte offset of k-tile in an A row
        addi    r6, r1, 0             ; byte offset of B[k, n] in B
        li      r4, 0                 ; buffer set base: 0 or SET
        ; first step: overwrite acc
        dma     sram[r4]:bf16[M,T], hbm[r3+A]:bf16[M,T]{K,1}          wait s0
        dma     sram[r4+ABYTES]:bf16[T,T], hbm[r6+B]:bf16[T,T]{N,1}   signal s1
        mxu.ldw sram[r4+ABYTES]:bf16[T,T]                             wait s1
        mxu.mm  acc[0x0]:f32[M,T], sram[r4]:bf16[M,T]                 signal s0
        li      r7, K/T - 2           ; middle steps
        beq     r7, r0, last
mid:
        addi    r3, r3, T*2
        addi    r6, r6, T*N*2
        xori    r4, r4, SET
        dma     sram[r4]:bf16[M,T], hbm[r3+A]:bf16[M,T]{K,1}          wait s0
        dma     sram[r4+ABYTES]:bf16[T,T], hbm[r6+B]:bf16[T,T]{N,1}   signal s1
        mxu.ldw sram[r4+ABYTES]:bf16[T,T]                             wait s1
        mxu.mma acc[0x0]:f32[M,T], sram[r4]:bf16[M,T]                 signal s0
        loop    r7, mid
last:
        addi    r3, r3, T*2
        addi    r6, r6, T*N*2
        xori    r4, r4, SET
        dma     sram[r4]:bf16[M,T], hbm[r3+A]:bf16[M,T]{K,1}          wait s0
        dma     sram[r4+ABYTES]:bf16[T,T], hbm[r6+B]:bf16[T,T]{N,1}   signal s1
        mxu.ldw sram[r4+ABYTES]:bf16[T,T]                             wait s1
        mxu.mma acc[0x0]:f32[M,T], sram[r4]:bf16[M,T]                 signal s2
        ; epilogue
        vact    sram[CBUF]:f32[M,T], acc[0x0]:f32[M,T]                wait s2 signal s3
        dma     hbm[r8+C]:f32[M,T]{N,1}, sram[CBUF]:f32[M,T] @1       wait s3 signal s4
        addi    r1, r1, T*2
        addi    r8, r8, T*4
        loop    r2, block
        halt
