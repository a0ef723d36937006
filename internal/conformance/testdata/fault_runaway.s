; A program without halt runs off the end of its code.
        li r1, 1
; expect fault "ran off the end"
