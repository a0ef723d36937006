package lowering

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// Reduce kernels: a reduce (alone or with the elementwise producers of its
// input, a kInput fusion). The input is viewed as [rows, cols]: rows walk
// the kept dimensions, cols the reduced ones (each group must be one
// strided run in memory, so reducing a leading dimension is a transposed
// DMA view). Tiles of rows stream through SRAM (stream.go); the producers
// run on the vector unit over [TR, cols], a row reduction (vrsum, vrmax,
// vrmin, vrand, vror) folds each row into [TR, 1], and a non-identity init
// value is folded in last.

var rowReductions = map[string]string{"add": "vrsum", "maximum": "vrmax", "minimum": "vrmin", "and": "vrand", "or": "vror"}

func (c *compiler) reduceKernel(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) error {
	at := c.mark()
	err := c.reduceKernelWith(in, body, root, true)
	if errors.Is(err, errPeriodTooLong) {
		// A tile of the periodic broadcasts' period does not fit SRAM:
		// the leading dims are walked in passes instead.
		c.rollback(at)
		return c.reduceKernelWith(in, body, root, false)
	}
	return err
}

// minPassBytes is the pass below which a reduction walking its leading
// kept dims in passes is latency-bound, and a periodic broadcast streams
// its rows as one run instead.
const minPassBytes = 64 << 10

// errPeriodTooLong: a stream kernel's tiles cannot hold rowMultiple rows.
var errPeriodTooLong = errors.New("a tile cannot hold the rows of one period")

func (c *compiler) reduceKernelWith(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction, periodicOK bool) error {
	if root == nil {
		root = body[len(body)-1]
	}
	if root.Opcode != hlo.OpReduce || len(root.Operands) != 2 {
		return c.fail(root, "only single-input reduce fusions are lowered")
	}
	if in.Shape.IsTuple {
		return c.fail(in, "multi-output reductions are not lowered yet")
	}
	red := root
	name, _ := red.Attr("to_apply")
	fn := c.m.Computation(strings.TrimPrefix(name, "%"))
	op := ""
	if fn != nil && fn.Root != nil && len(fn.Instructions) == 3 {
		op = fn.Root.Opcode
	}
	vr, ok := rowReductions[op]
	if !ok {
		return c.fail(red, "the reducer %s is not one add, maximum, minimum, and or or", name)
	}
	if err := checkNarrowCombiner(c, red, op, red.Shape.Elem); err != nil {
		return err // a narrow sum would saturate, not wrap
	}
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	x := byName[red.Operands[0].Name]
	if x == nil {
		return c.fail(red, "internal error: reduce input not in the body")
	}
	X := x.Shape
	if X == nil {
		if v := c.bufs[in.Operands[x.ParamNumber].Name]; v != nil {
			X = v.shape
		}
	}
	if X == nil || X.IsTuple {
		return c.fail(red, "the reduced value must be an array")
	}
	rdims, _ := hlo.IntList(hlo.AttrOr(red, "dimensions", "{}"))
	isRed := map[int64]bool{}
	for _, d := range rdims {
		isRed[d] = true
	}
	var kept, reduced []int
	for d := range X.Dims {
		if isRed[int64(d)] {
			reduced = append(reduced, d)
		} else {
			kept = append(kept, d)
		}
	}
	// Every load reads X's shape row-major (a parameter) or through a
	// broadcast's strides. The reduced dims must collapse into one strided
	// run; the kept ones collapse from some dim on (the rows), and the kept
	// dims before it are walked in passes (reducing the middle dim of
	// [13,1051,321]: 13 passes over 321 rows).
	patterns := [][]int64{hlo.Strides(X.Dims)}
	patternOf := map[string][]int64{} // a broadcast of a parameter: its strides over X
	for _, b := range body {
		if b.Opcode == hlo.OpBroadcast && byName[b.Operands[0].Name] != nil && byName[b.Operands[0].Name].Opcode == hlo.OpParameter {
			if v := c.bufs[in.Operands[byName[b.Operands[0].Name].ParamNumber].Name]; v != nil && v.shape != nil && !v.shape.IsTuple {
				patterns = append(patterns, broadcastStrides(b, v, len(X.Dims)))
				patternOf[b.Name] = patterns[len(patterns)-1]
			}
		}
	}
	// firstRun is the first kept dim from which a pattern's kept dims
	// collapse into one strided run.
	firstRun := func(st []int64) int {
		q := 0
		for ; q < len(kept); q++ {
			if _, ok := collapse(kept[q:], st, X.Dims); ok {
				break
			}
		}
		return q
	}
	q := 0
	for _, st := range patterns {
		q = max(q, firstRun(st))
	}
	// A broadcast that repeats along the leading kept dims (q broadcast
	// over K's positions in q.K^T: strides 0 there) and is one run after
	// them is periodic: every p rows it starts again. Loaded once per tile
	// as its p rows and broadcast over the tile on the vector unit, it
	// lets the rows collapse where X's own pattern does, instead of the
	// kept dims before its run being walked in passes of p rows (64
	// passes of 4 rows, each paying the loads' latency).
	periodic := map[string]int64{} // broadcast -> p
	rowReduce := len(reduced) > 0 && reduced[len(reduced)-1] == len(X.Dims)-1
	if qx := firstRun(patterns[0]); qx < q && rowReduce && periodicOK {
		ok := true
		for name, st := range patternOf {
			qb := firstRun(st)
			if qb <= qx {
				continue
			}
			for _, d := range kept[qx:qb] {
				ok = ok && st[d] == 0
			}
			p := int64(1)
			for _, d := range kept[qb:] {
				p *= X.Dims[d]
			}
			periodic[name] = p
		}
		m := int64(1)
		for _, p := range periodic {
			if m%p != 0 && p%m != 0 {
				ok = false // one tile multiple for all of them
			}
			m = max(m, p)
		}
		// Worth it where the passes are short (latency-bound): passes of
		// 64 KiB and more already keep the loads and the vector unit
		// busy, and one long run in a single tile would not overlap them
		// (a batch norm's variance over [8,16,32,32]: 8 passes 1,825
		// cycles, one run 2,213).
		var passRows, cols int64 = 1, 1
		for _, d := range kept[q:] {
			passRows *= X.Dims[d]
		}
		for _, d := range reduced {
			cols *= X.Dims[d]
		}
		if ok && passRows*cols*4 < minPassBytes {
			q = qx
		} else {
			periodic = map[string]int64{}
		}
	}
	outerDims := make([]int64, q)
	for i, d := range kept[:q] {
		outerDims[i] = X.Dims[d]
	}
	passes := prod(outerDims)
	if passes > legalize.MaxReducePasses {
		return c.fail(red, "the kept dimensions are not one strided run in memory and walking them needs %d passes (not lowered yet)", passes)
	}
	rows, cols := int64(1), int64(1)
	for _, d := range kept[q:] {
		rows *= X.Dims[d]
	}
	for _, d := range reduced {
		cols *= X.Dims[d]
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	initName := red.Operands[1].Name
	initLit, haveInit := "", false
	if b := byName[initName]; b != nil && b.Opcode == hlo.OpConstant {
		if initLit, err = c.scalarLiteral(b); err != nil {
			return err
		}
		haveInit = true
	} else if b != nil && b.Opcode == hlo.OpParameter {
		initLit, haveInit = c.literals[c.bufs[in.Operands[b.ParamNumber].Name]]
	}
	// A column reduction (the innermost dim kept) streams the input in
	// its own order: tiles of [reduced rows, Kc kept elements], folded on
	// the vector unit into one accumulator row per pass (chunk of Kc kept
	// elements). Read the other way — a row reduction through a
	// transposed view — the DMA would fetch one element per burst.
	kc := int64(0)
	computedInit := !haveInit && byName[initName] != nil && byName[initName].Opcode == hlo.OpParameter
	if sr, _ := collapse(kept[q:], patterns[0], X.Dims); sr == 1 && len(reduced) > 0 && (haveInit || computedInit) {
		kc = c.columnChunk(body, rows)
	}
	column := kc > 0
	rowShape := []int64{cols}
	chunks := int64(1)
	if column {
		rowShape, chunks = []int64{kc}, (rows+kc-1)/kc
	}
	// chunkStart is chunk j's first kept element. When kc does not divide
	// the kept elements (a vocabulary of 30,522 or 50,257: prime factors
	// too small or too large for a tile), the last chunk ends at the last
	// element and overlaps the one before it, whose sums it computes
	// again, to the same bits, and stores again.
	chunkStart := func(j int64) int64 {
		if column && j == chunks-1 && rows%kc != 0 {
			return rows - kc
		}
		return j * kc
	}
	// access maps an array of X's shape (strides per X dim) to the
	// [rows, cols] view (column: [cols, kc]), with an offset per pass.
	access := func(v *value, st []int64, at *hlo.Instruction) (*hbmAccess, error) {
		sr, ok1 := collapse(kept[q:], st, X.Dims)
		sc, ok2 := collapse(reduced, st, X.Dims)
		if !ok1 || !ok2 {
			return nil, c.fail(at, "the reduced dimensions are not one strided run in memory (not lowered yet)")
		}
		esz := int64(v.dt.Size())
		a := &hbmAccess{src: v, strides: []int64{sr, sc}}
		if column {
			a.strides = []int64{sc, sr}
		}
		if q > 0 || chunks > 1 {
			outerSt := make([]int64, q)
			for i, d := range kept[:q] {
				outerSt[i] = st[d]
			}
			for _, o := range passOffsets(outerDims, outerSt, esz) {
				for j := int64(0); j < chunks; j++ {
					a.outer = append(a.outer, o+chunkStart(j)*sr*esz)
				}
			}
		}
		return a, nil
	}
	var bufs []*streamBuf
	bufOf := map[string]*streamBuf{}
	addBuf := func(b *hlo.Instruction, elem string, row []int64, load *hbmAccess) error {
		dt, ok := dtypeOf(elem)
		if !ok {
			return c.fail(b, "element type %s has no Pulse dtype", elem)
		}
		sb := &streamBuf{name: b.Name, at: b, dt: dt, row: row, load: load}
		bufs = append(bufs, sb)
		bufOf[b.Name] = sb
		return nil
	}
	consts := map[string]string{}
	params := map[string]*value{}
	var ops []streamOp
	sameX := func(s *hlo.Shape) bool {
		if s == nil || len(s.Dims) != len(X.Dims) {
			return false
		}
		for i := range s.Dims {
			if s.Dims[i] != X.Dims[i] {
				return false
			}
		}
		return true
	}
	// A reshape or bitcast of a fusion operand, or a broadcast that only
	// adds dims of one, into a shape other than the reduced input's is the
	// same bytes seen with new dims, read only through the broadcasts after
	// it (a loss's labels reshaped to [N,1] and broadcast along the
	// vocabulary), as a loop kernel reads it; so is an iota of one run.
	shapeOf := func(n string) *hlo.Shape {
		if d := byName[n]; d != nil {
			return d.Shape
		}
		return nil
	}
	alias := func(b *hlo.Instruction) bool {
		if len(b.Operands) != 1 || b.Shape == nil || b.Shape.IsTuple {
			return false
		}
		return b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || sameElements(b, shapeOf(b.Operands[0].Name))
	}
	// readWhole: some instruction reads name as a tile of the reduced
	// input's shape, not only through broadcasts and views.
	readWhole := func(name string) bool {
		for _, u := range body {
			if u.Opcode == hlo.OpBroadcast || alias(u) {
				continue
			}
			for i, o := range u.Operands {
				if o.Name == name && !(u == red && i == 1) {
					return true
				}
			}
		}
		return false
	}
	for _, b := range body {
		switch {
		case b == red:
		case alias(b) && params[b.Operands[0].Name] != nil:
			v := params[b.Operands[0].Name]
			w := &value{tensor: v.tensor, addr: v.addr, shape: b.Shape, dt: v.dt}
			params[b.Name] = w
			if sameX(b.Shape) && readWhole(b.Name) {
				// A view in the reduced input's shape read whole: loaded
				// like an operand of that shape.
				a, err := access(w, hlo.Strides(X.Dims), b)
				if err != nil {
					return err
				}
				if err := addBuf(b, w.shape.Elem, rowShape, a); err != nil {
					return err
				}
			}
		case b.Opcode == hlo.OpIota && !sameX(b.Shape) && iotaRun(b):
			v, err := c.alloc(b, &hlo.Shape{Elem: b.Shape.Elem, Dims: []int64{b.Shape.Elems()}}, " = iota()")
			if err != nil {
				return err
			}
			params[b.Name] = &value{tensor: v.tensor, addr: v.addr, shape: b.Shape, dt: v.dt}
		case b.Opcode == hlo.OpParameter:
			v := c.bufs[in.Operands[b.ParamNumber].Name]
			if v == nil || v.tuple != nil {
				return c.fail(in, "operand %d is not an array in memory", b.ParamNumber)
			}
			params[b.Name] = v
			if b.Name == red.Operands[1].Name {
				continue // the init value
			}
			if !readWhole(b.Name) {
				continue
			}
			if !sameX(v.shape) {
				return c.fail(b, "operand %s is %s, not the reduced input's %s", b.Name, v.shape, X)
			}
			a, err := access(v, hlo.Strides(X.Dims), b)
			if err != nil {
				return err
			}
			if err := addBuf(b, v.shape.Elem, rowShape, a); err != nil {
				return err
			}
		case b.Opcode == hlo.OpConstant:
			if len(b.Shape.Dims) != 0 || strings.TrimSpace(b.Literal) == "{...}" {
				return c.fail(b, "non-scalar constants in a reduce fusion are not lowered yet")
			}
			lit, err := c.scalarLiteral(b)
			if err != nil {
				return err
			}
			consts[b.Name] = lit
		case b.Opcode == hlo.OpBroadcast:
			xn := b.Operands[0].Name
			if !sameX(b.Shape) {
				return c.fail(b, "broadcast to %s, not the reduced input's shape", b.Shape)
			}
			if lit, ok := consts[xn]; ok {
				consts[b.Name] = lit
				if err := addBuf(b, b.Shape.Elem, rowShape, nil); err != nil {
					return err
				}
				bufOf[b.Name].static = true
				bb := b
				ops = append(ops, streamOp{at: b, static: true, emit: func(tile func(string) string, sync string) { c.vectorOp(bb, tile, consts, sync) }})
				continue
			}
			v := params[xn]
			if v == nil {
				return c.fail(b, "broadcast of a computed value is not lowered yet")
			}
			st := broadcastStrides(b, v, len(X.Dims))
			if p := periodic[b.Name]; p > 0 {
				if err := c.periodicBroadcast(b, v, st, kept, reduced, q, p, X.Dims, outerDims, &bufs, bufOf, &ops); err != nil {
					return err
				}
				continue
			}
			a, err := access(v, st, b)
			if err != nil {
				return err
			}
			if err := addBuf(b, b.Shape.Elem, rowShape, a); err != nil {
				return err
			}
		case b.Opcode == hlo.OpIota:
			// 0..n-1 along its dimension, read as a broadcast (as a loop
			// kernel does; made on chip where the tiles allow,
			// iotaonchip.go): a loss's one-hot compares it with the labels.
			d, _ := hlo.IntList("{" + hlo.AttrOr(b, "iota_dimension", "0") + "}")
			if !sameX(b.Shape) || len(d) != 1 || d[0] < 0 || int(d[0]) >= len(X.Dims) {
				return c.fail(b, "iota of %s in a reduce fusion over %s", b.Shape, X)
			}
			st := make([]int64, len(X.Dims))
			st[d[0]] = 1
			ia, err := c.iotaAccess(b, X.Dims[d[0]], st)
			if err != nil {
				return err
			}
			a, err := access(ia.src, st, b)
			if err != nil {
				return err
			}
			a.iota = b
			if err := addBuf(b, b.Shape.Elem, rowShape, a); err != nil {
				return err
			}
		case hlo.IsElementwise(b.Opcode):
			if err := c.checkElementwise(b, func(n string) string {
				if v := params[n]; v != nil {
					return v.shape.Elem
				}
				if d := byName[n]; d != nil && d.Shape != nil {
					return d.Shape.Elem
				}
				return ""
			}); err != nil {
				return err
			}
			if !sameX(b.Shape) {
				return c.fail(b, "shape %s differs from the reduced input's %s", b.Shape, X)
			}
			if err := addBuf(b, b.Shape.Elem, rowShape, nil); err != nil {
				return err
			}
			for i, elem := range expansionScratch(b) {
				dt, ok := dtypeOf(elem)
				if !ok {
					return c.fail(b, "element type %s has no Pulse dtype", elem)
				}
				bufs = append(bufs, &streamBuf{name: scratchName(b.Name, i), at: b, dt: dt, row: rowShape})
			}
			bb := b
			ops = append(ops, streamOp{at: b, emit: func(tile func(string) string, sync string) { c.vectorOp(bb, tile, consts, sync) }})
		default:
			return c.fail(b, "%s in a reduce fusion is not lowered yet", b.Opcode)
		}
	}
	if bufOf[x.Name] == nil {
		return c.fail(red, "the reduced value is not computed in the kernel")
	}
	if column {
		var initVal *value
		if !haveInit {
			initVal = params[initName]
		}
		var storeAt []int64 // each pass's result: its chunk of its outer pass's row
		for p := int64(0); p < passes; p++ {
			for j := int64(0); j < chunks; j++ {
				storeAt = append(storeAt, (p*rows+chunkStart(j))*int64(out.dt.Size()))
			}
		}
		return c.columnReduce(in, body, red, op, x.Name, initLit, initVal, bufs, ops, out, passes*chunks, cols, kc, storeAt)
	}
	var initLoad *hbmAccess // a computed init value, read from HBM
	if !haveInit {
		p := byName[initName]
		if p == nil || p.Opcode != hlo.OpParameter {
			return c.fail(red, "the init value must be a constant or a fusion parameter")
		}
		// Every row's result is op(row, init): the reducers are
		// associative and commutative, so folding init in last is what
		// XLA's order (init first) computes.
		initLoad = &hbmAccess{src: params[initName], strides: []int64{0, 0}}
	}
	if err := addBuf(red, red.Shape.Elem, []int64{1}, nil); err != nil {
		return err
	}
	identity := haveInit && isIdentity(op, initLit)
	if !identity {
		// The init value, folded in after the rows.
		initBuf := &hlo.Instruction{Pos: red.Pos, Name: red.Name + ".init", Opcode: "constant", Shape: red.Shape}
		if err := addBuf(initBuf, red.Shape.Elem, []int64{1}, initLoad); err != nil {
			return err
		}
	}
	ops = append(ops, streamOp{at: red, emit: func(tile func(string) string, sync string) {
		s1, s2 := sync, ""
		if !identity {
			s1, s2 = splitSync(sync)
		}
		fmt.Fprintf(&c.out, "        %-7s %s, %s%s\n", vr, tile(red.Name), tile(x.Name), s1)
		if identity {
			return
		}
		initTile := tile(red.Name + ".init")
		if initLoad == nil {
			c.loc(red)
			fmt.Fprintf(&c.out, "        vfill   %s, %s\n", initTile, fillValue(initLit))
		}
		c.loc(red)
		fmt.Fprintf(&c.out, "        %-7s %s, %s, %s%s\n", vectorOps[op], tile(red.Name), initTile, tile(red.Name), s2)
	}})
	flops, bytes := c.kernelCost(in, body)
	return c.streamKernel(streamSpec{
		in: in, kind: "input", rows: rows, bufs: bufs, ops: ops,
		result: red.Name, out: out, outRow: []int64{1}, flops: flops, bytes: bytes, passes: int(passes),
		rowMultiple: rowMultipleOf(periodic),
	})
}

// rowMultipleOf is the tile row multiple periodic broadcasts need: the
// longest period (the others divide it).
func rowMultipleOf(periodic map[string]int64) int64 {
	m := int64(1)
	for _, p := range periodic {
		m = max(m, p)
	}
	return m
}

// periodicBroadcast adds broadcast b of v (strides st over the input's
// dims) that repeats every p rows: a buffer of its p rows, loaded for each
// tile, and a vbcast of them over the tile viewed as [rows/p, p, cols].
func (c *compiler) periodicBroadcast(b *hlo.Instruction, v *value, st []int64, kept, reduced []int, q int, p int64, dims, outerDims []int64,
	bufs *[]*streamBuf, bufOf map[string]*streamBuf, ops *[]streamOp) error {
	qb := len(kept)
	for i := range kept {
		if _, ok := collapse(kept[i:], st, dims); ok {
			qb = i
			break
		}
	}
	sr, ok1 := collapse(kept[qb:], st, dims)
	sc, ok2 := collapse(reduced, st, dims)
	if !ok1 || !ok2 {
		return c.fail(b, "internal error: a periodic broadcast is not one run in its period")
	}
	dt, ok := dtypeOf(b.Shape.Elem)
	if !ok {
		return c.fail(b, "element type %s has no Pulse dtype", b.Shape.Elem)
	}
	var cols int64 = 1
	for _, d := range reduced {
		cols *= dims[d]
	}
	// A value constant along the reduced dims (a per-row statistic: a
	// batch norm's mean) is loaded as one element a row and broadcast
	// along them too: read through its stride of 0 it was one 4-byte
	// burst an element.
	srcCols := cols
	if sc == 0 {
		srcCols = 1
	}
	a := &hbmAccess{src: v, strides: []int64{0, sr, sc}}
	if q > 0 {
		outerSt := make([]int64, q)
		for i, d := range kept[:q] {
			outerSt[i] = st[d]
		}
		a.outer = passOffsets(outerDims, outerSt, int64(v.dt.Size()))
	}
	src := &streamBuf{name: b.Name + ".period", at: b, dt: dt, row: []int64{p, srcCols}, load: a, oneRow: true}
	dst := &streamBuf{name: b.Name, at: b, dt: dt, row: []int64{cols}}
	*bufs = append(*bufs, src, dst)
	bufOf[src.name], bufOf[dst.name] = src, dst
	*ops = append(*ops, streamOp{at: b, emitRows: func(view func(string, int64, int64) string, rows int64, sync string) {
		t, _ := tileDims(view(dst.name, 0, rows))
		fmt.Fprintf(&c.out, "        vbcast  %s[%d,%d,%d], %s%s\n", t.head, rows/p, p, cols, view(src.name, 0, 1), sync)
	}})
	return nil
}

// columnChunk picks how many kept elements a column reduction's tile row
// holds: all of them when at least 32 rows of every buffer fit the
// streaming budget; else the widest chunk that fits, or a divisor of k at
// least half as wide; 0 when not even 128 (or k) fit, and the row path
// must do. (Requiring a divisor sent BERT's 30,522-word vocabulary, whose
// only small divisors are 2, 3 and 6, through a transposed view an
// element a burst: 28M of its 38.5M cycles.)
func (c *compiler) columnChunk(body []*hlo.Instruction, k int64) int64 {
	var perElem int64
	for _, b := range body {
		n := int64(4)
		if dt, ok := dtypeOf(b.Shape.Elem); ok && !b.Shape.IsTuple {
			n = int64(dt.Size())
		}
		perElem += n * int64(1+len(expansionScratch(b)))
	}
	budget := min(c.chip.Memory.SRAMBytes/2, 4<<20)
	most := min(k, budget/(32*max(perElem, 1)))
	if most < min(k, 128) {
		return 0
	}
	// A divisor of k not much narrower than the widest chunk; else the
	// widest, the last chunk overlapping the one before (reduceKernelWith).
	for kc := most; kc >= max(most/2, 1); kc-- {
		if k%kc == 0 {
			return kc
		}
	}
	return most
}

// columnReduce finishes a column reduction's kernel: the accumulator row,
// filled with the init value before each pass, and per tile a halving tree
// of vector ops over the tile's rows that leaves their fold in row 0,
// folded into the accumulator. A computed init value (initVal) is read
// from HBM into a one-element buffer and broadcast into the accumulator.
func (c *compiler) columnReduce(in *hlo.Instruction, body []*hlo.Instruction, red *hlo.Instruction, op, x, initLit string, initVal *value, bufs []*streamBuf, ops []streamOp, out *value, passes, cols, kc int64, storeAt []int64) error {
	if passes > legalize.MaxReducePasses {
		return c.fail(red, "the column reduction needs %d passes (not lowered yet)", passes)
	}
	for _, b := range bufs {
		if b.name == x && (b.static || b.oneRow) {
			return c.fail(red, "reducing a constant is not lowered")
		}
	}
	dt, ok := dtypeOf(red.Shape.Elem)
	if !ok {
		return c.fail(red, "element type %s has no Pulse dtype", red.Shape.Elem)
	}
	bufs = append(bufs, &streamBuf{name: red.Name, at: red, dt: dt, row: []int64{kc}, static: true, oneRow: true})
	vop := vectorOps[op]
	if initVal != nil {
		bufs = append(bufs, &streamBuf{name: red.Name + ".init", at: red, dt: dt, row: []int64{1}, static: true, oneRow: true})
	}
	ops = append(ops, streamOp{at: red, perPass: true, emit: func(tile func(string) string, sync string) {
		if initVal == nil {
			fmt.Fprintf(&c.out, "        vfill   %s, %s%s\n", tile(red.Name), fillValue(initLit), sync)
			return
		}
		// s4 orders the init value's load before its broadcast.
		first, last := splitSync(sync)
		one := tile(red.Name + ".init")
		fmt.Fprintf(&c.out, "        dma     %s, hbm[%s]:%s[1,1]{0,0}%s signal s4\n", one, initVal.tensor, initVal.dt, first)
		c.loc(red)
		fmt.Fprintf(&c.out, "        vbcast  %s, %s wait s4%s\n", tile(red.Name), one, last)
	}})
	ops = append(ops, streamOp{at: red, emitRows: func(view func(string, int64, int64) string, rows int64, sync string) {
		first, last := splitSync(sync)
		for h := rows; h > 1; {
			half := h / 2
			fmt.Fprintf(&c.out, "        %-7s %s, %s, %s%s\n", vop, view(x, 0, half), view(x, 0, half), view(x, h-half, half), first)
			first = ""
			c.loc(red)
			h -= half
		}
		acc := view(red.Name, 0, 1)
		fmt.Fprintf(&c.out, "        %-7s %s, %s, %s%s%s\n", vop, acc, acc, view(x, 0, 1), first, last)
	}})
	flops, bytes := c.kernelCost(in, body)
	return c.streamKernel(streamSpec{
		in: in, kind: "input", rows: cols, bufs: bufs, ops: ops,
		result: red.Name, out: out, outRow: []int64{kc}, flops: flops, bytes: bytes,
		passes: int(passes), accumulate: true, storeAt: storeAt,
	})
}

// isIdentity reports whether lit is the identity of the reduction op, so
// folding it in changes nothing.
func isIdentity(op, lit string) bool {
	var x float64
	switch lit {
	case "true":
		x = 1
	case "false":
		x = 0
	case "inf":
		x = math.Inf(1)
	case "-inf":
		x = math.Inf(-1)
	default:
		if _, err := fmt.Sscan(lit, &x); err != nil {
			return false
		}
	}
	switch op {
	case hlo.OpAdd, hlo.OpOr:
		return x == 0
	case hlo.OpMaximum:
		return math.IsInf(x, -1)
	case hlo.OpMinimum:
		return math.IsInf(x, 1)
	case hlo.OpAnd:
		return lit == "true"
	}
	return false
}

// passOffsets lists, for each pass over outer dims (row-major order), the
// bytes from element 0 to the pass's first element given the dims' element
// strides.
func passOffsets(dims, strides []int64, elemBytes int64) []int64 {
	n := prod(dims)
	offs := make([]int64, 0, n)
	for k := int64(0); k < n; k++ {
		rem, o := k, int64(0)
		for d := len(dims) - 1; d >= 0; d-- {
			o += rem % dims[d] * strides[d] * elemBytes
			rem /= dims[d]
		}
		offs = append(offs, o)
	}
	return offs
}

// iotaRun reports whether iota b counts along its only dim longer than one
// (or has none): its row-major elements are 0..n-1.
func iotaRun(b *hlo.Instruction) bool {
	d, _ := hlo.IntList("{" + hlo.AttrOr(b, "iota_dimension", "0") + "}")
	if len(d) != 1 || d[0] < 0 || int(d[0]) >= len(b.Shape.Dims) {
		return false
	}
	for i, n := range b.Shape.Dims {
		if n != 1 && int64(i) != d[0] {
			return false
		}
	}
	return true
}
