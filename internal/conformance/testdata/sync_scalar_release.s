; A unit instruction queued while its semaphore is low waits, and the
; sequencer's own signal (or semset) releases it: the waiting unit must
; wake when the scalar side raises the count, not only when another unit
; completes.
.tensor a sram 0x00 f32[4] = {1, 2, 3, 4}
.tensor b sram 0x10 f32[4]
.tensor c sram 0x20 f32[4]
        vcopy  b, a                  wait s1
        signal s1, 1
        dma    c, b                  wait s2:2
        semset s2, 2
        barrier
        halt
; expect s1 = 0
; expect s2 = 0
; expect b = {1, 2, 3, 4}
; expect c = {1, 2, 3, 4}
