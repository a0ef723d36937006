package lowering_test

import (
	"bufio"
	"encoding/json"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/stretchr/testify/require"
)

// Code size grows with the number of distinct tile shapes, not with the
// data: every verified module of XLA's tests, whatever its arrays' sizes,
// compiles for teach16 and tpuv4core to at most maxInstructions
// instructions, in at most maxCompile, allocating at most maxAlloc (an
// upper bound on what it holds at once).
const (
	maxInstructions = 100_000
	maxCompile      = 5 * time.Second
	maxAlloc        = 1 << 30
)

// knownLarge are the compilations still over a limit (issue 21), as a
// ratchet: one more fails the test, and so does one of these coming under
// the limits (take it off the list). None today.
var knownLarge = map[string]bool{}

func TestXLATestCodeSize(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every XLA test module")
	}
	f, err := os.Open("../../shared/corpus/hlo-xla-tests.jsonl")
	if err != nil {
		t.Skip("corpus not present")
	}
	defer f.Close()
	var chips []*config.Chip
	for _, name := range []string{"teach16", "tpuv4core"} {
		c, err := config.Load(name, nil)
		require.NoError(t, err)
		chips = append(chips, c)
	}
	type worst struct {
		where string
		n     int
		d     time.Duration
		alloc uint64
	}
	var all []worst
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var ms runtime.MemStats
	for sc.Scan() {
		var c struct {
			Source string `json:"source"`
			Line   int    `json:"line"`
			Text   string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		m, err := hlo.Parse("case.hlo", c.Text)
		if err != nil || verify.Verify("case.hlo", m) != nil {
			continue
		}
		for _, chip := range chips {
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			t0 := time.Now()
			comp, err := lowering.Compile("case.hlo", m, chip)
			d := time.Since(t0)
			runtime.ReadMemStats(&ms)
			if err != nil {
				continue
			}
			all = append(all, worst{c.Source + ":" + strconv.Itoa(c.Line) + " on " + chip.Name, len(comp.Program.Code), d, ms.TotalAlloc - before})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	for i := 0; i < 5 && i < len(all); i++ {
		t.Logf("largest: %s: %d instructions, %v, %d MB allocated", all[i].where, all[i].n, all[i].d.Round(time.Millisecond), all[i].alloc>>20)
	}
	bad := 0
	for _, w := range all {
		over := w.n > maxInstructions || w.d > maxCompile || w.alloc > maxAlloc
		key := w.where[strings.Index(w.where, ":xla/")+1:]
		if !over {
			if knownLarge[key] {
				t.Errorf("%s is now within the limits (%d instructions, %v, %d MB): take it off knownLarge", key, w.n, w.d.Round(time.Millisecond), w.alloc>>20)
			}
			continue
		}
		bad++
		if knownLarge[key] {
			t.Logf("known: %s: %d instructions, %v, %d MB", key, w.n, w.d.Round(time.Millisecond), w.alloc>>20)
			continue
		}
		{
			t.Errorf("%s: %d instructions (limit %d), compiled in %v (limit %v), %d MB allocated (limit %d)",
				w.where, w.n, maxInstructions, w.d.Round(time.Millisecond), maxCompile, w.alloc>>20, maxAlloc>>20)
		}
	}
	t.Logf("%d compilations checked, %d over a limit", len(all), bad)
}
