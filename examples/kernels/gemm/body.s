; gemm/body.s — C[M,N] = A[M,K] @ B[K,N] (bf16 in, f32 out) on the four MXUs of
; tpuv4core. Included by a file that defines M, N, K and the tensors A, B, C.
;
; Blocking. C is computed in blocks of MB rows x 4*T columns; MXU i owns the
; block's i-th column tile. For each k-tile, dma0 loads the A panel A[rows, k]
; (shared by the four MXUs) and the four B tiles B[k, cols i] into one of
; NSET = 3 SRAM buffer sets (a set is free only when its streams' last results
; have landed, so two sets would leave the loads too little time); MXU i loads its B tile as weights and streams the A panel
; through it into its accumulator region. Per k step the array streams MB rows
; while dma0 moves MB*T*2 + 4*T*T*2 bytes, within HBM bandwidth for MB = 1024.
; Accumulator regions and the SRAM output buffer are double-buffered per block,
; and block b's epilogue (acc -> SRAM on the vector unit, SRAM -> HBM on dma1)
; runs during block b+1.
;
; Synchronization (an instruction waits on one semaphore and signals one):
;   s1..s4   B tile i of a step loaded (dma0 signals after the A panel, so the
;            panel is in place too); MXU i's weight load waits.
;   s5..s8   MXU i finished a step. Before loading step g the sequencer waits
;            for one token from each (step g-NSET, the last user of that buffer
;            set; NSET tokens are preloaded). Per-MXU semaphores, because the
;            MXUs need not keep pace with each other.
;   s13      a block is stored; the sequencer waits before starting block b+2,
;            so its accumulator region and output buffer are free (2 preloaded).
;   s14      output tiles written to SRAM; the store waits for all four.
; Block b's epilogue is dispatched after the sequencer has waited for step
; NSET-1 of block b+1, that is for the last step of block b, on every MXU.
; Needs K/T >= NSET.

.const T = 128
.const MB = 1024
.const NG = 4*T                       ; columns per block
.const AB = MB*T*2                    ; A panel bytes
.const TB = T*T*2                     ; B tile bytes
.const SET = AB + 4*TB                ; one load buffer set
.const CBUF = 3*SET                   ; output buffers: 2 x [MB, NG] f32
.const CB = MB*NG*4
.const ACCR = MB*T*4                  ; one MXU's accumulator region
.const ACCB = 4*ACCR                  ; one block's accumulator regions
.const KT = K / T
.const NSET = 3

        semset  s5, NSET
        semset  s6, NSET
        semset  s7, NSET
        semset  s8, NSET
        semset  s13, 2
        li      r3, 0                 ; load buffer set of this step
        li      r4, 0                 ; acc base of this block
        li      r6, CBUF              ; output buffer of this block
        li      r15, 0                ; a previous block awaits its epilogue
        li      r13, A                ; A rows of this block
        li      r16, C                ; C rows of this block
        li      r10, M / MB
mblock:
        li      r14, B                ; B columns of this block
        li      r5, 0                 ; C column offset of this block, bytes
        li      r11, N / NG
nblock:
        wait    s13, 1                ; block b-2 stored: acc and output buffer free
        addi    r1, r13, 0            ; A panel of step 0
        addi    r2, r14, 0            ; B tiles of step 0
        ; ---- step 0: overwrite acc
        wait    s5, 1
        wait    s6, 1
        wait    s7, 1
        wait    s8, 1
        dma     sram[r3]:bf16[MB,T], hbm[r1]:bf16[MB,T]{K,1}
        dma     sram[r3+AB]:bf16[T,T], hbm[r2]:bf16[T,T]{N,1}               signal s1
        dma     sram[r3+AB+TB]:bf16[T,T], hbm[r2+2*T]:bf16[T,T]{N,1}        signal s2
        dma     sram[r3+AB+2*TB]:bf16[T,T], hbm[r2+4*T]:bf16[T,T]{N,1}      signal s3
        dma     sram[r3+AB+3*TB]:bf16[T,T], hbm[r2+6*T]:bf16[T,T]{N,1}      signal s4
        mxu.ldw sram[r3+AB]:bf16[T,T]                                 @0 wait s1
        mxu.mm  acc[r4]:f32[MB,T], sram[r3]:bf16[MB,T]                @0 signal s5
        mxu.ldw sram[r3+AB+TB]:bf16[T,T]                              @1 wait s2
        mxu.mm  acc[r4+ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]           @1 signal s6
        mxu.ldw sram[r3+AB+2*TB]:bf16[T,T]                            @2 wait s3
        mxu.mm  acc[r4+2*ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]         @2 signal s7
        mxu.ldw sram[r3+AB+3*TB]:bf16[T,T]                            @3 wait s4
        mxu.mm  acc[r4+3*ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]         @3 signal s8
        addi    r3, r3, SET           ; next buffer set, wrapping after NSET
        snei    r17, r3, NSET*SET
        sub     r17, r0, r17
        and     r3, r3, r17
        addi    r1, r1, T*2
        addi    r2, r2, T*N*2
        ; ---- steps 1..KT-1: accumulate
        li      r12, KT - 1
kstep:
        wait    s5, 1
        wait    s6, 1
        wait    s7, 1
        wait    s8, 1
        dma     sram[r3]:bf16[MB,T], hbm[r1]:bf16[MB,T]{K,1}
        dma     sram[r3+AB]:bf16[T,T], hbm[r2]:bf16[T,T]{N,1}               signal s1
        dma     sram[r3+AB+TB]:bf16[T,T], hbm[r2+2*T]:bf16[T,T]{N,1}        signal s2
        dma     sram[r3+AB+2*TB]:bf16[T,T], hbm[r2+4*T]:bf16[T,T]{N,1}      signal s3
        dma     sram[r3+AB+3*TB]:bf16[T,T], hbm[r2+6*T]:bf16[T,T]{N,1}      signal s4
        mxu.ldw sram[r3+AB]:bf16[T,T]                                 @0 wait s1
        mxu.mma acc[r4]:f32[MB,T], sram[r3]:bf16[MB,T]                @0 signal s5
        mxu.ldw sram[r3+AB+TB]:bf16[T,T]                              @1 wait s2
        mxu.mma acc[r4+ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]           @1 signal s6
        mxu.ldw sram[r3+AB+2*TB]:bf16[T,T]                            @2 wait s3
        mxu.mma acc[r4+2*ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]         @2 signal s7
        mxu.ldw sram[r3+AB+3*TB]:bf16[T,T]                            @3 wait s4
        mxu.mma acc[r4+3*ACCR]:f32[MB,T], sram[r3]:bf16[MB,T]         @3 signal s8
        addi    r3, r3, SET           ; next buffer set, wrapping after NSET
        snei    r17, r3, NSET*SET
        sub     r17, r0, r17
        and     r3, r3, r17
        addi    r1, r1, T*2
        addi    r2, r2, T*N*2
        ; after step NSET-1 the previous block is complete on every MXU: its epilogue
        subi    r17, r12, KT - NSET + 1
        bne     r17, r0, noepi
        beq     r15, r0, noepi
        vact    sram[r9]:f32[MB,T]{NG,1}, acc[r7]:f32[MB,T]                           signal s14
        vact    sram[r9+T*4]:f32[MB,T]{NG,1}, acc[r7+ACCR]:f32[MB,T]                  signal s14
        vact    sram[r9+2*T*4]:f32[MB,T]{NG,1}, acc[r7+2*ACCR]:f32[MB,T]              signal s14
        vact    sram[r9+3*T*4]:f32[MB,T]{NG,1}, acc[r7+3*ACCR]:f32[MB,T]              signal s14
        dma     hbm[r8]:f32[MB,NG]{N,1}, sram[r9]:f32[MB,NG]                       @1 wait s14:4 signal s13
noepi:
        loop    r12, kstep
        ; this block becomes the previous one
        addi    r7, r4, 0
        addi    r9, r6, 0
        add     r8, r16, r5
        li      r15, 1
        xori    r4, r4, ACCB
        xori    r6, r6, CBUF ^ (CBUF + CB)
        addi    r14, r14, NG*2
        addi    r5, r5, NG*4
        loop    r11, nblock
        li      r17, MB*K*2
        add     r13, r13, r17
        li      r17, MB*N*4
        add     r16, r16, r17
        loop    r10, mblock
        ; the last block's epilogue, once its last two steps are done
        wait    s5, NSET
        wait    s6, NSET
        wait    s7, NSET
        wait    s8, NSET
        vact    sram[r9]:f32[MB,T]{NG,1}, acc[r7]:f32[MB,T]                           signal s14
        vact    sram[r9+T*4]:f32[MB,T]{NG,1}, acc[r7+ACCR]:f32[MB,T]                  signal s14
        vact    sram[r9+2*T*4]:f32[MB,T]{NG,1}, acc[r7+2*ACCR]:f32[MB,T]              signal s14
        vact    sram[r9+3*T*4]:f32[MB,T]{NG,1}, acc[r7+3*ACCR]:f32[MB,T]              signal s14
        dma     hbm[r8]:f32[MB,NG]{N,1}, sram[r9]:f32[MB,NG]                       @1 wait s14:4 signal s13
        halt
