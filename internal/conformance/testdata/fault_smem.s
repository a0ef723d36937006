        ld r1, [2]
        halt
; expect fault "not 4-byte aligned"
