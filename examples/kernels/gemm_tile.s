; gemm_tile.s — one GEMM tile on the MXU: C[T,T] = A[T,T] @ B[T,T].
; bf16 inputs, f32 accumulation. T = 16 fills teach16's 16x16 array; on
; tpuv4core or trn1nc set T = 128.
;
; The stationary operand (weights) is B: loaded once with mxu.ldw, then the
; rows of A stream through the array into accumulator memory. The vector unit
; copies the f32 result from acc to SRAM and a DMA writes it back to HBM.
.const T = 16
.tensor A hbm 0x0000 bf16[T,T] = random(1)
.tensor B hbm 0x1000 bf16[T,T] = random(2)
.tensor C hbm 0x2000 f32[T,T]

.const SA = 0x0                       ; SRAM: A tile
.const SB = T*T*2                     ;       B tile
.const SC = 2*T*T*2                   ;       C tile (f32)

        dma      sram[SA]:bf16[T,T], A                signal s0
        dma      sram[SB]:bf16[T,T], B                signal s0
        mxu.ldw  sram[SB]:bf16[T,T]                   wait s0:2
        mxu.mm   acc[0x0]:f32[T,T], sram[SA]:bf16[T,T] signal s1
        vact     sram[SC]:f32[T,T], acc[0x0]:f32[T,T] wait s1 signal s2
        dma      C, sram[SC]:f32[T,T]                 wait s2
        halt
