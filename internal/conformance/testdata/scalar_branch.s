; Branches, jumps and the counted loop.
        li    r1, 5
        li    r2, 0
        li    r3, 0
count:  addi  r2, r2, 1
        loop  r1, count            ; body runs 5 times
        li    r4, -1
        li    r5, 1
        blt   r4, r5, t1           ; signed: taken
        li    r3, 99
t1:     bltu  r4, r5, bad          ; unsigned 0xffffffff < 1: not taken
        bge   r5, r4, t2
        jmp   bad
t2:     bgeu  r4, r5, t3
        jmp   bad
t3:     beq   r4, r4, t4
        jmp   bad
t4:     bne   r4, r5, good
bad:    li    r3, 1
        halt
good:   li    r6, 42
        nop
        halt
; expect r1 = 0
; expect r2 = 5
; expect r3 = 0
; expect r6 = 42
