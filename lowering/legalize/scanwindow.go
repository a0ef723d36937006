package legalize

import (
	"math"
	"math/rand/v2"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// scanDim reports whether window w over an operand of dims is a scan: along
// one dimension d it covers the whole prefix of each position (size N, N-1
// positions of padding before, none after: jnp.cumsum, cummax,
// cumlogsumexp) or the whole suffix (reverse=True: the padding after);
// along every other dimension it is one position; no stride, no dilation.
func scanDim(w hlo.Window, dims []int64) (d int, reverse, ok bool) {
	d = -1
	for i, n := range dims {
		if w.Stride[i] != 1 || w.LhsDil[i] != 1 || w.RhsDil[i] != 1 {
			return 0, false, false
		}
		if w.Size[i] == 1 && w.PadLo[i] == 0 && w.PadHi[i] == 0 {
			continue
		}
		if d >= 0 || n < 2 || w.Size[i] != n {
			return 0, false, false
		}
		switch {
		case w.PadLo[i] == n-1 && w.PadHi[i] == 0:
		case w.PadLo[i] == 0 && w.PadHi[i] == n-1:
			reverse = true
		default:
			return 0, false, false
		}
		d = i
	}
	return d, reverse, d >= 0
}

// scanWindow expands a scan-shaped reduce-window (scanDim) as a prefix scan
// of log2(N) steps, as XLA's TPU backend does not fold a long cumulative
// window position by position either: step s combines each partial result
// with the one s positions before it (after it, for a suffix), so after
// the last step position i holds x_0 ⊕ ... ⊕ x_i; the init value is folded
// in front last. The work is N log N elementwise applications of the
// reducer where folding every window is N²: a cumulative sum over 46,592
// positions is 16 steps, not 46,592 slices.
//
// The result equals the evaluator's in-order fold only when the reducer is
// associative, which XLA assumes of a reduce-window's computation but does
// not check; associative reports whether the reducer is, on probe values
// (a running decay, a*0.5 + x, is not: it is refused rather than computed
// wrong). Float sums round in another order than the evaluator's, within
// --check's tolerance.
func (x *rewriter) scanWindow(op string, c *hlo.Computation, operands, inits []*hlo.Instruction, d int, reverse bool) ([]*hlo.Instruction, error) {
	n := operands[0].Shape.Dims[d]
	combine := func(left, right []*hlo.Instruction) ([]*hlo.Instruction, error) {
		if op != "" {
			l, r := left[0], right[0]
			return []*hlo.Instruction{x.Emit(op, l.Shape.Elem, l.Shape.Dims, []*hlo.Instruction{l, r})}, nil
		}
		r, err := x.Apply(c, append(append([]*hlo.Instruction{}, left...), right...))
		if err != nil {
			return nil, err
		}
		if len(r) != len(left) {
			return nil, x.Errorf("the reducer %s returns %d values for %d operands", c.Name, len(r), len(left))
		}
		return r, nil
	}
	y := append([]*hlo.Instruction{}, operands...)
	for s := int64(1); s < n; s *= 2 {
		lo := make([]*hlo.Instruction, len(y)) // y[i-s] (a suffix: y[i])
		hi := make([]*hlo.Instruction, len(y)) // y[i] (a suffix: y[i+s])
		for i, a := range y {
			lo[i], hi[i] = x.SliceDim(a, d, 0, n-s), x.SliceDim(a, d, s, n-s)
		}
		nw, err := combine(lo, hi)
		if err != nil {
			return nil, err
		}
		for i, a := range y {
			if reverse {
				y[i] = x.Concatenate([]*hlo.Instruction{nw[i], x.SliceDim(a, d, n-s, s)}, d)
			} else {
				y[i] = x.Concatenate([]*hlo.Instruction{x.SliceDim(a, d, 0, s), nw[i]}, d)
			}
		}
	}
	front := make([]*hlo.Instruction, len(inits))
	for i, init := range inits {
		front[i] = x.Broadcast(init, operands[0].Shape.Dims, nil)
	}
	return combine(front, y)
}

// associative reports whether reducer c (k accumulators, then k operands)
// gives f(f(a,b),c) = f(a,f(b,c)) on 32 probe triples drawn from the
// operands' types, floats within a relative 1e-4 (the rounding of a
// logaddexp's exp and log1p differs with the grouping); NaNs agree with
// NaNs. A reducer the evaluator cannot run is taken as not associative.
func associative(m *hlo.Module, c *hlo.Computation, elems []string) bool {
	ev := &eval.Evaluator{M: m}
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(elem string) *eval.Value {
		t, _ := hlo.LookupElem(elem)
		var v float64
		switch {
		case elem == hlo.Pred:
			v = float64(rng.IntN(2))
		case t.Kind == hlo.KindFloat:
			v = rng.Float64()*8 - 4
		case t.Kind == hlo.KindSigned:
			v = float64(rng.IntN(19) - 9)
		default:
			v = float64(rng.IntN(10))
		}
		return eval.Scalar(elem, hlo.Round(elem, v))
	}
	apply := func(a, b []*eval.Value) ([]*eval.Value, bool) {
		r, err := ev.Call(c, append(append([]*eval.Value{}, a...), b...))
		if err != nil {
			return nil, false
		}
		if r.Tuple != nil {
			return r.Tuple, len(r.Tuple) == len(a)
		}
		return []*eval.Value{r}, len(a) == 1
	}
	for range 32 {
		var abc [3][]*eval.Value
		for j := range abc {
			for _, e := range elems {
				abc[j] = append(abc[j], draw(e))
			}
		}
		ab, ok1 := apply(abc[0], abc[1])
		bc, ok2 := apply(abc[1], abc[2])
		if !ok1 || !ok2 {
			return false
		}
		l, ok1 := apply(ab, abc[2])
		r, ok2 := apply(abc[0], bc)
		if !ok1 || !ok2 {
			return false
		}
		for i := range l {
			if len(l[i].Data) != 1 || len(r[i].Data) != 1 {
				return false
			}
			p, q := l[i].Data[0], r[i].Data[0]
			switch {
			case math.IsNaN(p) || math.IsNaN(q):
				if math.IsNaN(p) != math.IsNaN(q) {
					return false
				}
			case p == q:
			case math.Abs(p-q) > 1e-4*max(math.Abs(p), math.Abs(q)):
				return false
			}
		}
	}
	return true
}
