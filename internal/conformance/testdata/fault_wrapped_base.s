; A register holds a signed 32-bit offset. A loop whose offset passes
; 2^31 wraps to a negative number: used as a tile base it would name
; other bytes (a 2.3 GB array's last rows read another array, issue 44),
; so the wrap is a fault at the use, naming the add that wrapped. The
; wrapped value is still an integer: r4 may count on past it.
        li   r2, 0x7ffffff0
        li   r4, 0x7fffffff
        addi r4, r4, 1
        addi r2, r2, 0x20
        dma  sram[0x0]:f32[4], hbm[r2+0x0]:f32[4]
        halt
; expect fault "base register r2 holds an offset that wrapped past the signed 32-bit range at pc 3 (addi r2, r2, 32"
