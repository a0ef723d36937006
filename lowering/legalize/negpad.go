package legalize

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// SplitNegativePads rewrites every pad with a negative edge (which cuts
// elements off instead of adding them) into a pad by the non-negative
// parts followed by a slice that cuts: XLA's own reading of negative
// padding, and two kernels the chips have.
func SplitNegativePads(m *hlo.Module) error {
	return rewriteEach(m, "pad", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		pv, _ := in.Attr("padding")
		dims := ops[0].Shape.Dims
		per := strings.Split(pv, "x")
		if pv == "" || len(per) != len(dims) || in.Shape.IsTuple || len(in.Shape.Dims) != len(dims) {
			x.Out = append(x.Out, in)
			return nil
		}
		cfg := make([]string, len(per))
		pdims := make([]int64, len(per))
		start := make([]int64, len(per))
		stride := make([]int64, len(per))
		negative := false
		for i, p := range per {
			f := strings.Split(p, "_")
			if len(f) < 2 || len(f) > 3 {
				return x.Errorf("bad padding %q", pv)
			}
			lo, err1 := strconv.ParseInt(f[0], 10, 64)
			hi, err2 := strconv.ParseInt(f[1], 10, 64)
			var interior int64
			var err3 error
			if len(f) == 3 {
				interior, err3 = strconv.ParseInt(f[2], 10, 64)
			}
			if err1 != nil || err2 != nil || err3 != nil {
				return x.Errorf("bad padding %q", pv)
			}
			negative = negative || lo < 0 || hi < 0
			cfg[i] = fmt.Sprintf("%d_%d_%d", max(lo, 0), max(hi, 0), interior)
			pdims[i] = max(lo, 0) + max(hi, 0) + dims[i]
			if dims[i] > 0 {
				pdims[i] += (dims[i] - 1) * interior
			}
			start[i], stride[i] = max(-lo, 0), 1
		}
		if !negative {
			x.Out = append(x.Out, in)
			return nil
		}
		p := x.Emit("pad", in.Shape.Elem, pdims, ops, "padding", strings.Join(cfg, "x"))
		s := x.Slice(p, start, in.Shape.Dims, stride)
		x.Finish(s)
		x.Out[len(x.Out)-1].Shape = in.Shape
		return nil
	})
}
