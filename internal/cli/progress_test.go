package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunProgressLines: off a terminal, a long computation prints a plain
// line with its ETA every interval, and a closing line only when it
// printed before; a short one prints nothing.
func TestRunProgressLines(t *testing.T) {
	var short bytes.Buffer
	p := newRunProgress(&short, "simulate (program position)", 100)
	p.set(40, "")
	p.set(100, "")
	p.finish()
	require.Empty(t, short.String())

	var long bytes.Buffer
	p = newRunProgress(&long, "hlo eval", 100)
	p.interval = 0
	p.set(25, "")
	p.set(100, "")
	require.Regexp(t, `^hlo eval: 25/100 done, 0s elapsed, ETA \S+\nhlo eval: 100/100 done, 0s elapsed, ETA 0s\n$`, long.String())
}
