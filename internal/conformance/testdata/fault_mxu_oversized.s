; teach16's array is 16x16.
.tensor w sram 0x0 bf16[17,16] = fill(1)
        mxu.ldw w
        halt
; expect fault "oversized weight tile"
