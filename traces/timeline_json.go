package traces

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/pulse-sim/pulse/sim"
)

// Track ids: kernel lanes from 1, units from unitTid (the sequencer first).
const (
	pidUnits    = 1
	pidCounters = 2
	unitTid     = 100
)

// sliceNames name a unit's stretch by state (busy stretches take the
// instruction's mnemonic instead).
var sliceNames = []string{"busy", "semaphore wait", "structural stall", "memory wait", "bank conflict stall", "idle"}

// WriteJSON writes the timeline as Chrome Trace Event JSON (the object
// form, with metadata naming and ordering every process and track), which
// ui.perfetto.dev and chrome://tracing open. Timestamps are microseconds
// to the nanosecond. Call it after the run.
func (t *Timeline) WriteJSON(w io.Writer) error {
	t.finish()
	m := t.m
	bw := bufio.NewWriterSize(w, 1<<16)
	e := &eventWriter{w: bw}
	other := map[string]any{
		"generator": "pulse", "chip": m.Chip.Name, "clock_mhz": m.Clock.MHz(), "cycles": m.Cycles(),
		"window_start_cycle": t.opt.Start, "window_end_cycle": t.opt.End, "events": t.events, "max_events": t.opt.MaxEvents,
	}
	if ok, note := t.Truncated(); ok {
		other["truncated"] = note
	}
	ob, _ := json.Marshal(other)
	fmt.Fprintf(bw, "{\"displayTimeUnit\":\"ns\",\"otherData\":%s,\"traceEvents\":[\n", ob)

	e.meta(pidUnits, 0, "process_name", "name", m.Chip.Name+": units")
	e.meta(pidUnits, 0, "process_sort_index", "sort_index", 1)
	e.meta(pidCounters, 0, "process_name", "name", m.Chip.Name+": memory and queues")
	e.meta(pidCounters, 0, "process_sort_index", "sort_index", 2)
	lanes := 1
	for _, k := range t.kernels {
		lanes = max(lanes, int(k.track)+1)
	}
	for l := 0; l < lanes; l++ {
		name := "kernels"
		if l > 0 {
			name = fmt.Sprintf("kernels (overlap %d)", l)
		}
		e.meta(pidUnits, 1+l, "thread_name", "name", name)
		e.meta(pidUnits, 1+l, "thread_sort_index", "sort_index", 1+l)
	}
	for tr := range t.tracks.total() {
		e.meta(pidUnits, unitTid+tr, "thread_name", "name", t.trackName(tr))
		e.meta(pidUnits, unitTid+tr, "thread_sort_index", "sort_index", unitTid+tr)
	}

	for _, k := range t.kernels {
		kn := t.src.Kernels[k.pc]
		args := map[string]any{"src": fmt.Sprintf("%s:%d", kn.File, kn.Line)}
		if kn.Label != "" {
			args["kernel"] = kn.Label
		}
		if o := kn.Origin.String(); o != "" {
			args["source"] = o // the model's line (the HLO's metadata)
			if kn.Origin.Op != "" {
				args["op_name"] = kn.Origin.Op
			}
		}
		e.complete(1+int(k.track), k.start, k.end, kn.Name, mustJSON(args))
	}

	slices.SortStableFunc(t.slices, func(a, b slice) int {
		if a.track != b.track {
			return int(a.track - b.track)
		}
		return cmp.Compare(a.start, b.start)
	})
	args := map[int32][]byte{}
	for _, s := range t.slices {
		a, ok := args[s.pc]
		if !ok {
			a = t.pcArgs(int(s.pc))
			args[s.pc] = a
		}
		name := sliceNames[s.state]
		if s.state == stBusy {
			name = t.src.Mnemonic(int(s.pc))
		}
		e.complete(unitTid+int(s.track), s.start, s.end, name, a)
	}

	t.writeCounters(e)
	if t.truncated {
		_, note := t.Truncated()
		e.event(fmt.Sprintf(`{"ph":"i","s":"g","pid":%d,"tid":%d,"ts":%s,"name":"trace truncated","args":%s}`,
			pidUnits, unitTid, usec(t.truncatedAt), mustJSON(map[string]string{"note": note})))
	}
	bw.WriteString("\n]}\n")
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

func (t *Timeline) trackName(tr int) string { return t.tracks.name(tr) }

// pcArgs are the args of a slice on behalf of instruction pc.
func (t *Timeline) pcArgs(pc int) []byte {
	if pc < 0 {
		return []byte("{}")
	}
	a := map[string]any{"pc": pc, "inst": t.src.Mnemonic(pc)}
	if d := t.src.Prog.DebugAt(pc); d.File != "" || d.Line != 0 {
		a["src"] = d.Pos()
	}
	if op := t.src.HLOOp(pc); op != "" && t.src.HLO {
		a["hlo"] = op
	}
	if k := t.src.KernelOf(pc); k >= 0 && t.src.Kernels[k].Label != "" {
		a["kernel"] = t.src.Kernels[k].Label
	}
	if line := t.src.AsmLine(pc); line > 0 && t.src.AsmLines != nil {
		a["asm_line"] = line
	}
	return mustJSON(a)
}

func (t *Timeline) writeCounters(e *eventWriter) {
	names := map[counterKey]string{{counterSRAM, 0}: "SRAM touched by the running kernel (bytes)"}
	for tr := range t.tracks.total() {
		if _, u := t.tracks.at(tr); u != nil {
			names[counterKey{counterQueue, int32(tr - 1)}] = "queue depth " + u.Name
		}
	}
	for _, c := range t.counts {
		arg := "depth"
		if c.key.kind == counterSRAM {
			arg = "bytes"
		}
		e.counter(names[c.key], c.at, arg, c.value)
	}
	// A bin's sample stands at its start; the closing sample (back to
	// zero) at the end of the last bin, or at the run's end when that is
	// sooner: no counter outlives the run.
	end := min(t.m.End(), t.we)
	// Dynamic power of the unit instructions, in 256-cycle bins (widened
	// as the HBM bins are for long runs).
	if t.prices != nil {
		pb := &t.power
		last := -1.0
		for i := 0; len(pb.bytes) > 0 && i <= len(pb.bytes[0]); i++ {
			v := 0.0
			if i < len(pb.bytes[0]) {
				v = pb.bytes[0][i] / float64(pb.width) * 1e-3 // fJ/ps -> W
			}
			if v != last {
				e.counter("dynamic power of unit instructions (W)", min(t.ws+sim.Time(i)*pb.width, max(end, t.ws)), "W", v)
				last = v
			}
		}
	}
	// HBM bandwidth per channel, and in total when there are several.
	b := &t.hbm
	nch := len(b.bytes)
	bins := 0
	for _, row := range b.bytes {
		bins = max(bins, len(row))
	}
	gbps := func(bytes float64) float64 { return bytes / float64(b.width) * 1000 } // bytes/ps -> GB/s
	last := make([]float64, nch+1)
	for i := range last {
		last[i] = -1
	}
	for i := 0; i <= bins; i++ {
		at := min(t.ws+sim.Time(i)*b.width, max(end, t.ws))
		total := 0.0
		for c, row := range b.bytes {
			v := 0.0
			if i < len(row) {
				v = gbps(row[i])
			}
			total += v
			if nch > 1 && v != last[c] {
				e.counter(fmt.Sprintf("HBM ch%d (GB/s)", c), at, "GB/s", v)
				last[c] = v
			}
		}
		if total != last[nch] {
			e.counter("HBM (GB/s)", at, "GB/s", total)
			last[nch] = total
		}
	}
}

// eventWriter writes comma-separated events.
type eventWriter struct {
	w   *bufio.Writer
	n   int
	err error
	buf []byte
}

func (e *eventWriter) event(s string) {
	if e.n > 0 {
		e.w.WriteString(",\n")
	}
	e.n++
	if _, err := e.w.WriteString(s); err != nil && e.err == nil {
		e.err = err
	}
}

func (e *eventWriter) meta(pid, tid int, name, key string, v any) {
	e.event(fmt.Sprintf(`{"ph":"M","pid":%d,"tid":%d,"name":%q,"args":{%q:%s}}`, pid, tid, name, key, mustJSON(v)))
}

func (e *eventWriter) complete(tid int, start, end sim.Time, name string, args []byte) {
	// Both ends are rounded to the nanosecond, the resolution Perfetto
	// keeps, so that slices which touch in picoseconds touch in its view
	// too instead of overlapping by a rounding.
	s, en := nanos(start), nanos(end)
	b := e.buf[:0]
	b = fmt.Appendf(b, `{"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s,"name":%s,"args":%s}`,
		pidUnits, tid, usecNS(s), usecNS(en-s), mustJSON(name), args)
	e.buf = b
	e.event(string(b))
}

func (e *eventWriter) counter(name string, at sim.Time, key string, v float64) {
	e.event(fmt.Sprintf(`{"ph":"C","pid":%d,"ts":%s,"name":%s,"args":{%q:%s}}`,
		pidCounters, usec(at), mustJSON(name), key, strconv.FormatFloat(v, 'g', 6, 64)))
}

func nanos(ps sim.Time) int64 { return int64((ps + 500) / 1000) }

// usecNS prints nanoseconds as microseconds, exactly.
func usecNS(ns int64) string { return fmt.Sprintf("%d.%03d", ns/1000, ns%1000) }

// usec prints picoseconds as microseconds, to the nanosecond.
func usec(ps sim.Time) string { return usecNS(nanos(ps)) }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings and numbers are marshalled here
	}
	return b
}
