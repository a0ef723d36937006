; Vector binary functions and comparisons on f32.
.tensor a   sram 0x000 f32[4] = {1, -2, 3.5, 0}
.tensor b   sram 0x010 f32[4] = {2, 4, -1, 0}
.tensor add sram 0x100 f32[4]
.tensor sub sram 0x110 f32[4]
.tensor mul sram 0x120 f32[4]
.tensor div sram 0x130 f32[4]
.tensor mx  sram 0x140 f32[4]
.tensor mn  sram 0x150 f32[4]
.tensor pw  sram 0x160 f32[4]
.tensor eq  sram 0x200 pred[4]
.tensor ne  sram 0x204 pred[4]
.tensor lt  sram 0x208 pred[4]
.tensor le  sram 0x20c pred[4]
.tensor gt  sram 0x210 pred[4]
.tensor ge  sram 0x214 pred[4]
.tensor sel sram 0x300 f32[4] = {10, 20, 30, 40}
.tensor nanv sram 0x400 f32[2] = {nan, 1}
.tensor one  sram 0x410 f32[2] = {1, nan}
.tensor nmax sram 0x420 f32[2]
.tensor neq  sram 0x430 pred[2]
        vadd  add, a, b
        vsub  sub, a, b
        vmul  mul, a, b
        vdiv  div, a, b
        vmax  mx, a, b
        vmin  mn, a, b
        vpow  pw, b, a
        vcmp.eq eq, a, b
        vcmp.ne ne, a, b
        vcmp.lt lt, a, b
        vcmp.le le, a, b
        vcmp.gt gt, a, b
        vcmp.ge ge, a, b
        vsel  sel, lt, a
        vmax  nmax, nanv, one
        vcmp.eq neq, nanv, nanv
        halt
; expect add = {3, 2, 2.5, 0}
; expect sub = {-1, -6, 4.5, 0}
; expect mul = {2, -8, -3.5, 0}
; expect div = {0.5, -0.5, -3.5, nan}
; expect mx = {2, 4, 3.5, 0}
; expect mn = {1, -2, -1, 0}
; expect pw = {2, 0.0625, nan, 1}
; expect eq = {0, 0, 0, 1}
; expect ne = {1, 1, 1, 0}
; expect lt = {1, 1, 0, 0}
; expect le = {1, 1, 0, 1}
; expect gt = {0, 0, 1, 0}
; expect ge = {0, 0, 1, 1}
; expect sel = {1, -2, 30, 40}
; expect nmax = {nan, nan}
; expect neq = {0, 1}
