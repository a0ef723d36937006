package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/olekukonko/tablewriter"

	"github.com/pulse-sim/pulse/lowering"
)

// XLAMemory is XLA's buffer-assignment figures for a compiled program, as
// jax's compiled.memory_analysis() gives them (the fields ending in
// _in_bytes), alone or under "xla_memory" in a corpus meta.json.
type XLAMemory struct {
	Argument int64 `json:"argument_size_in_bytes"`
	Output   int64 `json:"output_size_in_bytes"`
	Alias    int64 `json:"alias_size_in_bytes"`
	Temp     int64 `json:"temp_size_in_bytes"`
	Peak     int64 `json:"peak_memory_in_bytes"`
}

// Total is what XLA's buffer assignment places in device memory at once:
// the arguments, the outputs that do not alias an argument, and the
// temporaries (the total its memory-usage report prints). XLA's CPU
// client reports peak_memory_in_bytes without the temporaries, so Total
// is the figure to hold a device's peak against.
func (x XLAMemory) Total() int64 { return x.Argument + x.Output - x.Alias + x.Temp }

// readXLAMemory reads an --xla-memory file.
func readXLAMemory(path string) (XLAMemory, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return XLAMemory{}, err
	}
	var wrapped struct {
		XLA *XLAMemory `json:"xla_memory"`
	}
	if err := json.Unmarshal(b, &wrapped); err != nil {
		return XLAMemory{}, fmt.Errorf("%s: %v", path, err)
	}
	if wrapped.XLA != nil {
		return *wrapped.XLA, nil
	}
	var x XLAMemory
	if err := json.Unmarshal(b, &x); err != nil {
		return XLAMemory{}, fmt.Errorf("%s: %v", path, err)
	}
	if x.Argument == 0 && x.Output == 0 && x.Temp == 0 {
		return XLAMemory{}, fmt.Errorf("%s: no argument_size_in_bytes, output_size_in_bytes or temp_size_in_bytes (want jax's compiled.memory_analysis() fields, alone or under \"xla_memory\")", path)
	}
	return x, nil
}

// writeMemoryReport prints what is live at the program's HBM peak, the
// largest top arrays (all when top <= 0), and XLA's figures beside when
// given.
func writeMemoryReport(w io.Writer, h lowering.HBMPeak, top int, xla *XLAMemory) error {
	fmt.Fprintln(w, h.Summary())
	if xla != nil {
		total := xla.Total()
		fmt.Fprintf(w, "XLA's buffer assignment: %d bytes (arguments %d + outputs %d - aliased %d + temporaries %d); Pulse needs %d bytes, %+.1f%%\n",
			total, xla.Argument, xla.Output, xla.Alias, xla.Temp, h.Needed, 100*(float64(h.Needed)/float64(total)-1))
	}
	if top > 0 {
		h = h.Top(top)
	}
	t := tablewriter.NewTable(w)
	t.Header("ARRAY", "BYTES", "KIND", "OP", "SHAPE", "AT")
	for _, a := range h.Arrays {
		if err := t.Append(a.HLO, fmt.Sprint(a.Bytes), a.Kind, a.Op, a.Shape, a.Pos); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(h.Arrays) < h.ArrayCount {
		fmt.Fprintf(w, "(the %d largest of %d arrays; --memory-top 0 lists them all)\n", len(h.Arrays), h.ArrayCount)
	}
	return nil
}
