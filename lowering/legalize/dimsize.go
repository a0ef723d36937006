package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// StaticDimensionSizes rewrites the dynamic-shape ops the way the
// evaluator computes them, on bounded shapes: set-dimension-size(x, n)
// becomes a bitcast of x (the elements beyond n are padding nobody reads
// for a result), and get-dimension-size(x) the constant static size of
// the dimension. A module whose results depend on the dynamic size itself
// would differ from XLA's; the evaluator, the oracle of --check, makes the
// same choice.
func StaticDimensionSizes(m *hlo.Module) error {
	if err := rewriteEach(m, "set-dimension-size", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		x.Emit("bitcast", in.Shape.Elem, in.Shape.Dims, ops[:1])
		return nil
	}); err != nil {
		return err
	}
	return rewriteEach(m, "get-dimension-size", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		dims, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", ""))
		if !ok || len(dims) != 1 || dims[0] < 0 || int(dims[0]) >= len(ops[0].Shape.Dims) {
			return x.Errorf("needs one dimension of the operand")
		}
		x.Constant(in.Shape.Elem, strconv.FormatInt(ops[0].Shape.Dims[dims[0]], 10))
		return nil
	})
}
