; layernorm.s — row layer normalization of X[R,C] f32:
;   y = (x - mean) / sqrt(var + eps) * gamma + beta, mean and var over each row.
; One tile of RT rows at a time; gamma and beta rows are broadcast with strides
; {0,1} and the per-row statistics with {1,0}.   pulse exec layernorm.s --show Y
;   s0 tile loaded   s1 tile done   s2 free buffer sets
.const R = 32
.const C = 96
.const RT = 8
.const TB = RT*C*4
.const COL = RT*4                     ; a [RT,1] f32 column
.const SET = 2*TB + 2*COL
.const PARAMS = 2*SET                 ; gamma then beta, [1,C] each
.tensor X     hbm 0x00000 f32[R,C] = random(3, -2, 5)
.tensor gamma hbm 0x10000 f32[1,C] = random(4, 0.5, 1.5)
.tensor beta  hbm 0x10800 f32[1,C] = random(5, -1, 1)
.tensor Y     hbm 0x20000 f32[R,C]

        dma     sram[PARAMS]:f32[1,C], gamma
        dma     sram[PARAMS+C*4]:f32[1,C], beta        signal s3
        wait    s3, 1                 ; parameters in place before any tile
        semset  s2, 2
        li      r1, 0
        li      r2, 0
        li      r3, R/RT
tile:
        dma     sram[r2]:f32[RT,C], hbm[r1+X]:f32[RT,C]                          wait s2 signal s0
        ; mean = sum(x) / C
        vrsum   sram[r2+2*TB]:f32[RT,1], sram[r2]:f32[RT,C]                      wait s0
        vscale  sram[r2+2*TB]:f32[RT,1], sram[r2+2*TB]:f32[RT,1], 1.0/C, 0.0
        ; d = x - mean
        vsub    sram[r2+TB]:f32[RT,C], sram[r2]:f32[RT,C], sram[r2+2*TB]:f32[RT,C]{1,0}
        ; var = sum(d*d) / C; rstd = 1/sqrt(var + eps)
        vmul    sram[r2]:f32[RT,C], sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C]
        vrsum   sram[r2+2*TB+COL]:f32[RT,1], sram[r2]:f32[RT,C]
        vscale  sram[r2+2*TB+COL]:f32[RT,1], sram[r2+2*TB+COL]:f32[RT,1], 1.0/C, 1e-5
        vrsqrt  sram[r2+2*TB+COL]:f32[RT,1], sram[r2+2*TB+COL]:f32[RT,1]
        ; y = d * rstd * gamma + beta
        vmul    sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C], sram[r2+2*TB+COL]:f32[RT,C]{1,0}
        vmul    sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C], sram[PARAMS]:f32[RT,C]{0,1}
        vadd    sram[r2+TB]:f32[RT,C], sram[r2+TB]:f32[RT,C], sram[PARAMS+C*4]:f32[RT,C]{0,1}  signal s1
        dma     hbm[r1+Y]:f32[RT,C], sram[r2+TB]:f32[RT,C]                        wait s1 signal s2
        addi    r1, r1, TB
        xori    r2, r2, SET
        loop    r3, tile
        halt
