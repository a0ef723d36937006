package scalesim

import (
	"fmt"
	"strconv"
	"strings"
)

// Layer is one row of a topology file, as a convolution (a GEMM layer
// M, N, K is the convolution SCALE-Sim makes of it: an M x K input, a 1 x K
// filter, N filters, stride 1).
type Layer struct {
	Name             string
	Line             int
	IfmapH, IfmapW   int64
	FilterH, FilterW int64
	Channels         int64
	Filters          int64
	StrideH, StrideW int64
}

// OfmapH and OfmapW are SCALE-Sim's output size: no padding, a partial
// window at the edge still counts (its missing pixels are never read).
func (l *Layer) OfmapH() int64 { return ceilDiv(l.IfmapH-l.FilterH+l.StrideH, l.StrideH) }
func (l *Layer) OfmapW() int64 { return ceilDiv(l.IfmapW-l.FilterW+l.StrideW, l.StrideW) }

// GEMM dimensions of the layer: M output pixels, N filters, K = the window.
func (l *Layer) M() int64 { return l.OfmapH() * l.OfmapW() }
func (l *Layer) N() int64 { return l.Filters }
func (l *Layer) K() int64 { return l.FilterH * l.FilterW * l.Channels }

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

var convColumns = []string{"Layer name", "IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width", "Channels", "Num Filter", "Strides"}
var gemmColumns = []string{"Layer", "M", "N", "K"}

// ParseTopology reads a SCALE-Sim topology CSV: conv layers (`Layer name,
// IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num
// Filter, Strides,` and an optional stride width) or, with gemm, GEMM
// layers (`Layer, M, N, K,`). The first line is the header; a trailing
// comma ends each row. A conv layer whose name contains "DP" is depthwise:
// one layer per channel, as SCALE-Sim expands it.
func ParseTopology(file string, src []byte, gemm bool) ([]Layer, error) {
	cols := convColumns
	if gemm {
		cols = gemmColumns
	}
	var layers []Layer
	var errs []error
	first := true
	for i, raw := range strings.Split(string(src), "\n") {
		n := i + 1
		row := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if row == "" {
			continue
		}
		if first {
			first = false
			continue
		}
		fields := strings.Split(row, ",")
		if strings.TrimSpace(fields[len(fields)-1]) == "" {
			fields = fields[:len(fields)-1] // the trailing comma
		}
		if len(fields) < len(cols) {
			errs = append(errs, &Error{file, n, fmt.Sprintf("%d fields; a %s row has %d: %s", len(fields), kind(gemm), len(cols), strings.Join(cols, ", "))})
			continue
		}
		name := strings.TrimSpace(fields[0])
		vals := make([]int64, len(fields)-1)
		bad := false
		for j := 1; j < len(fields); j++ {
			col := "stride width"
			if j < len(cols) {
				col = cols[j]
			}
			v, err := strconv.ParseInt(strings.TrimSpace(fields[j]), 10, 64)
			if err != nil {
				errs = append(errs, &Error{file, n, fmt.Sprintf("%s %q is not a whole number", col, strings.TrimSpace(fields[j]))})
				bad = true
				break
			}
			if v < 1 || v > 1<<31 {
				errs = append(errs, &Error{file, n, fmt.Sprintf("%s is %d; it must be between 1 and 2^31", col, v)})
				bad = true
				break
			}
			vals[j-1] = v
		}
		if bad {
			continue
		}
		if gemm {
			m, nn, k := vals[0], vals[1], vals[2]
			l := Layer{Name: name, Line: n, IfmapH: m, IfmapW: k, FilterH: 1, FilterW: k, Channels: 1, Filters: nn, StrideH: 1, StrideW: 1}
			if err := l.checkSize(); err != nil {
				errs = append(errs, &Error{file, n, err.Error()})
				continue
			}
			layers = append(layers, l)
			continue
		}
		l := Layer{Name: name, Line: n, IfmapH: vals[0], IfmapW: vals[1], FilterH: vals[2], FilterW: vals[3], Channels: vals[4], Filters: vals[5], StrideH: vals[6], StrideW: vals[6]}
		if len(vals) > 7 {
			l.StrideW = vals[7]
		}
		if l.FilterH > l.IfmapH || l.FilterW > l.IfmapW {
			errs = append(errs, &Error{file, n, fmt.Sprintf("the %dx%d filter is larger than the %dx%d input", l.FilterH, l.FilterW, l.IfmapH, l.IfmapW)})
			continue
		}
		if err := l.checkSize(); err != nil {
			errs = append(errs, &Error{file, n, err.Error()})
			continue
		}
		if strings.Contains(name, "DP") {
			// SCALE-Sim runs a depthwise layer one channel at a time, a
			// layer (and a report row) each: 10^8 channels grew to 20 GB.
			if int64(len(layers))+l.Channels > MaxLayers {
				errs = append(errs, &Error{file, n, fmt.Sprintf("depthwise layer %s runs as %d per-channel layers; a topology may have at most %d layers in all", name, l.Channels, MaxLayers)})
				continue
			}
			for ch := int64(0); ch < l.Channels; ch++ {
				d := l
				d.Name, d.Channels = fmt.Sprintf("%sChannel_%d", name, ch), 1
				layers = append(layers, d)
			}
			continue
		}
		if int64(len(layers)) >= MaxLayers {
			errs = append(errs, &Error{file, n, fmt.Sprintf("more than %d layers", MaxLayers)})
			break
		}
		layers = append(layers, l)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	if len(layers) == 0 {
		return nil, &Error{file, 0, fmt.Sprintf("no layers (a header line, then one %s row per layer)", kind(gemm))}
	}
	return layers, nil
}

func kind(gemm bool) string {
	if gemm {
		return "GEMM"
	}
	return "conv"
}

// MaxLayers bounds a topology's layers, depthwise layers counted per
// channel as SCALE-Sim runs them: far beyond any network's (MobileNet-v2
// is about 17,000), small enough to hold and report.
const MaxLayers = 1 << 18

// maxLayerMACs bounds a layer's multiply-accumulates (M x N x K): far
// beyond any layer SCALE-Sim can run, and small enough that every count
// and address fits in 64 bits.
const maxLayerMACs = 1 << 50

// checkSize rejects a layer whose sizes overflow the model's arithmetic.
func (l *Layer) checkSize() error {
	lim := int64(1) << 31
	in := float64(l.IfmapH) * float64(l.IfmapW) * float64(l.Channels)
	k := float64(l.FilterH) * float64(l.FilterW) * float64(l.Channels)
	m := float64(l.OfmapH()) * float64(l.OfmapW())
	if in > float64(lim)*float64(lim) || k > float64(lim) || m > float64(lim) || m*k*float64(l.Filters) > maxLayerMACs {
		return fmt.Errorf("layer %s is too large: %.3g x %.3g x %d multiply-accumulates (at most %.3g)", l.Name, m, k, l.Filters, float64(maxLayerMACs))
	}
	return nil
}
