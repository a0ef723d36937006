; TPU v1's array multiplies 8-bit integers only.
; chip: tpuv1
.tensor w sram 0x0 bf16[2,2] = fill(1)
        mxu.ldw w
        halt
; expect fault "does not multiply bf16"
