; An output-stationary MXU holds rows x cols outputs: an instruction with
; more rows of outputs faults.
; chip: teach16
; set: mxu.dataflow=os
; set: mxu.rows=4
; set: mxu.cols=4
.tensor x sram 0x000 f32[8,2]
.tensor w sram 0x100 f32[2,2]
.tensor y acc  0x000 f32[8,2]
        mxu.ldw w
        mxu.mm  y, x
        halt
; expect fault "holds 4 rows of outputs"
