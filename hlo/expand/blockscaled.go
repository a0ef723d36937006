package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// BlockScaledDotTarget is the custom call JAX emits for a dot of MX
// block-scaled operands (jax.nn.scaled_matmul): custom-call(lhs, rhs,
// lhs_scale, rhs_scale), each scale holding one value per block of the
// last dim.
const BlockScaledDotTarget = "__op$block_scaled_dot"

// IsBlockScaledDot reports whether in is that custom call.
func IsBlockScaledDot(in *hlo.Instruction) bool {
	t, _ := in.Attr("custom_call_target")
	return in.Opcode == hlo.OpCustomCall && strings.Trim(t, `"`) == BlockScaledDotTarget
}

// ExpandBlockScaledDots rewrites each block-scaled dot as XLA's
// BlockScalingRewriter does when no cuDNN kernel takes it: lhs, rhs,
// lhs_scale, optionally rhs_scale (without it rhs is not scaled) and a
// global scale (a scalar of the result type that multiplies the result).
// Each scaled operand and its scale are converted to the result's type,
// the scale sliced to the operand where it is padded (its non-contracting
// dim; its blocks, when backend_config gives the block_size) and repeated
// over its blocks of the last dim, and multiplied; then a dot contracting
// the last dims, the first dim a batch dim at rank 3. The evaluator
// evaluates the same expansion.
func ExpandBlockScaledDots(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsBlockScaledDot(in) {
			x.Out = append(x.Out, in) // another custom call: unchanged
			return nil
		}
		if len(ops) < 3 || len(ops) > 5 || in.Shape == nil || in.Shape.IsTuple {
			return x.Errorf("a block-scaled dot takes lhs, rhs, lhs_scale and optionally rhs_scale and a global scale, and returns an array (here %d operands)", len(ops))
		}
		rank := len(ops[0].Shape.Dims)
		if rank != 2 && rank != 3 || len(ops[1].Shape.Dims) != rank {
			return x.Errorf("a block-scaled dot multiplies operands of rank 2 or 3 (here %s and %s)", ops[0].Shape, ops[1].Shape)
		}
		l, r := ops[0].Shape.Dims, ops[1].Shape.Dims
		want := []int64{l[rank-2], r[rank-2]}
		if rank == 3 {
			want = []int64{l[0], l[1], r[1]}
		}
		if l[rank-1] != r[rank-1] || rank == 3 && l[0] != r[0] || !hlo.EqualDims(in.Shape.Dims, want) {
			batched := ""
			if rank == 3 {
				batched = ", batched over the first"
			}
			return x.Errorf("%s and %s (contracting their last dims%s) make %s%v, not %s", ops[0].Shape, ops[1].Shape, batched, in.Shape.Elem, want, in.Shape)
		}
		block, err := blockSizeOf(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		elem := in.Shape.Elem
		lhs, err := x.blockDequantize(ops[0], ops[2], elem, block, "lhs")
		if err != nil {
			return err
		}
		rhs := x.Convert(ops[1], elem)
		if len(ops) >= 4 {
			if rhs, err = x.blockDequantize(ops[1], ops[3], elem, block, "rhs"); err != nil {
				return err
			}
		}
		last := fmt.Sprint(rank - 1)
		attrs := []string{"lhs_contracting_dims", "{" + last + "}", "rhs_contracting_dims", "{" + last + "}"}
		if rank == 3 {
			attrs = append(attrs, "lhs_batch_dims", "{0}", "rhs_batch_dims", "{0}")
		}
		d := x.Emit("dot", elem, in.Shape.Dims, []*hlo.Instruction{lhs, rhs}, attrs...)
		if len(ops) == 5 {
			g := ops[4]
			if len(g.Shape.Dims) != 0 || g.Shape.IsTuple || g.Shape.Elem != elem {
				return x.Errorf("the global scale %s is not a scalar of the result's type %s", g.Shape, elem)
			}
			d = x.Binary("multiply", d, x.Broadcast(g, d.Shape.Dims, nil))
		}
		x.Finish(d)
		return nil
	})
}

// blockSizeOf reads backend_config's block_size (0 when not given: the
// scale's shape implies it).
func blockSizeOf(in *hlo.Instruction) (int64, error) {
	bc, ok := in.Attr("backend_config")
	if !ok {
		return 0, nil
	}
	_, after, found := strings.Cut(bc, "block_size")
	if !found {
		return 0, nil
	}
	after = strings.TrimLeft(after, `"': `)
	var n int64
	if _, err := fmt.Sscan(strings.TrimRight(strings.SplitN(after, "}", 2)[0], `" ,`), &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("backend_config's block_size is not a positive number: %s", bc)
	}
	return n, nil
}

// blockDequantize is op times scale, both in elem, the scale sliced where
// it is padded and repeated over blocks of op's last dim.
func (x *rewriter) blockDequantize(op, scale *hlo.Instruction, elem string, block int64, side string) (*hlo.Instruction, error) {
	d, s := op.Shape.Dims, append([]int64{}, scale.Shape.Dims...)
	n := len(d)
	bad := func() error {
		return x.Errorf("the %s scale %s does not block the %s operand %s along its last dim", side, scale.Shape, side, op.Shape)
	}
	if len(s) != n || n == 3 && s[0] != d[0] || s[n-2] < d[n-2] {
		return nil, bad()
	}
	s[n-2] = d[n-2]
	if block > 0 {
		if d[n-1] > block*s[n-1] {
			return nil, bad()
		}
		s[n-1] = (d[n-1] + block - 1) / block
	}
	if s[n-1] <= 0 || d[n-1]%s[n-1] != 0 {
		return nil, bad()
	}
	if !hlo.EqualDims(s, scale.Shape.Dims) {
		ones := make([]int64, n)
		for i := range ones {
			ones[i] = 1
		}
		scale = x.Slice(scale, make([]int64, n), s, ones)
	}
	op, scale = x.Convert(op, elem), x.Convert(scale, elem)
	wide := append(append([]int64{}, s...), d[n-1]/s[n-1])
	b := x.Reshape(x.Broadcast(scale, wide, hlo.Iota64(0, n)), d)
	return x.Binary("multiply", op, b), nil
}
