package analysis

import (
	"github.com/pulse-sim/pulse/hlo"
	"sort"
	"strings"
)

// OperandShapes returns each operand's shape: printed with the operand, or
// the shape of the instruction it names in computation c (nil if unknown).
func OperandShapes(c *hlo.Computation, in *hlo.Instruction) []*hlo.Shape {
	out := make([]*hlo.Shape, len(in.Operands))
	for i, o := range in.Operands {
		if o.Shape != nil {
			out[i] = o.Shape
			continue
		}
		for _, d := range c.Instructions {
			if d.Name == o.Name {
				out[i] = d.Shape
				break
			}
		}
	}
	return out
}

// Cost is the work of one instruction: arithmetic operations (2 per
// multiply-add) and bytes read and written.
type Cost struct {
	FLOPs int64
	Bytes int64
}

// InstructionCost estimates an instruction's FLOPs and bytes from its shapes.
// Data movement costs bytes only; unknown shapes cost nothing.
func InstructionCost(c *hlo.Computation, in *hlo.Instruction, ops []*hlo.Shape) Cost {
	var k Cost
	if in.Shape == nil {
		return k
	}
	switch in.Opcode {
	case hlo.OpParameter, hlo.OpConstant, hlo.OpTuple, hlo.OpGetTupleElement, hlo.OpBitcast, hlo.OpAfterAll, hlo.OpPartitionId, hlo.OpReplicaId:
		return k // no data moved at run time
	}
	k.Bytes = in.Shape.Bytes()
	for _, s := range ops {
		k.Bytes += s.Bytes()
	}
	out := in.Shape.Elems()
	switch {
	case hlo.IsElementwise(in.Opcode):
		k.FLOPs = out
	case in.Opcode == hlo.OpDot && len(ops) == 2 && ops[0] != nil:
		contract := int64(1)
		if v, ok := in.Attr("lhs_contracting_dims"); ok {
			dims, _ := hlo.IntList(v)
			for _, d := range dims {
				if d >= 0 && int(d) < len(ops[0].Dims) {
					contract *= ops[0].Dims[d]
				}
			}
		}
		k.FLOPs = 2 * out * contract
	case in.Opcode == hlo.OpConvolution && len(ops) == 2 && ops[1] != nil:
		// Each output element is a dot over the kernel's spatial positions and
		// input features; with feature groups the kernel's input-feature
		// dimension already holds one group's features.
		kernel := ops[1].Elems()
		outFeat := int64(1)
		if v, ok := in.Attr("dim_labels"); ok {
			if parts := strings.Split(v, "_"); len(parts) == 2 {
				rhs := strings.Split(parts[1], "->")[0]
				if i := strings.IndexByte(rhs, 'o'); i >= 0 && i < len(ops[1].Dims) {
					outFeat = ops[1].Dims[i]
				}
			}
		}
		k.FLOPs = 2 * out * (kernel / max(outFeat, 1))
	case in.Opcode == hlo.OpReduce && len(ops) > 0 && ops[0] != nil:
		k.FLOPs = ops[0].Elems() // the reducer applied once per input element
	case in.Opcode == hlo.OpReduceWindow && len(ops) > 0 && ops[0] != nil:
		// Once per window position of every output element: overlapping
		// windows read an input element many times (a cumulative sum
		// over n elements is n(n+1)/2 additions, not n).
		positions := int64(1)
		if v, ok := in.Attr("window"); ok {
			if w, err := hlo.ParseWindow(v, len(ops[0].Dims)); err == nil {
				positions = hlo.Prod(w.Size)
			}
		}
		outs := out
		if in.Shape.IsTuple && len(in.Shape.Tuple) > 0 {
			outs = in.Shape.Tuple[0].Elems()
		}
		k.FLOPs = outs * positions
	}
	return k
}

// OpStats aggregates one opcode.
type OpStats struct {
	Opcode string
	Count  int
	Cost
}

// Stats is the op histogram and totals of a module, counting every
// computation once (a while body is not multiplied by its trip count).
type Stats struct {
	Ops   []OpStats // by FLOPs, then bytes, then count, then name
	Total Cost
	N     int
}

// ComputeStats builds the op histogram of a module.
func ComputeStats(m *hlo.Module) Stats {
	by := map[string]*OpStats{}
	var st Stats
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			k := InstructionCost(c, in, OperandShapes(c, in))
			s := by[in.Opcode]
			if s == nil {
				s = &OpStats{Opcode: in.Opcode}
				by[in.Opcode] = s
			}
			s.Count++
			s.FLOPs += k.FLOPs
			s.Bytes += k.Bytes
			st.Total.FLOPs += k.FLOPs
			st.Total.Bytes += k.Bytes
			st.N++
		}
	}
	for _, s := range by {
		st.Ops = append(st.Ops, *s)
	}
	sort.Slice(st.Ops, func(i, j int) bool {
		a, b := st.Ops[i], st.Ops[j]
		if a.FLOPs != b.FLOPs {
			return a.FLOPs > b.FLOPs
		}
		if a.Bytes != b.Bytes {
			return a.Bytes > b.Bytes
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Opcode < b.Opcode
	})
	return st
}
