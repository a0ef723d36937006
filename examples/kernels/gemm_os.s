; gemm_os.s — C[M,N] = A[M,K] @ B[K,N] on an output-stationary MXU
; (docs/dataflows.md). Each of the 128x128 PEs keeps one output of C while
; all K = 512 products stream through it: the weight tile may be longer than
; the array (K is streamed); an instruction computes at most rows x cols
; outputs. bf16 inputs, f32 accumulation.
; chip: tpuv4core
; set: mxu.dataflow=os
.const M = 128
.const K = 512
.const N = 128
.tensor A hbm 0x00000 bf16[M,K] = random(1)
.tensor B hbm 0x40000 bf16[K,N] = random(2)
.tensor C hbm 0x80000 f32[M,N]

.const SA = 0x0                       ; SRAM: A
.const SB = M*K*2                     ;       B
.const SC = SB + K*N*2                ;       C (f32)

        dma      sram[SA]:bf16[M,K], A                signal s0
        dma      sram[SB]:bf16[K,N], B                signal s0
        mxu.ldw  sram[SB]:bf16[K,N]                   wait s0:2
        mxu.mm   acc[0x0]:f32[M,N], sram[SA]:bf16[M,K] signal s1
        vact     sram[SC]:f32[M,N], acc[0x0]:f32[M,N] wait s1 signal s2
        dma      C, sram[SC]:f32[M,N]                 wait s2
        halt
