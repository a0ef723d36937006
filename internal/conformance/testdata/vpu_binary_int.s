; Vector binary functions on s32: wrapping, XLA's division rules, bitwise and/or, integer power.
.tensor a   sram 0x000 s32[4] = {7, -7, 5, -2147483648}
.tensor b   sram 0x010 s32[4] = {2, 2, 0, -1}
.tensor add sram 0x100 s32[4]
.tensor mul sram 0x110 s32[4]
.tensor div sram 0x120 s32[4]
.tensor and sram 0x130 s32[4]
.tensor or  sram 0x140 s32[4]
.tensor pw  sram 0x150 s32[4]
.tensor p   sram 0x200 pred[4] = {1, 0, 1, 0}
.tensor q   sram 0x204 pred[4] = {1, 1, 0, 0}
.tensor pand sram 0x208 pred[4]
.tensor por  sram 0x20c pred[4]
        vadd  add, a, b
        vmul  mul, a, b
        vdiv  div, a, b
        vand  and, a, b
        vor   or, a, b
        vpow  pw, a, b
        vand  pand, p, q
        vor   por, p, q
        halt
; expect add = {9, -5, 5, 2147483647}
; expect mul = {14, -14, 0, -2147483648}
; expect div = {3, -3, -1, -2147483648}
; expect and = {2, 0, 0, -2147483648}
; expect or = {7, -5, 5, -1}
; expect pw = {49, 49, 1, 0}
; expect pand = {1, 0, 0, 0}
; expect por = {1, 1, 1, 0}
