; u32, s64 and u64 on the vector unit: wrapping arithmetic on the full
; width, xor and the three shifts (amounts read unsigned; at or beyond the
; width a shift gives 0, or the sign for vsra), unsigned comparison and
; division, conversions that wrap between integers, and 64-bit values that
; a float64 could not hold.
.tensor ua  sram 0x000 u32[4] = {4294967295, 2147483648, 12345, 0}
.tensor ub  sram 0x010 u32[4] = {1, 31, 32, 4294967295}
.tensor uadd sram 0x100 u32[4]
.tensor uxor sram 0x110 u32[4]
.tensor ushl sram 0x120 u32[4]
.tensor ushr sram 0x130 u32[4]
.tensor usra sram 0x140 u32[4]
.tensor udiv sram 0x150 u32[4]
.tensor ult  sram 0x160 pred[4]
.tensor umax sram 0x170 u32[4]
.tensor sa  sram 0x200 s64[4] = {9007199254740993, -1, -9223372036854775808, 214013}
.tensor sb  sram 0x220 s64[4] = {2, 63, -1, 4294967296}
.tensor smul sram 0x300 s64[4]
.tensor sdiv sram 0x320 s64[4]
.tensor ssra sram 0x340 s64[4]
.tensor slt  sram 0x360 pred[4]
.tensor sadd sram 0x370 s64[4]
.tensor wa  sram 0x400 u64[4] = {18446744073709551615, 4294967296, 61440, 1}
.tensor wb  sram 0x420 u64[4] = {32, 32, 1, 64}
.tensor wshr sram 0x500 u64[4]
.tensor wshl sram 0x520 u64[4]
.tensor wlo  sram 0x540 u32[4]
.tensor wf   sram 0x550 f32[4]
.tensor wneg sram 0x560 s64[4]
.tensor ufill sram 0x580 u64[2]
.tensor sfill sram 0x590 s64[2]
.tensor io   sram 0x5a0 s64[2]
.tensor rsum sram 0x5b0 s64[1]
.tensor back sram 0x5c0 s64[4]
        vadd  uadd, ua, ub
        vxor  uxor, ua, ub
        vshl  ushl, ua, ub
        vshr  ushr, ua, ub
        vsra  usra, ua, ub
        vdiv  udiv, ua, ub
        vcmp.lt ult, ua, ub
        vmax  umax, ua, ub
        vmul  smul, sa, sb
        vdiv  sdiv, sa, sb
        vsra  ssra, sa, sb
        vcmp.lt slt, sa, sb
        vadd  sadd, sa, sb
        vshr  wshr, wa, wb
        vshl  wshl, wa, wb
        vcvt  wlo, wa
        vcvt  wf, wa
        vneg  wneg, sa
        vfill ufill, 4294967295
        vfill sfill, -2
        viota io, 0
        vrsum rsum, sa
        vcvt  back, wf
        halt
; expect uadd = {0, 2147483679, 12377, 4294967295}
; expect uxor = {4294967294, 2147483679, 12313, 4294967295}
; expect ushl = {4294967294, 0, 0, 0}
; expect ushr = {2147483647, 1, 0, 0}
; expect usra = {4294967295, 4294967295, 0, 0}
; expect udiv = {4294967295, 69273666, 385, 0}
; expect ult = {0, 0, 0, 1}
; expect umax = {4294967295, 2147483648, 12345, 4294967295}
; expect smul = {18014398509481986, -63, -9223372036854775808, 919178835918848}
; expect sdiv = {4503599627370496, 0, -9223372036854775808, 0}
; expect ssra = {2251799813685248, -1, -1, 0}
; expect slt = {0, 1, 1, 1}
; expect sadd = {9007199254740995, 62, 9223372036854775807, 4295181309}
; expect wshr = {4294967295, 1, 30720, 0}
; expect wshl = {18446744069414584320, 0, 122880, 0}
; expect wlo = {4294967295, 0, 61440, 1}
; expect wf = {18446744073709551616, 4294967296, 61440, 1}
; expect wneg = {-9007199254740993, 1, -9223372036854775808, -214013}
; expect ufill = {4294967295, 4294967295}
; expect sfill = {-2, -2}
; expect io = {0, 1}
; expect rsum = {-9214364837599820803}
; expect back = {9223372036854775807, 4294967296, 61440, 1}
