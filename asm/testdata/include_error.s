; Errors inside included files carry the included file's position.
.include "included/bad.s"
        halt
