; Directive errors; each "; ERROR" comment gives a substring of the error expected on its line.
.tensor x hbm 0x0 f32[4] = {1, 2}     ; ERROR "4 elements but 2 values"
.tensor y hbm 0x2 f32[4]              ; ERROR "not aligned"
.tensor z hbm 0x0 f32[2] = bogus(1)   ; ERROR "unknown initializer"
.const r5 = 1                         ; ERROR "cannot be used as a name"
.const A = 1 / 0                      ; ERROR "division by zero"
.const B = 9223372036854775807 * 2 + 6  ; ERROR "overflows 64 bits"
.const C = 9223372036854775807 + 1    ; ERROR "overflows 64 bits"
.const D = -9223372036854775807 - 2   ; ERROR "overflows 64 bits"
.const E = 3 << 63                    ; ERROR "overflows 64 bits"
.const F = 1 << 63                    ; top bit: a 64-bit pattern, kept
.const G = -1 << 4                    ; -16
.const H = 0xffff_ffff_ffff_ffff + 1  ; -1 + 1, a pattern
.bogus                                ; ERROR "unknown directive .bogus"
dup:    nop
dup:    nop                           ; ERROR "dup redefined"
.include "missing.s"                  ; ERROR "cannot include missing.s"
.tensor q sram 0x0 f32[2] = npy("missing.npy")  ; ERROR "cannot read missing.npy"
        halt $                        ; ERROR "unexpected character '$'"
        li r1, "text"                 ; ERROR "expected an expression"
        li r1, 1.5                    ; ERROR "expected an integer, found the float 1.5"
        vadd  sram[x]:f32[4], sram[0x0]:f32[4], sram[0x0]:f32[4]  ; ERROR "address names a tensor in hbm, but the tile is in sram"
