.tensor x sram 0x0 bf16[2,2] = fill(1)
        mxu.mm acc[0x0]:f32[2,2], x
        halt
; expect fault "before any mxu.ldw"
