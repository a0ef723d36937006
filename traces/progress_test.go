package traces_test

import (
	"testing"

	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/traces"
	"github.com/stretchr/testify/require"
)

// TestProgress: a simulation reports its position every few thousand
// dispatches, never going back, within the program, and the same cycles
// as an unobserved run.
func TestProgress(t *testing.T) {
	var reports [][2]int
	p := &traces.Progress{Report: func(done, total int) { reports = append(reports, [2]int{done, total}) }}
	c := chipFor(t, "teach16")
	watched := runHLO(t, gemmHLO, c, func(*traces.Source) []core.Observer { return []core.Observer{p} })
	plain := runHLO(t, gemmHLO, c, func(*traces.Source) []core.Observer { return nil })
	require.Equal(t, plain.report.Cycles, watched.report.Cycles)
	require.NotEmpty(t, reports, "a 512x1024x512 dot on teach16 dispatches many thousands of instructions")
	total := len(watched.src.Prog.Code)
	for i, r := range reports {
		require.Equal(t, total, r[1])
		require.True(t, r[0] > 0 && r[0] <= total, "report %d: %v", i, r)
		if i > 0 {
			require.GreaterOrEqual(t, r[0], reports[i-1][0], "never back")
		}
	}
}
