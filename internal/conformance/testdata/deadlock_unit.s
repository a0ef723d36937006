; A unit waits on a semaphore nobody signals.
.tensor a sram 0x0 f32[4] = fill(1)
        vadd   a, a, a    wait s3
        halt
; expect deadlock "vpu: pc 0 (vadd"
