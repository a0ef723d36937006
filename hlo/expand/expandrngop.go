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
	in := x.at
	if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple {
		return x.errorf("takes two scalars and returns an array")
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
			aw, bw := x.convert(a, W), x.convert(b, W)
			v := x.binary("add", x.broadcast(aw, S, nil), x.binary("multiply", x.broadcast(x.binary("subtract", bw, aw), S, nil), u))
			v = x.convert(v, E)
			ae, be := x.broadcast(a, S, nil), x.broadcast(b, S, nil)
			up := x.emit("compare", "pred", S, []*hlo.Instruction{v, be}, "direction", "GE")
			x.finish(x.emit("select", E, S, []*hlo.Instruction{up, ae, v}))
			return nil
		}
		u := x.uniforms(W, S, 2)
		one := x.broadcast(x.constant(W, "1"), S, nil)
		u1 := x.binary("subtract", one, u[0]) // (0, 1]: its log is finite
		minus2 := x.broadcast(x.constant(W, "-2"), S, nil)
		r := x.emit("sqrt", W, S, []*hlo.Instruction{x.binary("multiply", minus2, x.emit("log", W, S, []*hlo.Instruction{u1}))})
		twoPi := x.broadcast(x.constant(W, strconv.FormatFloat(2*math.Pi, 'g', -1, 64)), S, nil)
		z := x.binary("multiply", r, x.emit("cosine", W, S, []*hlo.Instruction{x.binary("multiply", twoPi, u[1])}))
		v := x.binary("add", x.broadcast(x.convert(a, W), S, nil), x.binary("multiply", x.broadcast(x.convert(b, W), S, nil), z))
		x.finish(x.convert(v, E))
		return nil
	case rngIntElems[E] && dist == "rng_uniform":
		lo, okA := intLiteral(a)
		hi, okB := intLiteral(b)
		if !okA || !okB {
			return x.errorf("an integer rng's bounds must be constants to be expanded (these are computed)")
		}
		loE := x.broadcast(a, S, nil)
		span := uint64(hi) - uint64(lo) // the count of values, in two's complement
		if !spanPositive(E, lo, hi) {
			x.finish(loE)
			return nil
		}
		var r *hlo.Instruction
		if span < 1<<31 {
			w := x.bitWords("u32", S)
			v := x.convert(x.binary("shift-right-logical", w, x.broadcast(x.constant("u32", "1"), S, nil)), "s32")
			r = x.binary("remainder", v, x.broadcast(x.constant("s32", strconv.FormatUint(span, 10)), S, nil))
		} else {
			w := x.bitWords("u64", S)
			r = x.binary("remainder", w, x.broadcast(x.constant("u64", strconv.FormatUint(span, 10)), S, nil))
		}
		x.finish(x.binary("add", x.convert(r, E), loE))
		return nil
	}
	return x.errorf("%s of %s is not expanded (uniform and normal floats, uniform integers are)", dist, E)
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
	m := x.binary("or", x.binary("shift-right-logical", w, x.broadcast(x.constant(word, shift), flat, nil)), x.broadcast(x.constant(word, one), flat, nil))
	f := x.binary("subtract", x.emit("bitcast-convert", W, flat, []*hlo.Instruction{m}), x.broadcast(x.constant(W, "1"), flat, nil))
	out := make([]*hlo.Instruction, k)
	for i := range out {
		out[i] = x.reshape(x.slice(f, []int64{int64(i) * n}, []int64{n}, []int64{1}), dims)
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
	st := x.emit("rng-get-and-update-state", "u64", []int64{2}, nil, "delta", strconv.FormatInt(blocks, 10))
	g := x.emit("rng-bit-generator", "", nil, []*hlo.Instruction{st}, "algorithm", "rng_philox")
	g.Shape = &hlo.Shape{IsTuple: true, Tuple: []*hlo.Shape{{Elem: "u64", Dims: []int64{2}}, {Elem: word, Dims: append([]int64{}, dims...)}}}
	return x.emit("get-tuple-element", word, dims, []*hlo.Instruction{g}, "index", "1")
}

// intLiteral reads an integer scalar constant, an unsigned one above
// 2^63 as its two's-complement bits.
func intLiteral(c *hlo.Instruction) (int64, bool) {
	if c == nil || c.Opcode != "constant" || c.Shape == nil || len(c.Shape.Dims) != 0 {
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
