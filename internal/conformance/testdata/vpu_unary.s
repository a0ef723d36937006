; Vector unary functions on f32; transcendental results are f32-rounded
; float64 evaluations.
.tensor x     sram 0x000 f32[4] = {-1.5, 0, 2.25, 4}
.tensor neg   sram 0x100 f32[4]
.tensor abs   sram 0x110 f32[4]
.tensor exp   sram 0x120 f32[4]
.tensor log   sram 0x130 f32[4]
.tensor tanh  sram 0x140 f32[4]
.tensor sig   sram 0x150 f32[4]
.tensor sqrt  sram 0x160 f32[4]
.tensor rsqrt sram 0x170 f32[4]
.tensor rcp   sram 0x180 f32[4]
.tensor relu  sram 0x190 f32[4]
.tensor gelu  sram 0x1a0 f32[4]
.tensor floor sram 0x1b0 f32[4]
.tensor ceil  sram 0x1c0 f32[4]
.tensor sign  sram 0x1d0 f32[4]
.tensor h     sram 0x200 f32[4] = {0.5, 1.5, 2.5, -2.5}
.tensor round sram 0x210 f32[4]
.tensor p     sram 0x300 pred[2] = {1, 0}
.tensor notp  sram 0x302 pred[2]
.tensor i     sram 0x310 s32[2] = {0, -6}
.tensor noti  sram 0x318 s32[2]
.tensor absi  sram 0x320 s32[2]
        vneg      neg, x
        vabs      abs, x
        vexp      exp, x
        vlog      log, x
        vtanh     tanh, x
        vlogistic sig, x
        vsqrt     sqrt, x
        vrsqrt    rsqrt, x
        vrcp      rcp, x
        vrelu     relu, x
        vgelu     gelu, x
        vfloor    floor, x
        vceil     ceil, x
        vsign     sign, x
        vround    round, h
        vnot      notp, p
        vnot      noti, i
        vabs      absi, i
        halt
; expect neg = {1.5, -0, -2.25, -4}
; expect abs = {1.5, 0, 2.25, 4}
; expect exp = {0.22313016653060913, 1, 9.487735748291016, 54.598148345947266}
; expect log = {nan, -inf, 0.8109301924705505, 1.3862943649291992}
; expect tanh = {-0.9051482677459717, 0, 0.9780260920524597, 0.9993293285369873}
; expect sig = {0.18242552876472473, 0.5, 0.9046505093574524, 0.9820137619972229}
; expect sqrt = {nan, 0, 1.5, 2}
; expect rsqrt = {nan, inf, 0.6666666865348816, 0.5}
; expect rcp = {-0.6666666865348816, inf, 0.4444444477558136, 0.25}
; expect relu = {0, 0, 2.25, 4}
; expect gelu = {-0.10042842477560043, 0, 2.2227985858917236, 3.999929666519165}
; expect floor = {-2, 0, 2, 4}
; expect ceil = {-1, 0, 3, 4}
; expect sign = {-1, 0, 1, 1}
; expect round = {0, 2, 2, -2}
; expect notp = {0, 1}
; expect noti = {-1, 5}
; expect absi = {0, 6}
