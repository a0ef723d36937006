; Control flow that depends on computed values: a counter kept in HBM is
; brought to sram, stepped on the vector unit, stored back and read into
; scalar memory, and the loop runs until it crosses a threshold. Beside it
; each iteration does work nothing reads back (a matmul and a vector op).
; A timing-only run must compute exactly the counter's chain to take the
; same path; the rest it only times.
; chip: tpuv4core
.tensor cnt   hbm  0x0    s32[1,1] = {3}
.tensor step  sram 0x0    s32[1,1] = {7}
.tensor c     sram 0x40   s32[1,1]
.tensor w     sram 0x1000 bf16[16,16]
.tensor x     sram 0x2000 bf16[8,16]
.tensor y     acc  0x0    f32[8,16]
.tensor z     sram 0x3000 f32[8,16]
        li    r3, 0
top:    dma   c, cnt                      signal s1
        vadd  c, c, step                  wait s1 signal s2
        dma   cnt, c                      wait s2 signal s3
        dma   smem[0x20]:s32[1], hbm[0x0]:s32[1] wait s3 signal s4
        mxu.ldw w
        mxu.mm y, x
        vcopy z, y                        ; nothing reads it back
        wait  s4, 1
        barrier
        ld    r1, [0x20]
        addi  r3, r3, 1
        li    r2, 100
        blt   r1, r2, top
        halt
; expect r1 = 101
; expect r3 = 14
; expect cnt = {101}
