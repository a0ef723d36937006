; Lab numerics, reference solution: Y = softmax of each row of X, bf16 in
; and out, computed in f32 on teach16:
;     y = exp(x - max(x)) / sum(exp(x - max(x)))
; Subtracting the row's maximum keeps exp from overflowing (exp(x) passes
; f32's largest value for x > 88.7); the arithmetic stays in f32 and the
; result is rounded to bf16 once, at the end. Tiles of RT rows, two buffer
; sets, one DMA engine: the load of tile i+1 is issued before the store of
; tile i (lab overlap).
;   s0 tiles loaded   s1 tiles done   s2 free buffer sets
.const R = 64
.const C = 128
.const RT = 16
.const HB = RT * C * 2                ; a bf16 tile, bytes
.const FB = RT * C * 4                ; an f32 tile, bytes
.const COL = RT * 4                   ; an f32 [RT,1] column
.const SET = 2 * HB + FB + 2 * COL    ; x (bf16), y (bf16), work (f32), max, sum
.tensor X hbm 0x00000 bf16[R,C] = random(7, -4, 4)
.tensor Y hbm 0x10000 bf16[R,C]

        semset  s2, 2
        li      r1, 0                 ; offset of the next tile to load
        li      r2, 0                 ; its buffer set
        li      r5, 0                 ; offset of the tile to compute and store
        li      r6, 0                 ; its buffer set
        dma     sram[r2]:bf16[RT,C], hbm[r1+X]:bf16[RT,C]                       wait s2 signal s0
        addi    r1, r1, HB
        xori    r2, r2, SET
        li      r3, R / RT - 1
steady:
        dma     sram[r2]:bf16[RT,C], hbm[r1+X]:bf16[RT,C]                       wait s2 signal s0
        vcvt    sram[r6+2*HB]:f32[RT,C], sram[r6]:bf16[RT,C]
        vrmax   sram[r6+2*HB+FB]:f32[RT,1], sram[r6+2*HB]:f32[RT,C]
        vsub    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB+FB]:f32[RT,C]{1,0}
        vexp    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C]
        vrsum   sram[r6+2*HB+FB+COL]:f32[RT,1], sram[r6+2*HB]:f32[RT,C]
        vrcp    sram[r6+2*HB+FB+COL]:f32[RT,1], sram[r6+2*HB+FB+COL]:f32[RT,1]
        vmul    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB+FB+COL]:f32[RT,C]{1,0}
        vcvt    sram[r6+HB]:bf16[RT,C], sram[r6+2*HB]:f32[RT,C]                 signal s1
        dma     hbm[r5+Y]:bf16[RT,C], sram[r6+HB]:bf16[RT,C]                    wait s1 signal s2
        addi    r1, r1, HB
        xori    r2, r2, SET
        addi    r5, r5, HB
        xori    r6, r6, SET
        loop    r3, steady
        vcvt    sram[r6+2*HB]:f32[RT,C], sram[r6]:bf16[RT,C]                    wait s0
        vrmax   sram[r6+2*HB+FB]:f32[RT,1], sram[r6+2*HB]:f32[RT,C]
        vsub    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB+FB]:f32[RT,C]{1,0}
        vexp    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C]
        vrsum   sram[r6+2*HB+FB+COL]:f32[RT,1], sram[r6+2*HB]:f32[RT,C]
        vrcp    sram[r6+2*HB+FB+COL]:f32[RT,1], sram[r6+2*HB+FB+COL]:f32[RT,1]
        vmul    sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB]:f32[RT,C], sram[r6+2*HB+FB+COL]:f32[RT,C]{1,0}
        vcvt    sram[r6+HB]:bf16[RT,C], sram[r6+2*HB]:f32[RT,C]                 signal s1
        dma     hbm[r5+Y]:bf16[RT,C], sram[r6+HB]:bf16[RT,C]                    wait s1 signal s2
        halt
