package legalize

import (
	"math/bits"
	"strconv"

	"github.com/pulse-sim/pulse/hlo"
)

// selectTopK says whether a topk of k of n elements a row is cheaper as k
// rounds of selection than as a sort: a bitonic network over n is
// L(L+1)/2 compare-exchange passes (L = ceil(log2 n)), each reading and
// writing the values and their indices; a selection round is about three
// passes over the row (a masked max, the first index holding it, the mask
// updated). top_k of 5 in 1000 is 15 passes instead of 55, and no loop.
func selectTopK(k, n int64, elem string) bool {
	if k < 1 || k > maxSelectRounds || n < 2 || n > maxSelectRow || elem == hlo.Pred || hlo.IsComplex(elem) {
		return false
	}
	if _, ok := selectKeyType(elem); !ok {
		return false
	}
	l := int64(bits.Len64(uint64(n - 1)))
	return 3*k < l*(l+1)/2
}

// maxSelectRounds bounds the rounds, each unrolled in the HLO (a few
// kernels apiece), so that the program does not grow with k: a top-40 of
// bf16[64,256000] unrolled was 168,911 instructions; it sorts instead.
const maxSelectRounds = 16

// maxSelectRow bounds the rows selected from: a row longer than this is
// reduced in several kernels a round (a top-16 of bf16[64,256000] was 540
// kernels and 2 GB to compile), where the sort is one loop.
const maxSelectRow = 16384

// selectKeyType is the integer type whose order is elem's total order:
// a float's bits as a signed integer of its width (16-bit floats widened
// to s32), an integer itself.
func selectKeyType(elem string) (string, bool) {
	switch elem {
	case "f64":
		return "s64", true
	case "f32", "bf16", "f16":
		return "s32", true
	}
	t, ok := hlo.LookupElem(elem)
	if !ok || !t.IsInteger() {
		return "", false
	}
	return elem, true
}

// selectionTopK expands a topk of v (k along the last dimension) as k
// rounds of selection. Each round takes, in every row, the largest key
// (smallest for largest=false) among the elements not yet taken and the
// first position holding it, then marks that position taken: the values
// come out in order, ties lower index first, floats in IEEE total order
// (-NaN < -inf < ... < -0 < +0 < ... < +NaN) — the evaluator's topk, and
// the sort ExpandTopKs would otherwise build. Taken positions are tracked
// in a mask, not overwritten with a sentinel, so a row whose remaining
// keys all equal the sentinel still yields the right positions.
func (x *rewriter) selectionTopK(v *hlo.Instruction, k int64, largest bool) []*hlo.Instruction {
	dims := v.Shape.Dims
	r := len(dims)
	n := dims[r-1]
	rows := dims[:r-1]
	lead := make([]int64, r-1) // the row dims' positions in dims
	for i := range lead {
		lead[i] = int64(i)
	}
	elem := v.Shape.Elem
	kt, _ := selectKeyType(elem)
	key := v
	bt := totalOrderBits(elem)
	if bt != "" {
		// The total-order key (ExpandTotalOrderCompares): every bit but
		// the sign flipped where the bits are negative.
		b := x.Emit("bitcast-convert", bt, dims, []*hlo.Instruction{v})
		key = x.flipNegative(b, bt)
		if bt != kt {
			key = x.Convert(key, kt)
		}
	}
	lo, hi, _ := mustLookup(kt).Bounds()
	sentinel, op, idxOp := lo, hlo.OpMaximum, hlo.OpMinimum
	if !largest {
		sentinel, op = hi, hlo.OpMinimum
	}
	bcast := func(a *hlo.Instruction) *hlo.Instruction { return x.Broadcast(a, dims, lead) }
	iota := x.Emit("iota", "s32", dims, nil, "iota_dimension", strconv.Itoa(r-1))
	past := x.Broadcast(x.Constant("s32", strconv.FormatInt(n, 10)), dims, nil)
	none := x.Broadcast(x.Constant(kt, sentinel), dims, nil)
	taken := x.Broadcast(x.Constant(hlo.Pred, "false"), dims, nil)
	one := append(append([]int64{}, rows...), 1)
	var keys, idxs []*hlo.Instruction
	for j := int64(0); j < k; j++ {
		avail := x.Emit("select", kt, dims, []*hlo.Instruction{taken, none, key})
		best := x.Reduce(op, avail, []int64{int64(r - 1)}, sentinel)
		free := x.Emit("not", hlo.Pred, dims, []*hlo.Instruction{taken})
		hit := x.Emit("compare", hlo.Pred, dims, []*hlo.Instruction{avail, bcast(best)}, "direction", "EQ")
		cand := x.Emit("select", "s32", dims, []*hlo.Instruction{x.Binary("and", hit, free), iota, past})
		at := x.Reduce(idxOp, cand, []int64{int64(r - 1)}, strconv.FormatInt(n, 10))
		pick := x.Emit("compare", hlo.Pred, dims, []*hlo.Instruction{iota, bcast(at)}, "direction", "EQ")
		taken = x.Binary("or", taken, pick)
		keys = append(keys, x.Reshape(best, one))
		idxs = append(idxs, x.Reshape(at, one))
	}
	outKeys := x.Concatenate(keys, r-1)
	outIdx := x.Concatenate(idxs, r-1)
	vals := outKeys
	if bt != "" {
		od := outKeys.Shape.Dims
		b := outKeys
		if bt != kt {
			b = x.Convert(b, bt)
		}
		vals = x.Emit("bitcast-convert", elem, od, []*hlo.Instruction{x.flipNegative(b, bt)})
	}
	return []*hlo.Instruction{vals, outIdx}
}

func mustLookup(elem string) hlo.ElemType {
	t, _ := hlo.LookupElem(elem)
	return t
}
