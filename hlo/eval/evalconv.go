package eval

import (
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/pulse-sim/pulse/hlo"
)

func (e *Evaluator) convolution(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	labels, ok := in.Attr("dim_labels")
	if !ok {
		return nil, e.Fail(in, "no dim_labels")
	}
	d, err := hlo.ParseDimLabels(labels)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	n := len(d.LhsSpatial)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, n)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	bgroups := int64(1)
	if v, ok := in.Attr("batch_group_count"); ok {
		bgroups, _ = strconv.ParseInt(v, 10, 64)
	}
	groups := int64(1)
	if v, ok := in.Attr("feature_group_count"); ok {
		groups, _ = strconv.ParseInt(v, 10, 64)
	}
	l, r := numbers(ops[0]), numbers(ops[1])
	ld, rd := l.Shape.Dims, r.Shape.Dims
	lst, rst := hlo.Strides(ld), hlo.Strides(rd)
	cin := rd[d.RhsIn] // input features per group
	cout := rd[d.RhsOut]
	if groups < 1 || cout%groups != 0 || ld[d.LhsFeature] != cin*groups {
		return nil, e.Fail(in, "feature_group_count %d does not fit lhs features %d and kernel %dx%d", groups, ld[d.LhsFeature], cin, cout)
	}
	outPerGroup := cout / groups
	// batch_group_count: the lhs batch splits into groups, each feeding
	// its share of the output features.
	if bgroups < 1 || ld[d.LhsBatch]%bgroups != 0 || cout%bgroups != 0 || (bgroups > 1 && groups > 1) {
		return nil, e.Fail(in, "batch_group_count %d does not fit lhs batch %d and kernel outputs %d", bgroups, ld[d.LhsBatch], cout)
	}
	batchPerGroup, outPerBatchGroup := ld[d.LhsBatch]/bgroups, cout/bgroups
	// Kernel spatial positions, enumerated once.
	ksz := int64(1)
	for _, k := range w.Size {
		ksz *= k
	}
	out := NewArray(s)
	// Each output element is its own sum: the work splits across the
	// host's cores with the same result.
	parallelFor(len(out.Data), int(ksz*cin), func(lo, hi int) {
		idx := make([]int64, len(s.Dims))
		kidx := make([]int64, n)
		for o := lo; o < hi; o++ {
			hlo.Unflatten(int64(o), s.Dims, idx)
			b, of := idx[d.OutBatch], idx[d.OutFeature]
			g := of / outPerGroup
			var sum float64
			for k := int64(0); k < ksz; k++ {
				hlo.Unflatten(k, w.Size, kidx)
				loff := (of/outPerBatchGroup*batchPerGroup + b) * lst[d.LhsBatch]
				roff := of * rst[d.RhsOut]
				valid := true
				for sp := 0; sp < n && valid; sp++ {
					// Position in the dilated, padded input.
					p := idx[d.OutSpatial[sp]]*w.Stride[sp] - w.PadLo[sp] + kidx[sp]*w.RhsDil[sp]
					if p < 0 || p%w.LhsDil[sp] != 0 || p/w.LhsDil[sp] >= ld[d.LhsSpatial[sp]] {
						valid = false
						break
					}
					loff += p / w.LhsDil[sp] * lst[d.LhsSpatial[sp]]
					kpos := kidx[sp]
					if w.RhsRev != nil && w.RhsRev[sp] {
						kpos = w.Size[sp] - 1 - kpos // the kernel is read back to front
					}
					roff += kpos * rst[d.RhsSpatial[sp]]
				}
				if !valid {
					continue
				}
				for c := int64(0); c < cin; c++ {
					sum += l.Data[loff+(g*cin+c)*lst[d.LhsFeature]] * r.Data[roff+c*rst[d.RhsIn]]
				}
			}
			out.Data[o] = hlo.Round(s.Elem, sum)
		}
	})
	return out, nil
}

func (e *Evaluator) pad(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	per := hlo.PadDims(in)
	src := ops[0]
	lo := make([]int64, len(per))
	interior := make([]int64, len(per))
	for i, p := range per {
		lo[i], interior[i] = p.Lo, p.Interior
	}
	out := NewArray(s)
	for i := range out.Data {
		out.Data[i] = ops[1].Data[0]
	}
	sidx := make([]int64, len(src.Shape.Dims))
	oidx := make([]int64, len(s.Dims))
	for j := range src.Data {
		hlo.Unflatten(int64(j), src.Shape.Dims, sidx)
		ok := true
		for d := range sidx {
			oidx[d] = lo[d] + sidx[d]*(interior[d]+1)
			if oidx[d] < 0 || oidx[d] >= s.Dims[d] {
				ok = false
			}
		}
		if ok {
			out.Data[hlo.Flat(oidx, s.Dims)] = src.Data[j]
		}
	}
	return out, nil
}

// starts reads dynamic-slice start indices (scalar operands), clamped so
// that the slice of size sizes fits in dims, as XLA does.
func starts(ops []*Value, dims, sizes []int64) []int64 {
	st := make([]int64, len(dims))
	for d := range dims {
		if d < len(ops) && len(ops[d].Data) > 0 {
			st[d] = intAt(ops[d], 0)
		}
		st[d] = max(0, min(st[d], dims[d]-sizes[d]))
	}
	return st
}

func (e *Evaluator) dynamicSlice(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	src := ops[0]
	st := starts(ops[1:], src.Shape.Dims, s.Dims)
	out := NewArray(s)
	idx := make([]int64, len(s.Dims))
	for i := range out.Data {
		hlo.Unflatten(int64(i), s.Dims, idx)
		for d := range idx {
			idx[d] += st[d]
		}
		out.Data[i] = src.Data[hlo.Flat(idx, src.Shape.Dims)]
	}
	return out, nil
}

// dynamicUpdateSlice writes the update into a copy of the operand, or into
// the operand itself when inPlace (the caller knows nothing else holds it).
func (e *Evaluator) dynamicUpdateSlice(in *hlo.Instruction, ops []*Value, inPlace bool) (*Value, error) {
	src, upd := ops[0], ops[1]
	st := starts(ops[2:], src.Shape.Dims, upd.Shape.Dims)
	out := &Value{Shape: in.Shape, Data: src.Data}
	if !inPlace {
		out.Data = append([]float64(nil), src.Data...)
	}
	idx := make([]int64, len(upd.Shape.Dims))
	for i, x := range upd.Data {
		hlo.Unflatten(int64(i), upd.Shape.Dims, idx)
		for d := range idx {
			idx[d] += st[d]
		}
		out.Data[hlo.Flat(idx, src.Shape.Dims)] = x
	}
	return out, nil
}

// reduceWindow folds each window of the operands (the variadic form folds
// several operands together, its reducer taking every accumulator, then
// every element, and returning a tuple). Positions that fall in padding or
// between dilated elements are skipped: they take no part, whatever the
// init values.
func (e *Evaluator) reduceWindow(in *hlo.Instruction, ops []*Value) (*Value, error) {
	n := len(ops) / 2
	if n == 0 || len(ops) != 2*n {
		return nil, e.Fail(in, "reduce-window takes operands and as many init values")
	}
	src := ops[0]
	for _, o := range ops[1:n] {
		if !slices.Equal(o.Shape.Dims, src.Shape.Dims) {
			return nil, e.Fail(in, "operands differ in shape")
		}
	}
	rank := len(src.Shape.Dims)
	wv, _ := in.Attr("window")
	w, err := hlo.ParseWindow(wv, rank)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	c, err := e.Callee(in, "to_apply")
	if err != nil {
		return nil, err
	}
	outShapes := []*hlo.Shape{in.Shape}
	if n > 1 {
		if !in.Shape.IsTuple || len(in.Shape.Tuple) != n {
			return nil, e.Fail(in, "a reduce-window of %d operands returns a tuple of %d arrays", n, n)
		}
		outShapes = in.Shape.Tuple
	}
	fast := ""
	if n == 1 {
		fast = e.Reducer(c)
	}
	wsz := hlo.Prod(w.Size)
	outs := make([]*Value, n)
	for i := range outs {
		outs[i] = NewArray(outShapes[i])
	}
	dims := outShapes[0].Dims
	oi := make([]int64, len(dims))
	ki := make([]int64, rank)
	si := make([]int64, rank)
	acc := make([]float64, n)
	args := make([]*Value, 2*n)
	for o := range outs[0].Data {
		hlo.Unflatten(int64(o), dims, oi)
		for i := range acc {
			acc[i] = ops[n+i].Data[0]
		}
		for k := int64(0); k < wsz; k++ {
			hlo.Unflatten(k, w.Size, ki)
			ok := true
			for d := 0; d < rank; d++ {
				p := oi[d]*w.Stride[d] - w.PadLo[d] + ki[d]*w.RhsDil[d]
				if p < 0 || p%w.LhsDil[d] != 0 || p/w.LhsDil[d] >= src.Shape.Dims[d] {
					ok = false
					break
				}
				si[d] = p / w.LhsDil[d]
			}
			if !ok {
				continue
			}
			j := hlo.Flat(si, src.Shape.Dims)
			if fast != "" {
				acc[0] = ApplyFast(fast, outShapes[0].Elem, acc[0], src.Data[j], false)
				continue
			}
			for i := range n {
				args[i] = Scalar(ops[n+i].Shape.Elem, acc[i])
				args[n+i] = Scalar(ops[i].Shape.Elem, ops[i].Data[j])
			}
			v, err := e.Call(c, args)
			if err != nil {
				return nil, err
			}
			if n == 1 {
				acc[0] = v.Data[0]
				continue
			}
			if len(v.Tuple) != n {
				return nil, e.Fail(in, "the reducer %s returns %d values for %d operands", c.Name, len(v.Tuple), n)
			}
			for i := range acc {
				acc[i] = v.Tuple[i].Data[0]
			}
		}
		for i := range outs {
			outs[i].Data[o] = acc[i]
		}
	}
	if n == 1 {
		return outs[0], nil
	}
	return &Value{Shape: in.Shape, Tuple: outs}, nil
}

// parallelFor runs f over [0, n) in contiguous chunks, one per host core,
// when the n elements of cost each make that worth a goroutine; f must
// write only its own elements.
func parallelFor(n, cost int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || int64(n)*int64(max(cost, 1)) < 1<<20 {
		f(0, n)
		return
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed any
	)
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		wg.Go(func() {
			// A worker's panic is re-raised on the caller's goroutine,
			// where Run turns it into a positioned error.
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					failed = r
					mu.Unlock()
				}
			}()
			f(lo, min(lo+chunk, n))
		})
	}
	wg.Wait()
	if failed != nil {
		panic(failed)
	}
}
