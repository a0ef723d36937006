; Lab vadd: z = x + y over N f32 elements on teach16 (README.md).
; Fill in the TODOs, then run:
;     pulse exec kernel.s --show z          (the values)
;     pulse run kernel.s                    (the cycles)
;     pulse lab check vadd .                (the grade)
.const N = 4096
.const T = 256
.const TB = T * 4                     ; tile bytes
.tensor x hbm 0x000000 f32[N] = random(1)
.tensor y hbm 0x010000 f32[N] = random(2)
.tensor z hbm 0x020000 f32[N]

        li      r1, 0                 ; byte offset of the tile in x, y and z
        li      r3, N / T             ; tiles left
tile:
        dma     sram[0]:f32[T], hbm[r1+x]:f32[T]
        dma     sram[TB]:f32[T], hbm[r1+y]:f32[T]                    signal s0
        ; TODO 1: add the two tiles into sram[2*TB] with vadd, once both
        ;         loads are done (wait on s0), and signal s1 when done.
        ; TODO 2: store the sum to z's tile with a dma that waits for s1
        ;         and signals s2.
        ; TODO 3: make the sequencer wait for s2 before the next tile
        ;         reuses the buffers.
        addi    r1, r1, TB
        loop    r3, tile
        halt
