; The sequencer waits on a semaphore nobody signals.
        wait   s4, 2
        halt
; expect deadlock "scalar: pc 0 (wait s4, 2)"
