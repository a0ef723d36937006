; Scalar ALU: every register-register and register-immediate function.
        li    r1, 7
        li    r2, -3
        add   r3, r1, r2
        sub   r4, r1, r2
        mul   r5, r1, r2
        and   r6, r1, r2
        or    r7, r1, r2
        xor   r8, r1, r2
        shl   r9, r1, r1
        shr   r10, r2, r1
        sra   r11, r2, r1
        min   r12, r1, r2
        max   r13, r1, r2
        slt   r14, r2, r1
        sltu  r15, r2, r1
        seq   r16, r1, r1
        sne   r17, r1, r1
        addi  r18, r0, 100
        subi  r19, r18, 1
        muli  r20, r19, 3
        andi  r21, r20, 0xff
        ori   r22, r0, 0x100
        xori  r23, r22, 0x101
        shli  r24, r23, 31
        shri  r25, r24, 31
        srai  r26, r24, 31
        mini  r27, r2, -5
        maxi  r28, r2, -5
        slti  r29, r2, 0
        sltui r30, r2, 0
        seqi  r31, r1, 7
        snei  r1, r1, 7
        li    r0, 5              ; r0 always reads 0
        halt
; expect r0 = 0
; expect r1 = 0
; expect r2 = -3
; expect r3 = 4
; expect r4 = 10
; expect r5 = -21
; expect r6 = 5
; expect r7 = -1
; expect r8 = -6
; expect r9 = 896
; expect r10 = 33554431
; expect r11 = -1
; expect r12 = -3
; expect r13 = 7
; expect r14 = 1
; expect r15 = 0
; expect r16 = 1
; expect r17 = 0
; expect r18 = 100
; expect r19 = 99
; expect r20 = 297
; expect r21 = 41
; expect r22 = 256
; expect r23 = 1
; expect r24 = 0x80000000
; expect r25 = 1
; expect r26 = -1
; expect r27 = -5
; expect r28 = -3
; expect r29 = 1
; expect r30 = 0
; expect r31 = 1
