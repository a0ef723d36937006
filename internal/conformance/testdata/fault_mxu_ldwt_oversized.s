; mxu.ldwt bounds the weights it holds, W[K,N], not the tile W^T[N,K]: a
; [4,8] tile is K = 8 rows of weights, more than a 4-row array holds.
; chip: teach16
; set: mxu.rows=4
; set: mxu.cols=8
.tensor wt sram 0x000 f32[4,8]
        mxu.ldwt wt
        barrier
        halt
; expect fault "oversized weight tile"
