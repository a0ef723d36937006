package legalize

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// ExpandVectorDots rewrites the dots a matrix unit cannot run (mxu says
// which element types it multiplies) into what it can, or into vector
// arithmetic:
//
//   - operands of two types whose values the result's (float) type holds
//     exactly (bf16 x f32, s8 x bf16 into f32, ...) are converted to the
//     result's type first, as XLA computes a mixed dot in the result type;
//   - 4-bit integer operands (with each other or with 8-bit ones) are
//     converted to s8, exactly, for a unit that multiplies s8: int4
//     weights run at the unit's 8-bit rate (no unit modelled here
//     multiplies 4-bit integers faster);
//   - a dot of a type the matrix unit does not multiply (16- and 32-bit
//     integers, u8 on an s8 unit, pred, f64) becomes the products
//     broadcast over (batch, lhs free, rhs free, contracting) dims and a
//     sum over the contracting ones, in the result's type (an integer dot
//     into a narrow integer sums in s32 and converts, wrapping as XLA's
//     does; pred is "any product true"). Integer sums wrap, so every order
//     gives XLA's bits; float sums differ from the evaluator's order by
//     rounding only. The products take memory: a dot of more than
//     maxProducts of them is an error naming the count.
func ExpandVectorDots(m *hlo.Module, mxu func(elem string) bool, maxProducts int64) error {
	return rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !arrayDot(in, ops) {
			x.Out = append(x.Out, in)
			return nil
		}
		a, b := ops[0], ops[1]
		res := in.Shape.Elem
		lb, lc, rb, rc, err := hlo.DotDims(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		// A dot that contracts nothing (a batched outer product: MoE's
		// tokens times their expert weights) is elementwise products: on
		// the vector unit they stream, on the matrix unit each is a
		// one-deep pass (f32[64,128] x f32[64,8] per batch: 6,133 cycles
		// on tpuv4core).
		outer := len(lc) == 0 && hlo.Prod(in.Shape.Dims) <= maxProducts
		if !outer {
			if a.Shape.Elem == b.Shape.Elem && mxu(a.Shape.Elem) {
				x.Out = append(x.Out, in) // the matrix unit's
				return nil
			}
			if a.Shape.Elem != b.Shape.Elem && hlo.IsFloat(res) {
				// With an 8-bit float among them, operands bf16 holds go to
				// bf16 (the unit's full rate; the sum is still the result
				// type's), else to the result's type.
				mini := isa.Minifloats[a.Shape.Elem] != nil || isa.Minifloats[b.Shape.Elem] != nil
				for _, t := range []string{hlo.BF16, res} {
					if t == hlo.BF16 && !mini || !mxu(t) || !holdsExactly(t, a.Shape.Elem) || !holdsExactly(t, b.Shape.Elem) {
						continue
					}
					d := x.Emit("dot", res, in.Shape.Dims, []*hlo.Instruction{x.Convert(a, t), x.Convert(b, t)})
					d.Attrs = in.Attrs
					return nil
				}
			}
			if int4(a.Shape.Elem, b.Shape.Elem) && mxu("s8") {
				d := x.Emit("dot", res, in.Shape.Dims, []*hlo.Instruction{x.Convert(a, "s8"), x.Convert(b, "s8")})
				d.Attrs = in.Attrs
				return nil
			}
			if a.Shape.Elem == b.Shape.Elem && hlo.IsFloat(a.Shape.Elem) && a.Shape.Elem != hlo.F64 {
				x.Out = append(x.Out, in) // bf16/f16 the unit lacks: UpcastDots' or the lowering's to judge
				return nil
			}
		}
		work := res
		if res == "pred" || !hlo.IsFloat(res) && hlo.ElemBits(res) < 32 {
			work = "s32"
		}
		lf := hlo.FreeDims(len(a.Shape.Dims), lb, lc)
		rf := hlo.FreeDims(len(b.Shape.Dims), rb, rc)
		// The products' dims: batch, lhs free, rhs free, contracting.
		var P []int64
		for _, d := range lb {
			P = append(P, a.Shape.Dims[d])
		}
		for _, d := range lf {
			P = append(P, a.Shape.Dims[d])
		}
		for _, d := range rf {
			P = append(P, b.Shape.Dims[d])
		}
		for _, d := range lc {
			P = append(P, a.Shape.Dims[d])
		}
		if n := hlo.Prod(P); n > maxProducts {
			return x.Errorf("a %s dot the matrix unit cannot multiply runs on the vector unit, and its %d products exceed the %d it may hold", a.Shape.Elem, n, maxProducts)
		}
		nb, nl, nr := len(lb), len(lf), len(rf)
		// Each operand transposed to (batch, free, contracting) and
		// broadcast into the products' dims.
		spread := func(v *hlo.Instruction, batch, free, contr []int64, freeAt int) *hlo.Instruction {
			perm := slices.Concat(batch, free, contr)
			var mapping []int64
			for i := range batch {
				mapping = append(mapping, int64(i))
			}
			for i := range free {
				mapping = append(mapping, int64(freeAt+i))
			}
			for i := range contr {
				mapping = append(mapping, int64(nb+nl+nr+i))
			}
			t := x.Convert(x.Transpose(v, perm), work)
			return x.Emit("broadcast", work, P, []*hlo.Instruction{t}, "dimensions", hlo.IntsText(mapping))
		}
		pa := spread(a, lb, lf, lc, nb)
		pb := spread(b, rb, rf, rc, nb+nl)
		p := x.Binary("multiply", pa, pb)
		var sumDims []int64
		for i := range lc {
			sumDims = append(sumDims, int64(nb+nl+nr+i))
		}
		var s *hlo.Instruction
		if len(sumDims) == 0 {
			s = p
		} else {
			s = x.ReduceSum(p, sumDims)
		}
		x.Finish(x.Convert(s, res))
		return nil
	})
}

// int4 reports whether a dot of types a and b takes a 4-bit integer and
// otherwise only integers s8 holds: s4, u4, s8 (u8's 255 is not an s8).
func int4(a, b string) bool {
	in8 := func(e string) bool { return e == "s4" || e == "u4" || e == "s8" }
	return (a == "s4" || a == "u4" || b == "s4" || b == "u4") && in8(a) && in8(b)
}

// holdsExactly: every value of elem is a value of float type into.
func holdsExactly(into, elem string) bool {
	switch into {
	case "f64":
		return elem != hlo.S64 && elem != hlo.U64
	case "f32":
		return elem == hlo.F32 || elem == hlo.F16 || elem == hlo.BF16 || elem == hlo.Pred || elem == hlo.S8 || elem == hlo.U8 || elem == hlo.S16 || elem == hlo.U16 || elem == hlo.S4 || elem == hlo.U4 || isa.Minifloats[elem] != nil
	case "bf16", "f16":
		// Every 8- and 4-bit float is a bf16 value (bf16 has f32's
		// exponent range and 7 mantissa bits, they at most 4); f16's
		// range (2^-24 to 65504) holds all but e8m0's powers of two up to
		// 2^127. So a mixed fp8 dot (e5m2 x e4m3fn, FP8 training's
		// gradient x weight) runs on a bf16 unit, as XLA runs it on a TPU
		// without fp8 MXUs.
		mf := isa.Minifloats[elem] != nil && (into == "bf16" || elem != "f8e8m0fnu")
		return elem == into || elem == hlo.Pred || elem == hlo.S8 || elem == hlo.U8 || elem == hlo.S4 || elem == hlo.U4 || mf
	}
	return false
}

// CanonicalizeDots transposes the operands of every dot for which
// awkward(lhs dims, rhs dims, lhs batch, lhs contracting, rhs batch, rhs
// contracting) holds into (batch, free, contracting) for the lhs and
// (batch, contracting, free) for the rhs, as XLA's dot canonicalization
// does: the lowering reads each group of dims as one strided run. The
// result's dims (batch, lhs free, rhs free) keep their order.
func CanonicalizeDots(m *hlo.Module, awkward func(l, r, lb, lc, rb, rc []int64) bool) error {
	return rewriteEach(m, "dot", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !arrayDot(in, ops) {
			x.Out = append(x.Out, in)
			return nil
		}
		a, b := ops[0], ops[1]
		lb, lc, rb, rc, err := hlo.DotDims(in)
		if err != nil || len(lb) != len(rb) || len(lc) != len(rc) || !awkward(a.Shape.Dims, b.Shape.Dims, lb, lc, rb, rc) {
			x.Out = append(x.Out, in)
			return nil
		}
		lf := hlo.FreeDims(len(a.Shape.Dims), lb, lc)
		rf := hlo.FreeDims(len(b.Shape.Dims), rb, rc)
		ta := x.Transpose(a, slices.Concat(lb, lf, lc))
		tb := x.Transpose(b, slices.Concat(rb, rc, rf))
		nb, nl, nc := len(lb), len(lf), len(lc)
		d := x.Emit("dot", in.Shape.Elem, in.Shape.Dims, []*hlo.Instruction{ta, tb})
		for _, at := range in.Attrs {
			switch at.Key {
			case "lhs_batch_dims", "rhs_batch_dims":
				at.Value = hlo.IntsText(hlo.Iota64(0, nb))
			case "lhs_contracting_dims":
				at.Value = hlo.IntsText(hlo.Iota64(nb+nl, nb+nl+nc))
			case "rhs_contracting_dims":
				at.Value = hlo.IntsText(hlo.Iota64(nb, nb+nc))
			}
			d.Attrs = append(d.Attrs, at)
		}
		return nil
	})
}

// arrayDot: a dot of two arrays into an array (anything else is left for
// the verifier and the lowering to name).
func arrayDot(in *hlo.Instruction, ops []*hlo.Instruction) bool {
	return len(ops) == 2 && !in.Shape.IsTuple && !ops[0].Shape.IsTuple && !ops[1].Shape.IsTuple
}
