; An endless loop is stopped by the max-steps guard.
spin:   jmp spin
; expect fault "max-steps"
