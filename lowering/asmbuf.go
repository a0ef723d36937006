package lowering

import "bytes"

// asmBuf holds the assembly the lowering emits. One that discards keeps
// only its length, for a lowering run for what it allocates alone
// (wholePeak): a program too big for the chip may be too big to write out
// for an ample one, and only its peak is wanted.
type asmBuf struct {
	bytes.Buffer
	discard bool
	n       int // the length, when discarding
}

// discardLimit bounds a discarding lowering: past it, the program is
// too big to be worth lowering only to learn its peak, and the lowering
// stops (panics with errTooBig, which wholePeak recovers).
const discardLimit = 128 << 20

type tooBig struct{}

var errTooBig = tooBig{}

func (b *asmBuf) Write(p []byte) (int, error) {
	if b.discard {
		b.grow(len(p))
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

func (b *asmBuf) WriteString(s string) (int, error) {
	if b.discard {
		b.grow(len(s))
		return len(s), nil
	}
	return b.Buffer.WriteString(s)
}

func (b *asmBuf) grow(n int) {
	if b.n += n; b.n > discardLimit {
		panic(errTooBig)
	}
}

func (b *asmBuf) Len() int {
	if b.discard {
		return b.n
	}
	return b.Buffer.Len()
}

func (b *asmBuf) Truncate(n int) {
	if b.discard {
		b.n = n
		return
	}
	b.Buffer.Truncate(n)
}
