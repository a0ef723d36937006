package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// ExpandRngBitGenerators rewrites every rng-bit-generator into the integer
// arithmetic of its algorithm, as XLA's RngBitGeneratorExpander does:
// Philox-4x32-10 (rng_default, rng_philox) or Threefry-2x32-20
// (rng_three_fry) on u32 words, the 32x32->64-bit products of Philox from
// 16-bit halves, one block of words per counter value from an iota. The
// bits are the evaluator's (evalrng.go): key from the state's first word,
// counter from its second, words in block order, a 64-bit element from two
// words (low first), a narrower one from the low bits of one; the new
// state's counter has advanced by the blocks used. A chip then generates
// dropout masks with vector instructions it has.
func ExpandRngBitGenerators(m *hlo.Module) error {
	return rewriteEach(m, "rng-bit-generator", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		st := ops[0].Shape
		if !in.Shape.IsTuple || len(in.Shape.Tuple) != 2 || st.IsTuple || st.Elem != hlo.U64 || len(st.Dims) != 1 || st.Dims[0] < 2 {
			return x.Errorf("takes a u64[n] state (n >= 2) and returns (state, bits)")
		}
		outShape := in.Shape.Tuple[1]
		width := hlo.ElemBits(outShape.Elem)
		if outShape.IsTuple || hlo.IsFloat(outShape.Elem) || outShape.Elem == hlo.Pred || width != 8 && width != 16 && width != 32 && width != 64 {
			return x.Errorf("bits of %s are not generated (8-, 16-, 32- or 64-bit integers are)", outShape.Elem)
		}
		alg, _ := in.Attr("algorithm")
		perBlock := int64(4) // Philox: four words per counter value
		switch alg {
		case "rng_default", "rng_philox", "":
		case "rng_three_fry":
			perBlock = 2
		default:
			return x.Errorf("unknown algorithm %q", alg)
		}
		n := outShape.Elems()
		words := n
		if width == 64 {
			words = 2 * n
		}
		blocks := max((words+perBlock-1)/perBlock, 1)
		g := &rngGen{x: x, dims: []int64{blocks}}
		key := x.Reshape(x.Slice(ops[0], []int64{0}, []int64{1}, []int64{1}), nil)
		ctr := x.Reshape(x.Slice(ops[0], []int64{1}, []int64{1}, []int64{1}), nil)
		k0, k1 := g.lo(key), g.hi(key)
		iota := x.Emit("iota", "u64", g.dims, nil, "iota_dimension", "0")
		c := x.Binary("add", x.Broadcast(ctr, g.dims, nil), iota)
		var block []*hlo.Instruction
		if perBlock == 4 {
			block = g.philox([4]*hlo.Instruction{g.lo(c), g.hi(c), g.splat("u32", 0), g.splat("u32", 0)}, k0, k1)
		} else {
			block = g.threefry(g.lo(c), g.hi(c), k0, k1)
		}
		// The word stream: block b's words at b*perBlock, ...
		cols := make([]*hlo.Instruction, len(block))
		for i, w := range block {
			cols[i] = x.Reshape(w, []int64{blocks, 1})
		}
		stream := x.Reshape(x.Concatenate(cols, 1), []int64{blocks * perBlock})
		stream = x.Slice(stream, []int64{0}, []int64{words}, []int64{1})
		var bits *hlo.Instruction
		if width == 64 {
			pairs := x.Reshape(stream, []int64{n, 2})
			// Combined in the output type (s64 or u64): each word
			// converts exactly, and the one rounding of the
			// evaluator's float64 is the same as its own.
			e := outShape.Elem
			lo := x.Convert(x.Reshape(x.Slice(pairs, []int64{0, 0}, []int64{n, 1}, []int64{1, 1}), []int64{n}), e)
			hi := x.Convert(x.Reshape(x.Slice(pairs, []int64{0, 1}, []int64{n, 1}, []int64{1, 1}), []int64{n}), e)
			g.dims = []int64{n}
			bits = x.Binary("or", lo, x.Binary("shift-left", hi, g.splat(e, 32)))
		} else {
			bits = stream
		}
		bits = x.Reshape(x.Convert(bits, outShape.Elem), outShape.Dims) // narrower: the low bits
		// The new state: the counter advanced past the blocks used.
		next := x.Binary("add", ctr, x.Constant("u64", strconv.FormatInt(blocks, 10)))
		parts := []*hlo.Instruction{x.Slice(ops[0], []int64{0}, []int64{1}, []int64{1}), x.Reshape(next, []int64{1})}
		if st.Dims[0] > 2 {
			parts = append(parts, x.Slice(ops[0], []int64{2}, []int64{st.Dims[0] - 2}, []int64{1}))
		}
		state := x.Concatenate(parts, 0)
		t := x.Emit("tuple", "", nil, []*hlo.Instruction{state, bits})
		t.Shape = in.Shape
		return nil
	})
}

// rngGen emits the u32 arithmetic of the counter-based generators on
// arrays of dims (one element per counter value).
type rngGen struct {
	x    *rewriter
	dims []int64
}

// splat is a constant of elem broadcast to g.dims.
func (g *rngGen) splat(elem string, v uint64) *hlo.Instruction {
	return g.x.Broadcast(g.x.Constant(elem, strconv.FormatUint(v, 10)), g.dims, nil)
}

// lo and hi are the low and high 32-bit halves of a u64 array or scalar.
func (g *rngGen) lo(a *hlo.Instruction) *hlo.Instruction { return g.x.Convert(a, "u32") }
func (g *rngGen) hi(a *hlo.Instruction) *hlo.Instruction {
	s := g.x.Broadcast(g.x.Constant("u64", "32"), a.Shape.Dims, nil)
	return g.x.Convert(g.x.Binary("shift-right-logical", a, s), "u32")
}

// bcast broadcasts a u32 scalar to g.dims.
func (g *rngGen) bcast(a *hlo.Instruction) *hlo.Instruction { return g.x.Broadcast(a, g.dims, nil) }

// addScalar is a + v for a u32 scalar a (wrapping).
func (g *rngGen) addScalar(a *hlo.Instruction, v uint32) *hlo.Instruction {
	return g.x.Binary("add", a, g.x.Constant("u32", strconv.FormatUint(uint64(v), 10)))
}

// philox is Philox-4x32-10 of the counters c under key (k0, k1) (u32
// scalars), as philox4x32 in evalrng.go.
func (g *rngGen) philox(c [4]*hlo.Instruction, k0, k1 *hlo.Instruction) []*hlo.Instruction {
	const m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
	x := g.x
	// mul is the 64-bit product of u32 a and the constant m as its high
	// and low words, from 16-bit halves: every partial product fits a
	// u32 (and the evaluator's float64 holds each exactly, which a u64
	// product beyond 2^53 it would not).
	mul := func(m uint64, a *hlo.Instruction) (hi, lo *hlo.Instruction) {
		k16, mask := g.splat("u32", 16), g.splat("u32", 0xFFFF)
		al, ah := x.Binary("and", a, mask), x.Binary("shift-right-logical", a, k16)
		ml, mh := g.splat("u32", m&0xFFFF), g.splat("u32", m>>16)
		ll, hl := x.Binary("multiply", al, ml), x.Binary("multiply", ah, ml)
		lh, hh := x.Binary("multiply", al, mh), x.Binary("multiply", ah, mh)
		mid := x.Binary("add", x.Binary("add", x.Binary("shift-right-logical", ll, k16), x.Binary("and", hl, mask)), x.Binary("and", lh, mask))
		hi = x.Binary("add", x.Binary("add", hh, x.Binary("shift-right-logical", hl, k16)),
			x.Binary("add", x.Binary("shift-right-logical", lh, k16), x.Binary("shift-right-logical", mid, k16)))
		lo = x.Binary("multiply", a, g.splat("u32", m)) // wraps: the low word
		return hi, lo
	}
	for r := 0; r < 10; r++ {
		if r > 0 {
			k0, k1 = g.addScalar(k0, w0), g.addScalar(k1, w1)
		}
		hi0, lo0 := mul(m0, c[0])
		hi1, lo1 := mul(m1, c[2])
		c = [4]*hlo.Instruction{
			x.Binary("xor", x.Binary("xor", hi1, c[1]), g.bcast(k0)), lo1,
			x.Binary("xor", x.Binary("xor", hi0, c[3]), g.bcast(k1)), lo0,
		}
	}
	return c[:]
}

// threefry is Threefry-2x32-20 of the counters (c0, c1) under key (k0,
// k1), as threefry2x32 in evalrng.go.
func (g *rngGen) threefry(c0, c1, k0, k1 *hlo.Instruction) []*hlo.Instruction {
	x := g.x
	rot := [8]uint64{13, 15, 26, 6, 17, 29, 16, 24}
	k2 := x.Binary("xor", x.Binary("xor", k0, k1), x.Constant("u32", fmt.Sprint(0x1BD11BDA)))
	ks := [3]*hlo.Instruction{k0, k1, k2}
	x0 := x.Binary("add", c0, g.bcast(k0))
	x1 := x.Binary("add", c1, g.bcast(k1))
	for r := 0; r < 20; r++ {
		x0 = x.Binary("add", x0, x1)
		left := x.Binary("shift-left", x1, g.splat("u32", rot[r%8]))
		right := x.Binary("shift-right-logical", x1, g.splat("u32", 32-rot[r%8]))
		x1 = x.Binary("xor", x.Binary("or", left, right), x0)
		if r%4 == 3 {
			s := uint32(r/4 + 1)
			x0 = x.Binary("add", x0, g.bcast(ks[s%3]))
			x1 = x.Binary("add", x1, g.bcast(g.addScalar(ks[(s+1)%3], s)))
		}
	}
	return []*hlo.Instruction{x0, x1}
}
