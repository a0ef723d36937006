; Casts: float to integer truncates and saturates (NaN -> 0); integer to
; integer saturates; bf16 and f16 round to nearest even; pred is x != 0.
.tensor f    sram 0x000 f32[6] = {1.5, -1.5, 300, -300, nan, 2.5}
.tensor ts8   sram 0x100 s8[6]
.tensor tu8   sram 0x110 u8[6]
.tensor ts32  sram 0x120 s32[6]
.tensor ties sram 0x200 f32[4] = {1.00390625, 1.01171875, 3.4028234663852886e38, -0.0}
.tensor bf   sram 0x220 bf16[4]
.tensor hf   sram 0x240 f32[4] = {65520, 1e-8, 3e-8, 65504}
.tensor h    sram 0x260 f16[4]
.tensor big  sram 0x300 s32[2] = {1000, -1000}
.tensor nar  sram 0x310 s8[2]
.tensor pz   sram 0x320 f32[3] = {0, 0.5, nan}
.tensor pr   sram 0x330 pred[3]
.tensor back sram 0x340 f32[4]
        vcvt ts8, f
        vcvt tu8, f
        vcvt ts32, f
        vcvt bf, ties
        vcvt h, hf
        vcvt nar, big
        vcvt pr, pz
        vcvt back, h
        halt
; expect ts8 = {1, -1, 127, -128, 0, 2}
; expect tu8 = {1, 0, 255, 0, 0, 2}
; expect ts32 = {1, -1, 300, -300, 0, 2}
; expect bf = {1, 1.015625, inf, -0}
; expect h = {inf, 0, 5.960464477539063e-08, 65504}
; expect nar = {127, -128}
; expect pr = {0, 1, 1}
; expect back = {inf, 0, 5.960464477539063e-08, 65504}
