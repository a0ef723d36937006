package legalize

import (
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// SimplifyIdentityViews turns data movement of a scalar, which moves
// nothing, into copy: a reverse, transpose or slice of rank 0 (generated
// and rewritten modules have them; a view of rank 0 has no strides for a
// kernel to walk). Identity views of arrays (a reverse of dims of 1 in a
// convolution's backward pass) stay: the loop kernels read them as views,
// and a copy of a computed value inside a loop fusion they do not take.
func SimplifyIdentityViews(m *hlo.Module) error {
	for _, op := range []string{"reverse", "transpose", "slice"} {
		err := rewriteEach(m, op, func(x *rewriter, ops []*hlo.Instruction) error {
			c := *x.At
			if len(ops[0].Shape.Dims) == 0 && identityView(&c, ops[0].Shape) {
				c.Opcode, c.Attrs = "copy", nil
			}
			x.Out = append(x.Out, &c)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// identityView tells whether view instruction in, applied to an operand of
// shape s, returns its operand unchanged.
func identityView(in *hlo.Instruction, s *hlo.Shape) bool {
	if s == nil || s.IsTuple || in.Shape == nil || !hlo.EqualDims(in.Shape.Dims, s.Dims) {
		return false
	}
	switch in.Opcode {
	case hlo.OpReverse:
		dims, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", ""))
		if !ok {
			return false
		}
		for _, d := range dims {
			if d < 0 || int(d) >= len(s.Dims) || s.Dims[d] != 1 {
				return false
			}
		}
		return true
	case hlo.OpTranspose:
		perm, ok := hlo.IntList(hlo.AttrOr(in, "dimensions", ""))
		if !ok || len(perm) != len(s.Dims) {
			return false
		}
		for i, p := range perm {
			if p != int64(i) {
				return false
			}
		}
		return true
	case hlo.OpSlice:
		v, _ := in.Attr("slice")
		for _, r := range strings.Split(strings.Trim(v, "{}"), ",") {
			if p := strings.Split(strings.Trim(strings.TrimSpace(r), "[]"), ":"); len(p) == 3 && strings.TrimSpace(p[2]) != "1" {
				return false
			}
		}
		return true // same dims as its operand and stride 1: all of it
	}
	return false
}
