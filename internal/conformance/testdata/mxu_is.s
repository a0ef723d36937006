; Input-stationary MXU: the weight tile's N columns stream (N may exceed the
; array's columns), an instruction's input rows M are at most the columns,
; and the values are the same as on any dataflow.
; chip: teach16
; set: mxu.dataflow=is
; set: mxu.rows=4
; set: mxu.cols=4
.tensor x sram 0x000 f32[2,3] = {1, 2, 3, 0, 1, 0}
.tensor w sram 0x100 f32[3,6] = {1, 0, 0, 1, 1, 2, 0, 1, 0, 1, 0, 2, 0, 0, 1, 1, 1, 2}
.tensor y acc  0x000 f32[2,6]
        mxu.ldw w
        mxu.mm  y, x
        barrier
        halt
; expect y = {1, 2, 3, 6, 4, 12, 0, 1, 0, 1, 0, 2}
