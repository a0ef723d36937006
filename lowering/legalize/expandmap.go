package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// ExpandMaps rewrites every map whose computation is scalar elementwise ops
// into those ops over the arrays (the computation's constants broadcast),
// which is what map means; fusion then makes them one loop kernel. A map
// whose computation is anything else is left for the lowering to name.
func ExpandMaps(m *hlo.Module) error {
	return rewriteEach(m, "map", func(x *rewriter, ops []*hlo.Instruction) error {
		name, _ := x.At.Attr("to_apply")
		f := m.Computation(strings.TrimPrefix(name, "%"))
		if f == nil || len(ops) == 0 || !scalarBody(f, len(ops)) {
			x.Out = append(x.Out, x.At)
			return nil
		}
		for _, o := range ops {
			if o.Shape.IsTuple || !hlo.EqualDims(o.Shape.Dims, x.At.Shape.Dims) {
				x.Out = append(x.Out, x.At)
				return nil
			}
		}
		r, err := x.Apply(f, ops)
		if err != nil {
			return err
		}
		x.Finish(r[0])
		return nil
	})
}
