; tpuv1_gemm.s — a compute-bound int8 GEMM on the TPU v1-like chip, the
; calibration point of the energy model (docs/energy.md): C[M,N] = A[M,K] B[K,N]
; with M = N = K = 2048, s8 operands, s32 results.
; chip: tpuv1
;
; As on TPU v1 the activations are already in the Unified Buffer (the host
; put them there) and the weights stream from the DDR3 weight memory in 64 KiB
; tiles, double-buffered: a tile takes ~1,600 cycles to fetch and shift in, and
; is used for 2,048 cycles of streaming, so the array stays busy. A is stored
; as K/T panels of [M, T]; each output column block accumulates over the K
; panels in one half of the accumulators while the activation unit moves the
; other half's finished block to the Unified Buffer.
;   pulse run examples/kernels/tpuv1_gemm.s --chip tpuv1
;
; Semaphores: s0 free weight buffers (2), s1 weight tile loaded, s2 free
; accumulator halves (2), s3 block complete in acc.
.const M = 2048
.const K = 2048
.const N = 2048
.const T = 256
.const KT = K / T
.const NT = N / T
.tensor A sram 0x000000 s8[KT,M,T] = random(1)
.tensor B hbm 0x0 s8[K,N] = random(2)
.const WB = 0x400000                  ; two 64 KiB weight buffers
.const OUT = 0x420000                 ; C blocks: NT x [M, T] s32 (16 MiB)
.tensor C sram OUT s32[NT,M,T]
.const HALF = M*T*4                   ; one accumulator half

        semset  s0, 2
        semset  s2, 2
        li      r2, 0                 ; weight buffer offset (0 or T*T)
        li      r3, 0                 ; accumulator half of this block
        li      r4, OUT               ; C block of this column block
        li      r6, B                 ; B column block
        li      r10, NT
nblock:
        li      r5, A                 ; A panel of step k
        addi    r1, r6, 0             ; B tile of step k
        ; step 0 overwrites the accumulator half (after its last block left)
        dma     sram[r2+WB]:s8[T,T], hbm[r1]:s8[T,T]{N,1}   wait s0 signal s1
        mxu.ldw sram[r2+WB]:s8[T,T]                           wait s1 signal s0
        mxu.mm  acc[r3]:s32[M,T], sram[r5]:s8[M,T]            wait s2
        xori    r2, r2, T*T
        addi    r1, r1, T*N
        addi    r5, r5, M*T
        li      r11, KT - 2
kstep:
        dma     sram[r2+WB]:s8[T,T], hbm[r1]:s8[T,T]{N,1}   wait s0 signal s1
        mxu.ldw sram[r2+WB]:s8[T,T]                           wait s1 signal s0
        mxu.mma acc[r3]:s32[M,T], sram[r5]:s8[M,T]
        xori    r2, r2, T*T
        addi    r1, r1, T*N
        addi    r5, r5, M*T
        addi    r11, r11, -1
        bne     r11, r0, kstep
        ; the last step signals the epilogue
        dma     sram[r2+WB]:s8[T,T], hbm[r1]:s8[T,T]{N,1}   wait s0 signal s1
        mxu.ldw sram[r2+WB]:s8[T,T]                           wait s1 signal s0
        mxu.mma acc[r3]:s32[M,T], sram[r5]:s8[M,T]            signal s3
        xori    r2, r2, T*T
        vcopy   sram[r4]:s32[M,T], acc[r3]:s32[M,T]           wait s3 signal s2
        xori    r3, r3, HALF
        addi    r4, r4, M*T*4
        addi    r6, r6, T
        addi    r10, r10, -1
        bne     r10, r0, nblock
        halt
