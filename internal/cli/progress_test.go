package cli

import (
	"bytes"
	"testing"
	"time"

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

// TestETAUnknownWhenStalled (issue 44, 6): an HLO while(true) showed
// "26/29 done, ETA 2s" for minutes, and a sweep with one runaway point
// "25/28 done, ETA 9s": past the whole estimate with nothing finished,
// the ETA is unknown and says so.
func TestETAUnknownWhenStalled(t *testing.T) {
	var out bytes.Buffer
	p := newRunProgress(&out, "simulate (program position)", 29)
	p.interval = 0
	clock := p.start
	p.now = func() time.Time { return clock }
	clock = clock.Add(10 * time.Second)
	p.set(26, "")
	require.Contains(t, out.String(), "26/29 done, 10s elapsed, ETA 1s\n")
	clock = clock.Add(10 * time.Second) // still at 26: a loop
	p.set(26, "")
	require.Contains(t, out.String(), "26/29 done, 20s elapsed, ETA unknown (no progress for 10s)\n")
	clock = clock.Add(time.Second)
	p.set(28, "") // moving again: the pace holds again
	require.Contains(t, out.String(), "28/29 done, 21s elapsed, ETA 1s\n")
	require.Equal(t, "unknown", p.eta(0, clock))
}
