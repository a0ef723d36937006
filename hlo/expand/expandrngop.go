package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"math"
	"strconv"
)

// ExpandRngs rewrites every rng the way XLA's RngExpander does: the
// generator state comes from rng-get-and-update-state (a key and a counter
// the whole module shares, the counter advanced by the Philox blocks each
// rng uses, so that every execution draws new numbers, in loops too), its
// bits from rng-bit-generator, and arithmetic turns the bits into the
// distribution:
//
//   - uniform floats in [a, b): 23 random mantissa bits make u in [1, 2)
//     less 1 (52 for f64), a + (b - a) u in f32 (f64), converted to the
//     result type; a value that rounds up to b becomes a;
//   - normal floats (mean a, deviation b): Box-Muller from two uniforms,
//     a + b sqrt(-2 log(1 - u1)) cos(2 pi u2);
//   - uniform integers in [a, b) (a and b constants): a plus a 31-bit draw
//     modulo b - a when that is below 2^31, a 64-bit draw modulo it
//     otherwise; a when b <= a.
//
// The evaluator defines rng by this expansion too (evalrngop.go), so the
// chips' numbers are its numbers. They are not XLA's: XLA leaves rng's
// values to the implementation.
func ExpandRngs(m *hlo.Module) error {
	return rewriteEach(m, "rng", func(x *rewriter, ops []*hlo.Instruction) error {
		return x.expandRng(ops)
	})
}

// rngIntElems are the integer types rng draws.
var rngIntElems = map[string]bool{"s4": true, "s8": true, "s16": true, "s32": true, "s64": true,
	"u4": true, "u8": true, "u16": true, "u32": true, "u64": true}

func (x *rewriter) expandRng(ops []*hlo.Instruction) error {
	in := x.At
	if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple {
		return x.Errorf("takes two scalars and returns an array")
	}
	dist, _ := in.Attr("distribution")
	E, S := in.Shape.Elem, in.Shape.Dims
	a, b := ops[0], ops[1]
	switch {
	case hlo.IsFloat(E) && (dist == "rng_uniform" || dist == "rng_normal"):
		W := "f32"
		if E == "f64" {
			W = "f64"
		}
		if dist == "rng_uniform" {
			u := x.uniforms(W, S, 1)[0]
			aw, bw := x.Convert(a, W), x.Convert(b, W)
			v := x.Binary("add", x.Broadcast(aw, S, nil), x.Binary("multiply", x.Broadcast(x.Binary("subtract", bw, aw), S, nil), u))
			v = x.Convert(v, E)
			ae, be := x.Broadcast(a, S, nil), x.Broadcast(b, S, nil)
			up := x.Emit("compare", "pred", S, []*hlo.Instruction{v, be}, "direction", "GE")
			x.Finish(x.Emit("select", E, S, []*hlo.Instruction{up, ae, v}))
			return nil
		}
		u := x.uniforms(W, S, 2)
		one := x.Broadcast(x.Constant(W, "1"), S, nil)
		u1 := x.Binary("subtract", one, u[0]) // (0, 1]: its log is finite
		minus2 := x.Broadcast(x.Constant(W, "-2"), S, nil)
		r := x.Emit("sqrt", W, S, []*hlo.Instruction{x.Binary("multiply", minus2, x.Emit("log", W, S, []*hlo.Instruction{u1}))})
		twoPi := x.Broadcast(x.Constant(W, strconv.FormatFloat(2*math.Pi, 'g', -1, 64)), S, nil)
		z := x.Binary("multiply", r, x.Emit("cosine", W, S, []*hlo.Instruction{x.Binary("multiply", twoPi, u[1])}))
		v := x.Binary("add", x.Broadcast(x.Convert(a, W), S, nil), x.Binary("multiply", x.Broadcast(x.Convert(b, W), S, nil), z))
		x.Finish(x.Convert(v, E))
		return nil
	case rngIntElems[E] && dist == "rng_uniform":
		lo, okA := intLiteral(a)
		hi, okB := intLiteral(b)
		if !okA || !okB {
			return x.Errorf("an integer rng's bounds must be constants to be expanded (these are computed)")
		}
		loE := x.Broadcast(a, S, nil)
		span := uint64(hi) - uint64(lo) // the count of values, in two's complement
		if !spanPositive(E, lo, hi) {
			x.Finish(loE)
			return nil
		}
		var r *hlo.Instruction
		if span < 1<<31 {
			w := x.bitWords("u32", S)
			v := x.Convert(x.Binary("shift-right-logical", w, x.Broadcast(x.Constant("u32", "1"), S, nil)), "s32")
			r = x.Binary("remainder", v, x.Broadcast(x.Constant("s32", strconv.FormatUint(span, 10)), S, nil))
		} else {
			w := x.bitWords("u64", S)
			r = x.Binary("remainder", w, x.Broadcast(x.Constant("u64", strconv.FormatUint(span, 10)), S, nil))
		}
		x.Finish(x.Binary("add", x.Convert(r, E), loE))
		return nil
	}
	return x.Errorf("%s of %s is not expanded (uniform and normal floats, uniform integers are)", dist, E)
}

// uniforms draws k arrays of dims in [0, 1) of float type W (f32 or f64):
// the high mantissa bits of each random word under the exponent of 1,
// less 1.
func (x *rewriter) uniforms(W string, dims []int64, k int64) []*hlo.Instruction {
	word, shift, one := "u32", "9", "1065353216" // 0x3f800000
	if W == "f64" {
		word, shift, one = "u64", "12", "4607182418800017408" // 0x3ff0000000000000
	}
	n := hlo.Prod(dims)
	w := x.bitWords(word, []int64{k * n})
	flat := []int64{k * n}
	m := x.Binary("or", x.Binary("shift-right-logical", w, x.Broadcast(x.Constant(word, shift), flat, nil)), x.Broadcast(x.Constant(word, one), flat, nil))
	f := x.Binary("subtract", x.Emit("bitcast-convert", W, flat, []*hlo.Instruction{m}), x.Broadcast(x.Constant(W, "1"), flat, nil))
	out := make([]*hlo.Instruction, k)
	for i := range out {
		out[i] = x.Reshape(x.Slice(f, []int64{int64(i) * n}, []int64{n}, []int64{1}), dims)
	}
	return out
}

// bitWords draws an array of random words (u32 or u64) of the given dims:
// the module's generator state, advanced past the Philox blocks they use.
func (x *rewriter) bitWords(word string, dims []int64) *hlo.Instruction {
	words := hlo.Prod(dims)
	if word == "u64" {
		words *= 2
	}
	blocks := max((words+3)/4, 1)
	st := x.Emit("rng-get-and-update-state", "u64", []int64{2}, nil, "delta", strconv.FormatInt(blocks, 10))
	g := x.Emit("rng-bit-generator", "", nil, []*hlo.Instruction{st}, "algorithm", "rng_philox")
	g.Shape = &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: "u64", Dims: []int64{2}}, {Elem: word, Dims: append([]int64{}, dims...)}}}
	return x.Emit("get-tuple-element", word, dims, []*hlo.Instruction{g}, "index", "1")
}

// intLiteral reads an integer scalar constant, an unsigned one above
// 2^63 as its two's-complement bits.
func intLiteral(c *hlo.Instruction) (int64, bool) {
	if c == nil || c.Opcode != hlo.OpConstant || c.Shape == nil || len(c.Shape.Dims) != 0 {
		return 0, false
	}
	if n, err := strconv.ParseInt(c.Literal, 10, 64); err == nil {
		return n, true
	}
	u, err := strconv.ParseUint(c.Literal, 10, 64)
	return int64(u), err == nil
}

// spanPositive reports b > a for the bounds' bits read as elem.
func spanPositive(elem string, a, b int64) bool {
	if hlo.IsUnsigned(elem) {
		return uint64(b) > uint64(a)
	}
	return b > a
}
