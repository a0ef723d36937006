package analysis_test

import (
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

func TestTripCount(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want int64 // -1: unknown
	}{
		{"i < 20 from 0", counted(0, 20, 1, "LT", false, ""), 20},
		{"20 > i", counted(0, 20, 1, "GT", true, ""), 20},
		{"i <= 20", counted(0, 20, 1, "LE", false, ""), 21},
		{"step 3", counted(1, 20, 3, "LT", false, ""), 7},
		{"counting down", counted(10, 0, -2, "GT", false, ""), 5},
		{"never runs", counted(30, 20, 1, "LT", false, ""), 0},
		{"counter moves away", counted(0, 20, -1, "LT", false, ""), -1},
		{"not a counter compare", counted(0, 20, 1, "NE", false, ""), -1},
		{"recorded", counted(0, 20, 1, "NE", false, `, backend_config={"known_trip_count":{"n":"7"}}`), 7},
		{"recorded, quoted", counted(0, 20, 1, "NE", false, `, backend_config="{\"known_trip_count\":{\"n\":\"7\"}}"`), 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := hlo.Parse("m.hlo", c.src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("m.hlo", m))
			entry := m.Computation("e")
			n, ok := analysis.TripCount(m, entry, analysis.Def(entry, "w"))
			if c.want < 0 {
				require.False(t, ok, "trip count %d", n)
				return
			}
			require.True(t, ok)
			require.Equal(t, c.want, n)
			if c.want > 0 && !strings.HasPrefix(c.name, "recorded") {
				// The evaluator agrees.
				_, err := (&eval.Evaluator{File: "m.hlo", M: m, MaxWhileIterations: int(c.want)}).Run([]*eval.Value{eval.Array("f32", []int64{4, 8}, make([]float64, 32)...)})
				require.NoError(t, err)
				_, err = (&eval.Evaluator{File: "m.hlo", M: m, MaxWhileIterations: int(c.want) - 1}).Run([]*eval.Value{eval.Array("f32", []int64{4, 8}, make([]float64, 32)...)})
				require.Error(t, err)
			}
		})
	}
}
