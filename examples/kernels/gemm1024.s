; gemm1024.s — 1024 x 1024 x 1024 bf16 GEMM on the four MXUs of tpuv4core,
; chip: tpuv4core
; with random inputs, for checking values:  pulse run gemm1024.s --chip tpuv4core
.const M = 1024
.const N = 1024
.const K = 1024
.tensor A hbm 0x00000000 bf16[M,K] = random(1)
.tensor B hbm 0x10000000 bf16[K,N] = random(2)
.tensor C hbm 0x20000000 f32[M,N]
.include "gemm/body.s"
