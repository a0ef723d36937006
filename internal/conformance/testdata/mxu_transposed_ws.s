; mxu.ldwt on a weight-stationary MXU: the tile in sram is W^T[N,K],
; the MXU holds W[K,N], and a stream computes x . W as after mxu.ldw of W
; (PyTorch's x . W^T with W read in its own rows).
; chip: teach16
; set: mxu.dataflow=ws
.tensor x  sram 0x000 f32[2,3] = {1, 2, 3, 0, 1, 0}
.tensor wt sram 0x100 f32[4,3] = {1, 0, 3, 0, 1, 0, 2, 1, 0, 1, 0, 1}
.tensor y  acc  0x000 f32[2,4]
        mxu.ldwt wt
        mxu.mm  y, x
        barrier
        halt
; expect y = {10, 2, 4, 4, 0, 1, 1, 0}
