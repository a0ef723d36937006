package hlo

import (
	"fmt"
	"strings"
)

// BlockScaledDotTarget is the custom call JAX emits for a dot of MX
// block-scaled operands (jax.nn.scaled_matmul): custom-call(lhs, rhs,
// lhs_scale, rhs_scale), each scale holding one value per block of the
// last dim.
const BlockScaledDotTarget = "__op$block_scaled_dot"

// IsBlockScaledDot reports whether in is that custom call.
func IsBlockScaledDot(in *Instruction) bool {
	t, _ := in.Attr("custom_call_target")
	return in.Opcode == "custom-call" && strings.Trim(t, `"`) == BlockScaledDotTarget
}

// ExpandBlockScaledDots rewrites each block-scaled dot as XLA's
// BlockScalingRewriter does: each operand and its scale converted to the
// result's type, the scale repeated over its blocks of the last dim
// (broadcast along a new trailing dim, merged), multiplied; then a dot
// contracting the last dims, the first dim a batch dim when the operands
// have rank 3. The evaluator evaluates the same expansion.
func ExpandBlockScaledDots(m *Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*Instruction) error {
		in := x.at
		if !IsBlockScaledDot(in) {
			x.out = append(x.out, in) // another custom call: unchanged
			return nil
		}
		if len(ops) != 4 || in.Shape == nil || in.Shape.IsTuple {
			return x.errorf("a block-scaled dot takes lhs, rhs and their scales, and returns an array")
		}
		rank := len(ops[0].Shape.Dims)
		if rank != 2 && rank != 3 || len(ops[1].Shape.Dims) != rank {
			return x.errorf("a block-scaled dot multiplies operands of rank 2 or 3 (here %s and %s)", ops[0].Shape, ops[1].Shape)
		}
		elem := in.Shape.Elem
		lhs, err := x.blockDequantize(ops[0], ops[2], elem, "lhs")
		if err != nil {
			return err
		}
		rhs, err := x.blockDequantize(ops[1], ops[3], elem, "rhs")
		if err != nil {
			return err
		}
		last := fmt.Sprint(rank - 1)
		attrs := []string{"lhs_contracting_dims", "{" + last + "}", "rhs_contracting_dims", "{" + last + "}"}
		if rank == 3 {
			attrs = append(attrs, "lhs_batch_dims", "{0}", "rhs_batch_dims", "{0}")
		}
		x.finish(x.emit("dot", elem, in.Shape.Dims, []*Instruction{lhs, rhs}, attrs...))
		return nil
	})
}

// blockDequantize is op times scale, both in elem, the scale repeated over
// blocks of op's last dim.
func (x *rewriter) blockDequantize(op, scale *Instruction, elem, side string) (*Instruction, error) {
	d, s := op.Shape.Dims, scale.Shape.Dims
	n := len(d)
	if len(s) != n || !equalDims(d[:n-1], s[:n-1]) || s[n-1] <= 0 || d[n-1]%s[n-1] != 0 {
		return nil, x.errorf("the %s scale %s does not block the %s operand %s along its last dim", side, scale.Shape, side, op.Shape)
	}
	block := d[n-1] / s[n-1]
	op, scale = x.convert(op, elem), x.convert(scale, elem)
	wide := append(append([]int64{}, s...), block)
	b := x.reshape(x.broadcast(scale, wide, iota64(0, n)), d)
	return x.binary("multiply", op, b), nil
}
