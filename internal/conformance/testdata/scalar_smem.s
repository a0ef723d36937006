; Scalar memory: word loads and stores, base register plus offset.
        li    r1, 0x1234
        st    r1, [r0+8]
        li    r2, 4
        st    r1, [r2+12]
        ld    r3, [r2+4]
        ld    r4, [16]
        ld    r5, [r0]             ; never written: reads 0
        li    r6, -7
        st    r6, [r2-4]
        ld    r7, [0]
        halt
; expect r3 = 0x1234
; expect r4 = 0x1234
; expect r5 = 0
; expect r7 = -7
