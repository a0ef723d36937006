; passes makes an f32 stream of bf16 passes; a bf16 stream has no passes
; to make.
; chip: tpuv4core
.tensor w sram 0x000 bf16[4,4]
.tensor x sram 0x100 bf16[2,4]
.tensor y acc  0x000 f32[2,4]
        mxu.ldw w
        mxu.mm  y, x passes 3
        barrier
        halt
; expect fault "only an f32 stream is made of bf16 passes"
