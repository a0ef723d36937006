package lowering

import (
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// locateSources gives each kernel the source its HLO names (the Python
// file and line of XLA's metadata, or of a StableHLO export's debug
// locations; kernelSource says which of a fusion's). orig is the module
// before the passes: everything they make keeps its origin's position, so
// positions find what their metadata was.
func (c *compiler) locateSources(orig, fm *hlo.Module) {
	src := hlo.Sources(orig)
	if len(src) == 0 {
		return
	}
	c.res.Sources = src
	byName := map[string]*hlo.Instruction{}
	for _, comp := range fm.Computations {
		for _, in := range comp.Instructions {
			byName[in.Name] = in
		}
	}
	for i := range c.res.Kernels {
		k := &c.res.Kernels[i]
		name := k.Name
		if j := strings.IndexByte(name, '/'); j >= 0 {
			// A piece of a split fusion (fusion.7/multiply.3): its own
			// instruction's line, else the fusion's.
			if piece := byName[name[j+1:]]; piece != nil {
				if s, ok := src[piece.Pos]; ok {
					k.Source = s
					continue
				}
			}
			name = name[:j]
		}
		var body *hlo.Computation
		if in := byName[name]; in != nil && in.Opcode == hlo.OpFusion {
			name, _ := in.Attr("calls")
			body = fm.Computation(strings.TrimPrefix(name, "%"))
		}
		k.Source = kernelSource(src, k.Pos, body)
	}
}

// kernelSource is the source of a kernel at pos whose fused computation
// is body (nil for a kernel of one instruction): the line of its work's
// heart when it has one (the dot or convolution of an output fusion, the
// reduction of an input fusion: an epilogue's activation is not where a
// matmul's time goes), else its root's, else the nearest named
// instruction before the root.
func kernelSource(src map[hlo.Pos]hlo.Source, pos hlo.Pos, body *hlo.Computation) hlo.Source {
	if body == nil {
		return src[pos]
	}
	for _, heart := range [][]string{{hlo.OpDot, hlo.OpConvolution}, {hlo.OpReduce, hlo.OpReduceWindow}} {
		for _, in := range body.Instructions {
			if slices.Contains(heart, in.Opcode) {
				if s, ok := src[in.Pos]; ok {
					return s
				}
			}
		}
	}
	if s, ok := src[pos]; ok {
		return s
	}
	for j := len(body.Instructions) - 1; j >= 0; j-- {
		if s, ok := src[body.Instructions[j].Pos]; ok {
			return s
		}
	}
	return hlo.Source{}
}
