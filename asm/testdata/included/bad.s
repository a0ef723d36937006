; included by include_error.s
        mul r1, r2                    ; ERROR "expected \",\""
.include "../include_error.s"         ; ERROR "include cycle"
