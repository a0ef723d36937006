; The vector unit waits forever while the sequencer keeps dispatching to it:
; the executor's queue bound turns this into a fault instead of eating memory.
spin:   vfill sram[0x0]:f32[4], 1.0   wait s9
        jmp   spin
; expect fault "blocked at pc 0"
