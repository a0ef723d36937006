; Semaphores: standalone signal/wait/semset, and wait/signal fields on unit
; instructions ordering the vector unit, a DMA engine and the sequencer.
.tensor a sram 0x00 f32[4] = {1, 2, 3, 4}
.tensor b sram 0x10 f32[4]
.tensor c sram 0x20 f32[4]
.tensor out hbm 0x0 f32[4]
        semset s5, 3
        signal s6, 2
        wait   s6, 1
        vadd   b, a, a               signal s1
        wait   s1, 1                  ; the sequencer waits for the vector unit
        vmul   c, b, a               signal s2:3
        dma    out, c                wait s2:3 signal s7
        barrier
        halt
; expect s1 = 0
; expect s2 = 0
; expect s5 = 3
; expect s6 = 1
; expect s7 = 1
; expect b = {2, 4, 6, 8}
; expect out = {2, 8, 18, 32}
