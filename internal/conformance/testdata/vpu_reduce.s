; Reductions along the free (last) dimension, in index order, and across
; partitions (first dimension) on the cross-lane unit; transpose.
.tensor x    sram 0x000 f32[2,3] = {1, 2, 3, 4, 5, 6}
.tensor sum  sram 0x100 f32[2,1]
.tensor mx   sram 0x110 f32[2,1]
.tensor mn   sram 0x120 f32[2,1]
.tensor big  sram 0x200 f32[1,3] = {16777216, 1, 1}
.tensor bsum sram 0x210 f32[1,1]
.tensor i    sram 0x300 s32[1,3] = {6, 3, 2}
.tensor iand sram 0x310 s32[1,1]
.tensor ior  sram 0x314 s32[1,1]
.tensor isum sram 0x318 s32[1,1]
.tensor xs   sram 0x400 f32[1,3]
.tensor xm   sram 0x410 f32[1,3]
.tensor xn   sram 0x420 f32[1,3]
.tensor xt   sram 0x500 f32[3,2]
        vrsum  sum, x
        vrmax  mx, x
        vrmin  mn, x
        vrsum  bsum, big
        vrand  iand, i
        vror   ior, i
        vrsum  isum, i
        xred.sum xs, x
        xred.max xm, x
        xred.min xn, x
        xpose  xt, x
        halt
; expect sum = {6, 15}
; expect mx = {3, 6}
; expect mn = {1, 4}
; expect bsum = {16777216}
; expect iand = {2}
; expect ior = {7}
; expect isum = {11}
; expect xs = {5, 7, 9}
; expect xm = {4, 5, 6}
; expect xn = {1, 2, 3}
; expect xt = {1, 4, 2, 5, 3, 6}
