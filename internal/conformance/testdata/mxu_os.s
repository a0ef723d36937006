; Output-stationary MXU: a weight tile may be longer than the array (K is
; streamed), an instruction computes at most rows x cols outputs, and the
; values are the same as on any dataflow.
; chip: teach16
; set: mxu.dataflow=os
; set: mxu.rows=4
; set: mxu.cols=4
.tensor x sram 0x000 f32[2,6] = {1, 2, 3, 4, 5, 6, 1, 0, 1, 0, 1, 0}
.tensor w sram 0x100 f32[6,3] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 2, 2, 2}
.tensor y acc  0x000 f32[2,3]
        mxu.ldw w
        mxu.mm  y, x
        barrier
        halt
; expect y = {22, 18, 24, 2, 0, 2}
