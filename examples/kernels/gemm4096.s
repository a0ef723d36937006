; gemm4096.s — 4096 x 4096 x 4096 bf16 GEMM on the four MXUs of tpuv4core.
; chip: tpuv4core
; Its inputs are not initialized (all zero): it is for timing,
;   pulse run gemm4096.s --chip tpuv4core --timing-only
.const M = 4096
.const N = 4096
.const K = 4096
.tensor A hbm 0x00000000 bf16[M,K]
.tensor B hbm 0x10000000 bf16[K,N]
.tensor C hbm 0x20000000 f32[M,N]
.include "gemm/body.s"
