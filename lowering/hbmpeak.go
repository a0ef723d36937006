package lowering

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// The peak-HBM report: what is live when the program's HBM is at its most,
// as XProf's memory viewer shows it for XLA's buffer assignment. The
// allocator notes where each tensor came from and, each time the HBM the
// program needs grows, which tensors hold bytes then; the last such note is
// the peak.

// HBMPeak describes the program's HBM at its peak.
type HBMPeak struct {
	// Needed is the HBM the program needs: the allocations' high-water
	// mark plus the bytes loaded with the program (PeakHBMBytes).
	Needed int64 `json:"needed_bytes"`
	// Live is the bytes the arrays below hold at the peak; Needed - Live
	// is lost to fragmentation and alignment.
	Live int64 `json:"live_bytes"`
	// At is the instruction whose result took the peak's last bytes
	// (scope/name inside a called computation), and where it is.
	At    string `json:"at"`
	AtPos string `json:"at_pos"`
	// By kind: the module's parameters (those donated to results
	// included), constants and zeros loaded with the program, results
	// of the module, and temporaries.
	Parameters  int64 `json:"parameter_bytes"`
	Constants   int64 `json:"constant_bytes"`
	Outputs     int64 `json:"output_bytes"`
	Temporaries int64 `json:"temporary_bytes"`
	// Arrays lists the arrays live at the peak, largest first: every one
	// of them (ArrayCount), or the largest where Top cut the list.
	Arrays     []PeakArray `json:"arrays"`
	ArrayCount int         `json:"array_count"`
}

// Top is the report with only the n largest arrays listed (ArrayCount
// still counts them all).
func (h HBMPeak) Top(n int) HBMPeak {
	if len(h.Arrays) > n {
		h.Arrays = h.Arrays[:n:n]
	}
	return h
}

// PeakArray is one array live at the HBM peak.
type PeakArray struct {
	Tensor string `json:"tensor"`
	HLO    string `json:"hlo"` // the instruction that made it, [i] the element of its tuple
	Op     string `json:"op"`
	Shape  string `json:"shape"`
	Bytes  int64  `json:"bytes"`
	Kind   string `json:"kind"` // parameter, constant, output or temporary
	Pos    string `json:"pos"`  // file:line:col of the instruction
}

// tensorOrigin is what made a tensor, for the report.
type tensorOrigin struct {
	in    *hlo.Instruction
	kind  string
	size  int64
	shape string
	index []int // the element of a tuple-shaped result
}

// notePeak records the live tensors when the allocations' high-water
// mark has grown past the last note. at is the instruction being lowered.
// (The bytes loaded with the program sit in a region of their own, live
// throughout: the report adds those loaded after the note.)
func (a *hbmAllocator) notePeak(at *hlo.Instruction) {
	if a.peak <= a.peakNoted {
		return
	}
	a.peakNoted = a.peak
	a.peakAt = at
	a.peakLive = a.peakLive[:0:0]
	for t := range a.spans {
		a.peakLive = append(a.peakLive, t)
	}
	slices.Sort(a.peakLive)
}

// report builds the peak report; outputs names the module's result
// tensors.
func (a *hbmAllocator) report(file string, outputs map[string]bool) HBMPeak {
	r := HBMPeak{Needed: a.needed()}
	if a.peakAt != nil {
		r.At, r.AtPos = a.peakAt.Name, file+":"+a.peakAt.Pos.String()
	}
	live := slices.Clone(a.peakLive)
	noted := map[string]bool{}
	for _, t := range live {
		noted[t] = true
	}
	for t, o := range a.origin {
		if o.kind == kindConstant && !noted[t] {
			if _, ok := a.spans[t]; ok {
				live = append(live, t)
			}
		}
	}
	slices.Sort(live)
	for _, t := range live {
		o := a.origin[t]
		s := o.size
		p := PeakArray{Tensor: t, Bytes: s, Kind: o.kind}
		if o.in != nil {
			p.HLO, p.Op, p.Pos, p.Shape = o.in.Name, o.in.Opcode, file+":"+o.in.Pos.String(), o.shape
			if len(o.index) > 0 {
				p.HLO += strings.ReplaceAll(fmt.Sprint(o.index), " ", ",")
			}
		}
		if p.Kind == kindTemporary && outputs[t] {
			p.Kind = kindOutput
		}
		switch p.Kind {
		case kindParameter:
			r.Parameters += s
		case kindConstant:
			r.Constants += s
		case kindOutput:
			r.Outputs += s
		default:
			r.Temporaries += s
		}
		r.Live += s
		r.Arrays = append(r.Arrays, p)
	}
	slices.SortStableFunc(r.Arrays, func(x, y PeakArray) int { return cmp.Compare(y.Bytes, x.Bytes) })
	r.ArrayCount = len(r.Arrays)
	return r
}

const (
	kindParameter = "parameter"
	kindConstant  = "constant"
	kindOutput    = "output"
	kindTemporary = "temporary"
)

// Summary is the report in a sentence, as pulse simulate prints it: what
// the program needs at its peak, what holds it, and the largest arrays.
func (h HBMPeak) Summary() string {
	if h.Needed == 0 {
		return "HBM: the program holds no arrays"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HBM at its peak: %s needed, %s in %d live arrays (", ByteSize(h.Needed), ByteSize(h.Live), h.ArrayCount)
	var parts []string
	for _, k := range []struct {
		what  string
		bytes int64
	}{{"parameters", h.Parameters}, {"outputs", h.Outputs}, {"temporaries", h.Temporaries}, {"constants", h.Constants}} {
		if k.bytes > 0 {
			parts = append(parts, k.what+" "+ByteSize(k.bytes))
		}
	}
	b.WriteString(strings.Join(parts, ", ") + ")")
	if h.At != "" {
		fmt.Fprintf(&b, ", reached at %s (%s)", h.At, h.AtPos)
	}
	if len(h.Arrays) > 0 {
		b.WriteString("; largest:")
		for i, a := range h.Arrays {
			if i == 3 {
				break
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			what := a.Kind
			if a.Op != "" && a.Op != a.Kind {
				what += ", " + a.Op
			}
			fmt.Fprintf(&b, "%s %s %s (%s)", sep, a.HLO, ByteSize(a.Bytes), what)
		}
	}
	return b.String()
}
