package traces_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// traceStats summarizes a checked trace.
type traceStats struct {
	slices, counters, metadata, instants int
	tracks                               map[string]bool // thread names
	counterNames                         map[string]bool
	minTS, maxEnd                        int64 // nanoseconds
}

// checkChromeTrace validates data against the Chrome Trace Event format's
// JSON object form as Perfetto imports it: the top-level object with a
// traceEvents array; every event's phase known and its required fields
// present and typed; process and thread names for every track used;
// complete slices with non-negative durations that nest properly on each
// track (a slice either ends before the next starts or contains it).
func checkChromeTrace(t *testing.T, data []byte) traceStats {
	t.Helper()
	var top struct {
		TraceEvents     []map[string]any `json:"traceEvents"`
		DisplayTimeUnit string           `json:"displayTimeUnit"`
		OtherData       map[string]any   `json:"otherData"`
	}
	dec := json.NewDecoder(bytesReader(data))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&top), "the trace is one JSON object")
	require.NotEmpty(t, top.TraceEvents, "traceEvents")
	require.Contains(t, []string{"ns", "ms"}, top.DisplayTimeUnit)

	st := traceStats{tracks: map[string]bool{}, counterNames: map[string]bool{}, minTS: math.MaxInt64}
	type key struct{ pid, tid int64 }
	type span struct{ ts, end int64 } // nanoseconds, as Perfetto keeps them
	spans := map[key][]span{}
	threadNamed := map[key]bool{}
	procNamed := map[int64]bool{}
	usedPids := map[int64]bool{}
	num := func(ev map[string]any, f string) float64 {
		n, ok := ev[f].(json.Number)
		require.True(t, ok, "event %v: %q must be a number", ev, f)
		v, err := n.Float64()
		require.NoError(t, err)
		return v
	}
	integer := func(ev map[string]any, f string) int64 {
		n, ok := ev[f].(json.Number)
		require.True(t, ok, "event %v: %q must be a number", ev, f)
		v, err := n.Int64()
		require.NoError(t, err, "event %v: %q must be an integer", ev, f)
		return v
	}
	for _, ev := range top.TraceEvents {
		ph, ok := ev["ph"].(string)
		require.True(t, ok, "event %v has a phase", ev)
		name, ok := ev["name"].(string)
		require.True(t, ok && name != "", "event %v has a name", ev)
		pid := integer(ev, "pid")
		switch ph {
		case "M":
			st.metadata++
			args, ok := ev["args"].(map[string]any)
			require.True(t, ok, "metadata %v has args", ev)
			switch name {
			case "process_name":
				procNamed[pid] = true
				require.IsType(t, "", args["name"])
			case "thread_name":
				threadNamed[key{pid, integer(ev, "tid")}] = true
				require.IsType(t, "", args["name"])
				st.tracks[args["name"].(string)] = true
			case "process_sort_index", "thread_sort_index":
				integer(args, "sort_index")
			default:
				t.Fatalf("unknown metadata event %q", name)
			}
		case "X":
			st.slices++
			usedPids[pid] = true
			ts, dur := int64(math.Round(num(ev, "ts")*1000)), int64(math.Round(num(ev, "dur")*1000))
			require.GreaterOrEqual(t, ts, int64(0), "%v", ev)
			require.GreaterOrEqual(t, dur, int64(0), "%v", ev)
			k := key{pid, integer(ev, "tid")}
			spans[k] = append(spans[k], span{ts, ts + dur})
			st.minTS, st.maxEnd = min(st.minTS, ts), max(st.maxEnd, ts+dur)
			if a, ok := ev["args"]; ok {
				require.IsType(t, map[string]any{}, a)
			}
		case "C":
			st.counters++
			usedPids[pid] = true
			require.GreaterOrEqual(t, num(ev, "ts"), 0.0)
			args, ok := ev["args"].(map[string]any)
			require.True(t, ok && len(args) > 0, "counter %v has args", ev)
			for f := range args {
				num(args, f)
			}
			st.counterNames[name] = true
		case "i", "I":
			st.instants++
			num(ev, "ts")
			require.Contains(t, []any{"g", "p", "t", nil}, ev["s"])
		default:
			t.Fatalf("unexpected phase %q in %v", ph, ev)
		}
	}
	for p := range usedPids {
		require.True(t, procNamed[p], "process %d has a name", p)
	}
	for k, ss := range spans {
		require.True(t, threadNamed[k], "track %v has a name", k)
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].ts != ss[j].ts {
				return ss[i].ts < ss[j].ts
			}
			return ss[i].end > ss[j].end
		})
		var stack []span
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.ts {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				require.LessOrEqual(t, s.end, top.end, fmt.Sprintf("track %v: slice [%v, %v] overlaps [%v, %v] without nesting", k, s.ts, s.end, top.ts, top.end))
			}
			stack = append(stack, s)
		}
	}
	return st
}

// TestChromeTraceFile checks a trace written by pulse (PULSE_TRACE=file):
//
//	PULSE_TRACE=/tmp/mn.json go test ./traces -run TestChromeTraceFile -v
func TestChromeTraceFile(t *testing.T) {
	path := os.Getenv("PULSE_TRACE")
	if path == "" {
		t.Skip("set PULSE_TRACE to a trace file")
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	st := checkChromeTrace(t, b)
	t.Logf("%s: %d bytes, %d slices, %d counter samples, %d metadata, %d instants, %d tracks, %d counters",
		path, len(b), st.slices, st.counters, st.metadata, st.instants, len(st.tracks), len(st.counterNames))
}
