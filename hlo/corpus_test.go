package hlo_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

// stripPos zeroes every position so that structures can be compared.
func stripPos(m *hlo.Module) {
	m.Pos = hlo.Pos{}
	for i := range m.Attrs {
		m.Attrs[i].Pos = hlo.Pos{}
	}
	for _, c := range m.Computations {
		c.Pos = hlo.Pos{}
		for _, in := range c.Instructions {
			in.Pos = hlo.Pos{}
			for _, o := range in.Operands {
				o.Pos = hlo.Pos{}
			}
			for i := range in.Attrs {
				in.Attrs[i].Pos = hlo.Pos{}
			}
		}
	}
}

// TestCorpusParsesAndRoundTrips: every corpus module parses (the two
// truncated MaxText dumps fail with "no ENTRY computation" after reading
// every computation), and printing then parsing gives the same structure.
func TestCorpusParsesAndRoundTrips(t *testing.T) {
	total := 0
	for _, f := range corpus.HLOFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := hlo.Parse(f, string(src))
			if strings.Contains(f, "TRUNCATED") {
				require.Error(t, err)
				require.Contains(t, err.Error(), "no ENTRY computation")
				require.Len(t, err.(hlo.ErrorList), 1, "only the missing ENTRY: %v", err)
				require.Greater(t, len(m.Computations), 10)
			} else {
				require.NoError(t, err)
				require.NotNil(t, m.Entry)
			}
			total += m.NumInstructions()
			text := m.String()
			m2, err2 := hlo.Parse("printed", text)
			if strings.Contains(f, "TRUNCATED") {
				require.Error(t, err2)
			} else {
				require.NoError(t, err2, "printed text does not parse:\n%.2000s", text)
			}
			stripPos(m)
			stripPos(m2)
			m.Entry, m2.Entry = nil, nil
			if !reflect.DeepEqual(m, m2) {
				require.Equal(t, text, m2.String(), "round trip changed the module")
				t.Fatal("round trip changed the module structure")
			}
		})
	}
	t.Logf("%d instructions", total)
}

// TestXLATestsCorpus parses the ~7,000 modules cut from XLA's test sources:
// no panic, every module well under a second, every failure a positioned
// error. It prints the success rate.
func TestXLATestsCorpus(t *testing.T) {
	var n, ok, verified int
	var slowest time.Duration
	corpus.ForEachXLACase(t, func(c corpus.XLACase) {
		n++
		start := time.Now()
		m, err := hlo.Parse("case.hlo", c.Text)
		if err == nil {
			if verr := verify.Verify("case.hlo", m); verr == nil {
				verified++
			} else {
				for _, e := range verr.(hlo.ErrorList) {
					require.Greater(t, e.Pos.Line, 0, "%s:%d: %v", c.Source, c.Line, e)
				}
			}
		}
		d := time.Since(start)
		slowest = max(slowest, d)
		require.Less(t, d, time.Second, "%s:%d", c.Source, c.Line)
		if err == nil {
			ok++
			return
		}
		list, isList := err.(hlo.ErrorList)
		require.True(t, isList, "%s:%d: %T", c.Source, c.Line, err)
		for _, e := range list {
			require.Greater(t, e.Pos.Line, 0)
			require.NotEmpty(t, e.Msg)
		}
	})
	t.Logf("XLA tests corpus: %d of %d modules parse (%.1f%%), %d of those also verify; slowest %v", ok, n, 100*float64(ok)/float64(n), verified, slowest)
	require.Greater(t, n, 6000)
}

func BenchmarkParseMixtral(b *testing.B) {
	src, err := os.ReadFile(corpus.Path(b, "hlo", "jax_maxtext_mixtral_8x7b_bf16_1x8_train_step.hlo"))
	if err != nil {
		b.Skip("corpus not present")
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := hlo.Parse("mixtral.hlo", string(src)); err != nil {
			b.Fatal(err)
		}
	}
}
