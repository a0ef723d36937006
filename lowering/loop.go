package lowering

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Loop kernels: an elementwise fusion (or one unfused elementwise op,
// broadcast or iota) over an output of shape S, streamed in tiles of rows
// along dimension 0 (stream.go): parameters are loaded from HBM
// (broadcasts through stride-0 DMA patterns), every fused instruction runs
// as one vector instruction over the tile, and the root's tile is stored.

// broadcastStrides are the element strides, over the dimensions of
// broadcast b's result (rank of them), at which b reads the array v: v's
// row-major strides where b maps a dimension of v, 0 where it repeats.
func broadcastStrides(b *hlo.Instruction, v *value, rank int) []int64 {
	dims, _ := hlo.IntList(hlo.AttrOr(b, "dimensions", "{}"))
	src := v.shape.Dims
	sst := hlo.Strides(src)
	st := make([]int64, rank)
	for k, d := range dims {
		if k < len(src) && d >= 0 && int(d) < rank && src[k] != 1 {
			st[d] = sst[k]
		}
	}
	return st
}

// viewOps move a parameter's elements without computing: inside a loop
// fusion they become the access pattern of its load.
var viewOps = map[string]bool{"reshape": true, "bitcast": true, "copy": true, "transpose": true, "slice": true, "reverse": true}

// viewOf is the access pattern reading the result of view op b from the
// parameter value v.
func (c *compiler) viewOf(b *hlo.Instruction, v *value) (view, error) {
	switch b.Opcode {
	case hlo.OpTranspose:
		w, err := transposeView(b, v)
		if err != nil {
			return w, c.fail(b, "%v", err)
		}
		return w, nil
	case hlo.OpSlice:
		w, err := sliceView(b, v)
		if err != nil {
			return w, c.fail(b, "%v", err)
		}
		return w, nil
	case hlo.OpReverse:
		return reverseView(b, v), nil
	}
	// reshape, bitcast, copy: the same elements in row-major order.
	dims := b.Shape.Dims
	if len(dims) == 0 {
		dims = []int64{1}
	}
	return view{v: v, strides: hlo.Strides(dims)}, nil
}

// vectorOps maps HLO elementwise ops to vector instructions.
var vectorOps = map[string]string{
	"add": "vadd", "subtract": "vsub", "multiply": "vmul", "divide": "vdiv", "maximum": "vmax",
	"minimum": "vmin", "power": "vpow", "and": "vand", "or": "vor", "xor": "vxor",
	"shift-left": "vshl", "shift-right-logical": "vshr", "shift-right-arithmetic": "vsra",
	"negate": "vneg", "abs": "vabs", "exponential": "vexp", "log": "vlog", "tanh": "vtanh",
	"logistic": "vlogistic", "sqrt": "vsqrt", "rsqrt": "vrsqrt", "floor": "vfloor", "ceil": "vceil",
	"round-nearest-even": "vround", "sign": "vsign", "not": "vnot", "copy": "vcopy", "convert": "vcvt",
}

var compareOps = map[string]string{"EQ": "vcmp.eq", "NE": "vcmp.ne", "LT": "vcmp.lt", "LE": "vcmp.le", "GT": "vcmp.gt", "GE": "vcmp.ge"}

// tileBuf is a body value's SRAM tile (placed by streamKernel).
type tileBuf struct {
	dt isa.DType
}

// reshapedPiece is the view of a split fusion's result when what remains
// of it (in, body, root) only reshapes one of the pieces split out (temps
// index i): nil when it computes anything.
func reshapedPiece(c *compiler, in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction, temps []*value) (*value, int) {
	byName := make(map[string]*hlo.Instruction, len(body))
	for _, b := range body {
		byName[b.Name] = b
	}
	x := byName[root.Name]
	for x != nil && (x.Opcode == hlo.OpReshape || x.Opcode == hlo.OpBitcast) && len(x.Operands) == 1 {
		x = byName[x.Operands[0].Name]
	}
	if x == nil || x.Opcode != hlo.OpParameter || int(x.ParamNumber) >= len(in.Operands) {
		return nil, 0
	}
	v := c.bufs[in.Operands[x.ParamNumber].Name]
	if v == nil || v.tuple != nil || v.shape == nil || v.shape.Elems() != in.Shape.Elems() || v.shape.Elem != in.Shape.Elem {
		return nil, 0
	}
	for i, t := range temps {
		if t.tensor == v.tensor {
			return &value{tensor: v.tensor, addr: v.addr, shape: in.Shape, dt: v.dt, empty: v.empty}, i
		}
	}
	return nil, 0
}

// maxRowPasses bounds the passes a loop kernel walks over its rows when
// the dims before them do not collapse into rows (each pass's offsets are
// listed; past 4096 they are not lowered).
var maxRowPasses = 4096

func (c *compiler) loopKernel(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) error {
	if root == nil {
		root = body[len(body)-1]
	}
	if in.Shape.IsTuple {
		return c.multiOutputLoop(in, body, root)
	}
	return c.loopKernelOf(in, body, root, nil)
}

// loopKernelOf lowers a loop fusion whose result is root, and, when extras
// is set (a multi-output fusion: multiloop.go), also stores each of extras,
// computed in the same kernel; the fusion's value is then the tuple of
// root's and the extras' results.
func (c *compiler) loopKernelOf(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction, extras []*hlo.Instruction) error {
	if len(extras) > 0 {
		// What is split out is read like a parameter; a result split
		// out would be a kernel of its own.
		for _, x := range c.splitList(in, body, root) {
			if slices.Contains(extras, x) || x == root {
				return c.fail(x, "%s, a result of a multi-output loop fusion, would be a kernel of its own", x.Name)
			}
		}
	} else {
		if ok, err := c.fusedDynamicUpdate(in, body, root); ok || err != nil {
			return err
		}
		if ok, err := c.viewConcat(in, body, root); ok || err != nil {
			return err
		}
	}
	nk := len(c.res.Kernels)
	in, body, temps, done, err := c.splitLoop(in, body, root, extras...)
	defer func() {
		for _, t := range temps {
			c.heap.release(t.tensor)
		}
	}()
	if err != nil || done {
		return err
	}
	if v, i := reshapedPiece(c, in, body, root, temps); v != nil && len(extras) == 0 {
		// What remains reshapes a piece split out (a layer's weights
		// sliced from a scan's stack, the layer dim dropped): the
		// piece's buffer, viewed in the fusion's shape, is the result,
		// as XLA's bitcast is free. It outlives the fusion.
		c.bufs[in.Name] = v
		temps = append(temps[:i], temps[i+1:]...)
		return nil
	}
	// The pieces split out are kernels of the chip's cores each
	// (cores.go); so is what remains.
	rest := func() error { return c.loopKernelRest(in, body, root, extras) }
	if len(c.res.Kernels) > nk {
		return c.onCores(rest)
	}
	return rest()
}

// loopKernelRest is the loop kernel proper, over a body with nothing to
// split out.
func (c *compiler) loopKernelRest(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction, extras []*hlo.Instruction) error {
	var out *value
	var extraOuts []*value
	if len(extras) == 0 {
		out = c.elementwiseInPlace(in, body, root)
		if out == nil {
			var err error
			if out, err = c.alloc(in, in.Shape, ""); err != nil {
				return err
			}
		}
		c.bufs[in.Name] = out
	} else {
		all, err := c.multiOutputBuffers(in, body, append([]*hlo.Instruction{root}, extras...))
		if err != nil {
			return err
		}
		c.bufs[in.Name] = all
		out, extraOuts = all.tuple[0], all.tuple[1:]
	}
	S := out.shape.Dims
	if len(S) == 0 {
		S = []int64{1}
	}
	rowElems := int64(1)
	for _, d := range S[1:] {
		rowElems *= d
	}
	params := map[string]*value{} // body parameter -> HBM value
	consts := map[string]string{} // scalar constants -> literal
	pviews := map[string]view{}   // slices of parameters (and their unit reshapes) read through broadcasts
	shapeOf := map[string][]int64{}
	for _, b := range body {
		if b.Shape != nil {
			shapeOf[b.Name] = b.Shape.Dims
		}
	}
	users := map[string][]*hlo.Instruction{}
	for _, b := range body {
		for _, o := range b.Operands {
			users[o.Name] = append(users[o.Name], b)
		}
	}
	// Element types by name, found once (a scan per lookup was quadratic
	// in a body of the whole entry: issue 44, 7).
	elemByName := make(map[string]string, len(body))
	for _, x := range body {
		if _, dup := elemByName[x.Name]; !dup && x.Shape != nil {
			elemByName[x.Name] = x.Shape.Elem
		}
	}
	elemOf := func(name string) string {
		if v := params[name]; v != nil {
			return v.shape.Elem
		}
		return elemByName[name]
	}
	// What each body instruction needs.
	bufs := map[string]*tileBuf{}
	loads := map[string]*hbmAccess{} // body value -> the DMA that fills its tile
	var order []*hlo.Instruction     // instructions computed on the vector unit
	newBuf := func(name string, elem string, at *hlo.Instruction) error {
		dt, ok := dtypeOf(elem)
		if !ok {
			return c.fail(at, "element type %s has no Pulse dtype", elem)
		}
		bufs[name] = &tileBuf{dt: dt} // placed once the tile size is known
		return nil
	}
	fullShape := func(s *hlo.Shape) bool {
		d := s.Dims
		if len(d) == 0 {
			d = []int64{1}
		}
		if len(d) != len(S) {
			return false
		}
		for i := range d {
			if d[i] != S[i] {
				return false
			}
		}
		return true
	}
	seq, seqMembers := c.seqScalars(in, body)
	for _, b := range body {
		switch {
		case seqMembers[b.Name]:
			// Computed by the sequencer before the first tile.
		case b.Opcode == hlo.OpBroadcast && seq[b.Operands[0].Name] != nil:
			s := seq[b.Operands[0].Name]
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			dt, _ := dtypeOf(s.elem)
			word := s.word
			loads[b.Name] = &hbmAccess{src: &value{shape: &hlo.Shape{Elem: s.elem}, dt: dt}, strides: make([]int64, len(S)), smem: &word}
		case b.Opcode == hlo.OpParameter:
			if int(b.ParamNumber) >= len(in.Operands) {
				return c.fail(in, "fused parameter %d has no operand", b.ParamNumber)
			}
			v := c.bufs[in.Operands[b.ParamNumber].Name]
			if v == nil || v.tuple != nil {
				return c.fail(in, "operand %d is not an array in memory", b.ParamNumber)
			}
			params[b.Name] = v
			// Loaded as a tile when an elementwise user reads it whole
			// (not a scalar the sequencer computes from it).
			for _, u := range users[b.Name] {
				if u.Opcode != hlo.OpBroadcast && !viewOps[u.Opcode] && !seqMembers[u.Name] {
					if !fullShape(v.shape) {
						return c.fail(u, "operand %s is %s, not the output's %s (only broadcasts change shape in a loop kernel)", b.Name, v.shape, out.shape)
					}
					if err := newBuf(b.Name, v.shape.Elem, b); err != nil {
						return err
					}
					loads[b.Name] = &hbmAccess{src: v, strides: hlo.Strides(S), adv: 0}
					break
				}
			}
		case b.Opcode == hlo.OpConstant:
			if b.Shape.IsTuple {
				return c.fail(b, "tuple constants are not lowered")
			}
			if len(b.Shape.Dims) == 0 && strings.TrimSpace(b.Literal) != "{...}" && c.fillableScalar(b) {
				lit, err := c.scalarLiteral(b)
				if err != nil {
					return err
				}
				consts[b.Name] = lit
				if fullShape(b.Shape) { // a scalar kernel uses it directly
					if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
						return err
					}
					order = append(order, b)
				}
				continue
			}
			// A non-scalar constant lives in HBM like a parameter.
			if err := c.constant(b); err != nil {
				return err
			}
			v := c.bufs[b.Name]
			params[b.Name] = v
			if fullShape(v.shape) {
				if err := newBuf(b.Name, v.shape.Elem, b); err != nil {
					return err
				}
				loads[b.Name] = &hbmAccess{src: v, strides: hlo.Strides(S)}
			}
		case viewOps[b.Opcode] && params[b.Operands[0].Name] != nil && fullShape(b.Shape):
			// Data movement of a parameter: a load through an access pattern.
			w, err := c.viewOf(b, params[b.Operands[0].Name])
			if err != nil {
				return err
			}
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			loads[b.Name] = &hbmAccess{src: w.v, strides: w.strides, base: w.off * int64(w.v.dt.Size())}
			if b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || b.Opcode == hlo.OpCopy {
				v := params[b.Operands[0].Name] // broadcasts may read it too
				params[b.Name] = &value{tensor: v.tensor, addr: v.addr, shape: b.Shape, dt: v.dt}
			}
		case (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || b.Opcode == hlo.OpCopy) && params[b.Operands[0].Name] != nil,
			len(b.Operands) == 1 && params[b.Operands[0].Name] != nil && sameElements(b, params[b.Operands[0].Name].shape) && !fullShape(b.Shape):
			// A reshape of a parameter (or a broadcast that only adds
			// dims of 1) read only through broadcasts: the same bytes
			// seen with the new dimensions.
			v := params[b.Operands[0].Name]
			params[b.Name] = &value{tensor: v.tensor, addr: v.addr, shape: b.Shape, dt: v.dt}
		case b.Opcode == hlo.OpSlice && params[b.Operands[0].Name] != nil && !fullShape(b.Shape):
			// A slice of a parameter read only through broadcasts (one
			// kernel position's weights of a depthwise convolution):
			// those read it in place.
			w, err := sliceView(b, params[b.Operands[0].Name])
			if err != nil {
				return c.fail(b, "%v", err)
			}
			pviews[b.Name] = w
		case (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast) && hasView(pviews, b.Operands[0].Name):
			w := pviews[b.Operands[0].Name]
			st, ok := reshapeStrides(shapeOf[b.Operands[0].Name], w.strides, b.Shape.Dims)
			if !ok {
				return c.fail(b, "a reshape of a slice that regroups its elements is not lowered in a loop kernel")
			}
			pviews[b.Name] = view{v: w.v, off: w.off, strides: st}
		case b.Opcode == hlo.OpBroadcast && hasView(pviews, b.Operands[0].Name):
			w := pviews[b.Operands[0].Name]
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			loads[b.Name] = &hbmAccess{src: w.v, strides: broadcastViewStrides(b, w, len(S)), base: w.off * int64(w.v.dt.Size())}
		case (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || b.Opcode == hlo.OpCopy) && consts[b.Operands[0].Name] != "":
			// A reshaped scalar constant: a fill, as a broadcast of it.
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			consts[b.Name] = consts[b.Operands[0].Name]
			order = append(order, b)
		case b.Opcode == hlo.OpBroadcast:
			x := b.Operands[0].Name
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			if lit, ok := consts[x]; ok {
				consts[b.Name] = lit
				order = append(order, b) // a vfill
				continue
			}
			v := params[x]
			if v == nil {
				return c.fail(b, "broadcast of a computed value is not lowered yet (only of parameters and constants)")
			}
			st := broadcastStrides(b, v, len(S))
			loads[b.Name] = &hbmAccess{src: v, strides: st}
		case b.Opcode == hlo.OpIota:
			// An iota is 0..n-1 along its dimension, broadcast like any
			// other operand: made on chip where the tiles allow, else a
			// constant stored once (iotaonchip.go).
			d, _ := hlo.IntList("{" + hlo.AttrOr(b, "iota_dimension", "0") + "}")
			if len(d) != 1 || d[0] < 0 || int(d[0]) >= len(S) || !fullShape(b.Shape) {
				return c.fail(b, "bad iota_dimension")
			}
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			st := make([]int64, len(S))
			st[d[0]] = 1
			a, err := c.iotaAccess(b, S[d[0]], st)
			if err != nil {
				return err
			}
			loads[b.Name] = a
		case hlo.IsElementwise(b.Opcode) || b.Opcode == hlo.OpCopy && copyKeepsLayout(b, body):
			// A copy that keeps the layout (a sharding constraint in a
			// partitioned module) is the identity: a vector copy.
			if err := c.checkElementwise(b, elemOf); err != nil {
				return err
			}
			if !fullShape(b.Shape) {
				return c.fail(b, "shape %s differs from the kernel's %s", b.Shape, out.shape)
			}
			if err := newBuf(b.Name, b.Shape.Elem, b); err != nil {
				return err
			}
			for i, elem := range expansionScratch(b) {
				if err := newBuf(scratchName(b.Name, i), elem, b); err != nil {
					return err
				}
			}
			order = append(order, b)
		default:
			return c.fail(b, "%s inside a loop fusion is not lowered yet", b.Opcode)
		}
	}
	if bufs[root.Name] == nil {
		return c.fail(root, "the fusion's result is not computed in the kernel")
	}
	// Constants every reader takes as an immediate need no tile.
	resultNames := []string{root.Name}
	for _, x := range extras {
		resultNames = append(resultNames, x.Name)
	}
	if imm := immediateOnly(body, consts, resultNames...); len(imm) > 0 {
		order = slices.DeleteFunc(order, func(b *hlo.Instruction) bool { return imm[b.Name] })
		for name := range imm {
			delete(bufs, name)
		}
	}
	for _, r := range extras {
		if _, isConst := consts[r.Name]; bufs[r.Name] == nil || isConst {
			return c.fail(r, "the fusion's result %s is not computed in the kernel", r.Name)
		}
	}
	// Dims of 1 and dims every access walks contiguously merge, so that
	// a rank-6 fusion of an attention layer still has tiles of at most 4.
	S = mergeLoopDims(S, loads)
	// Rows: the leading p dimensions, collapsed; one row of every buffer
	// is S[p:]. p is 1 unless a row of S[1:] is too big for SRAM.
	var elemBytes int64
	for name, t := range bufs {
		elemBytes += int64(t.dt.Size())
		if l := loads[name]; l != nil && slices.Contains(l.strides, 0) {
			// A broadcast may become a compact source buffer of up to a
			// row, held twice (compactBroadcasts).
			elemBytes += 2 * int64(t.dt.Size())
		}
	}
	budget := min(c.chip.Memory.SRAMBytes/2, 4<<20) / 2
	p := 1
	for p < len(S) && prod(S[p:])*elemBytes > budget {
		p++
	}
	// Tiles have at most 4 dims (the rows and three more): the dims before
	// those are rows, collapsed or walked in passes.
	p = max(p, len(S)-3)
	// The leading dims collapse into the rows when every operand's pattern
	// allows it; otherwise dim p-1 holds the rows and the dims before it
	// are walked in passes.
	leadDims := func(p int) []int {
		lead := make([]int, p)
		for i := range lead {
			lead[i] = i
		}
		return lead
	}
	rowsAt := func(p int) (V []int64, passes int, collapsible bool) {
		for _, l := range loads {
			if _, ok := collapse(leadDims(p), l.strides, S); !ok {
				return S[p-1:], int(prod(S[:p-1])), false
			}
		}
		return append([]int64{prod(S[:p])}, S[p:]...), 1, true
	}
	V, passes, collapsible := rowsAt(p)
	if passes > maxRowPasses && p > 1 && p-1 >= len(S)-3 && prod(S[p-1:])*elemBytes <= c.chip.Memory.SRAMBytes/4 {
		// A row longer than the streaming budget that SRAM still
		// holds (a 128K vocabulary's logits for each of 16K tokens)
		// is a row, rather than the dims before it being walked in
		// passes one by one.
		p--
		V, passes, collapsible = rowsAt(p)
	}
	lead := leadDims(p)
	if passes > maxRowPasses {
		return c.fail(in, "rows of %s do not fit SRAM and its operands' patterns need %d passes (not lowered yet)", out.shape, passes)
	}
	var sbufs []*streamBuf
	type named struct {
		name string
		at   *hlo.Instruction
	}
	var names []named
	for _, b := range body {
		names = append(names, named{b.Name, b})
		for i := range expansionScratch(b) {
			names = append(names, named{scratchName(b.Name, i), b})
		}
	}
	for _, nb := range names {
		b := nb.at
		t := bufs[nb.name]
		if t == nil {
			continue
		}
		_, isConst := consts[nb.name]
		sb := &streamBuf{name: nb.name, at: b, dt: t.dt, row: S[p:], load: loads[nb.name], static: isConst}
		if l := sb.load; l != nil && p > 1 {
			if collapsible {
				st0, _ := collapse(lead, l.strides, S)
				l.strides = append([]int64{st0}, l.strides[p:]...)
			} else {
				l.outer = passOffsets(S[:p-1], l.strides[:p-1], int64(l.src.dt.Size()))
				l.strides = l.strides[p-1:]
			}
		}
		sbufs = append(sbufs, sb)
	}
	var ops []streamOp
	for _, b := range order {
		_, isConst := consts[b.Name]
		ops = append(ops, streamOp{at: b, static: isConst, emit: func(tile func(string) string, sync string) {
			c.vectorOp(b, tile, consts, sync)
		}})
	}
	flops, bytes := c.kernelCost(in, body)
	var prologue func()
	if len(seq) > 0 {
		prologue = func() { c.emitSeqScalars(in, seq) }
	}
	return c.streamKernel(streamSpec{
		in: in, kind: "loop", rows: V[0], bufs: sbufs, ops: ops,
		result: root.Name, out: out, outRow: V[1:], flops: flops, bytes: bytes, passes: passes,
		prologue: prologue, extraStores: extraStores(extras, extraOuts),
	})
}

// mergeLoopDims drops the dims of 1 from the kernel's shape S and merges
// the dims every load walks as one (mergeDims), rewriting the loads'
// strides to match.
func mergeLoopDims(S []int64, loads map[string]*hbmAccess) []int64 {
	names := make([]string, 0, len(loads))
	for n := range loads {
		names = append(names, n)
	}
	slices.Sort(names)
	st := make([][]int64, len(names))
	for j, n := range names {
		st[j] = loads[n].strides
	}
	dims, st := mergeDims(S, st)
	for j, n := range names {
		loads[n].strides = st[j]
	}
	return dims
}

// mergeDims drops the dims of 1 from a tile of the given dims walked by
// several stride lists, and merges each dim into the next where every list
// walks the two as one (a stride equal to the next one's times its extent,
// or both 0) while the merged dim stays within the ISA's 2^24. The result
// has at least one dim; the lists are new.
func mergeDims(dims []int64, strides [][]int64) ([]int64, [][]int64) {
	var keep []int
	for i, d := range dims {
		if d != 1 {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		keep = []int{len(dims) - 1}
	}
	out := make([]int64, len(keep))
	st := make([][]int64, len(strides))
	for i, k := range keep {
		out[i] = dims[k]
	}
	for j := range strides {
		for _, k := range keep {
			st[j] = append(st[j], strides[j][k])
		}
	}
	for i := len(out) - 2; i >= 0; i-- {
		ok := out[i]*out[i+1] <= maxTileDim
		for j := range st {
			if st[j][i] != st[j][i+1]*out[i+1] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		out[i] *= out[i+1]
		out = slices.Delete(out, i+1, i+2)
		for j := range st {
			st[j][i] = st[j][i+1]
			st[j] = slices.Delete(st[j], i+1, i+2)
		}
	}
	return out, st
}

func align64(n int64) int64 { return (n + 63) / 64 * 64 }

// loc points the next instruction at an HLO instruction.
func (c *compiler) loc(in *hlo.Instruction) {
	fmt.Fprintf(&c.out, ".loc \"%s\" %d %d \"%s\"\n", strings.ReplaceAll(c.file, `"`, "'"), in.Pos.Line, in.Pos.Col, in.Name)
}

func (c *compiler) locName(body []*hlo.Instruction, name string) {
	for _, b := range body {
		if b.Name == name {
			c.loc(b)
			return
		}
	}
}

// checkElementwise: the op has a vector instruction with XLA's semantics.
func (c *compiler) checkElementwise(b *hlo.Instruction, elemOf func(string) string) error {
	switch b.Opcode {
	case hlo.OpCompare:
		dir, _ := b.Attr("direction")
		if _, ok := compareOps[dir]; !ok {
			return c.fail(b, "unknown comparison direction %q", dir)
		}
		if t, _ := b.Attr("type"); t == "TOTALORDER" {
			return c.fail(b, "total-order comparisons have no vector instruction")
		}
		return nil
	case hlo.OpSelect, hlo.OpClamp:
		return nil
	case hlo.OpReducePrecision:
		e, _ := b.Attr("exponent_bits")
		m, _ := b.Attr("mantissa_bits")
		if (e != "8" || m != "7") && !precisionHolds(b) {
			return c.fail(b, "reduce-precision to %s exponent and %s mantissa bits is not lowered (only bf16's 8 and 7, or a format that holds the type)", e, m)
		}
		return nil
	case hlo.OpConvert:
		// The vector unit saturates integer-to-integer conversions; XLA
		// wraps. Only those that cannot meet an out-of-range value agree
		// (convertWraps).
		from, to := elemOf(b.Operands[0].Name), b.Shape.Elem
		fd, ok1 := dtypeOf(from)
		td, ok2 := dtypeOf(to)
		// u32, s64 and u64 conversions wrap as XLA's do.
		legacy := !fd.IsWide() && !td.IsWide() && fd != isa.U32 && td != isa.U32
		if ok1 && ok2 && legacy && fd.IsInt() && td.IsInt() && td != isa.Pred && fd != isa.Pred && convertWraps(fd, td) {
			// Wrapped in s32 before the store (narrowConvert); the
			// operand's type, written on the operand, tells
			// expansionOf so.
			b.Operands[0].Shape = &hlo.Shape{Elem: from, Dims: b.Shape.Dims}
		}
		return nil
	}
	if _, ok := expansionOf(b); ok {
		if f64In(b, elemOf) && !(b.Opcode == hlo.OpReducePrecision && precisionHolds(b)) {
			// The sequences are accurate to f32's precision, not f64's.
			return c.fail(b, "f64 %s is not lowered (its vector sequence is accurate to f32, not f64)", b.Opcode)
		}
		return nil
	}
	if _, ok := vectorOps[b.Opcode]; !ok {
		return c.fail(b, "elementwise %s has no vector instruction", b.Opcode)
	}
	return checkNarrowInt(c, b, b.Shape.Elem)
}

// f64In reports whether b's result or an operand is f64.
func f64In(b *hlo.Instruction, elemOf func(string) string) bool {
	if b.Shape.Elem == hlo.F64 {
		return true
	}
	for _, o := range b.Operands {
		if elemOf(o.Name) == "f64" {
			return true
		}
	}
	return false
}

// wrapSafe ops cannot leave their operands' range, so saturating to a
// narrow integer type never differs from XLA's wrap-around (not, for
// signed types only: ~x of a u8 is negative in s32, wrapped by its
// expansion; xor of two sign-extended values is sign-extended).
var wrapSafe = map[string]bool{"maximum": true, "minimum": true, "and": true, "or": true, "not": true, "xor": true,
	"copy": true, "select": true, "clamp": true, "compare": true, "convert": true, "sign": true}

// checkNarrowInt refuses arithmetic whose result is an 8- or 16-bit
// integer: XLA wraps it around, the vector unit (computing in s32)
// saturates when it stores.
func checkNarrowInt(c *compiler, b *hlo.Instruction, elem string) error {
	return checkNarrowCombiner(c, b, b.Opcode, elem)
}

// checkNarrowCombiner is checkNarrowInt for instruction b (a reduce, a
// scatter) that combines elements with op.
func checkNarrowCombiner(c *compiler, b *hlo.Instruction, op, elem string) error {
	dt, ok := dtypeOf(elem)
	if ok && dt.IsInt() && dt != isa.Pred && dt.Size() < 4 && !wrapSafe[op] {
		if op != b.Opcode {
			return c.fail(b, "%s %s arithmetic wraps in XLA but saturates on the vector unit", elem, op)
		}
		return c.fail(b, "%s arithmetic wraps in XLA but saturates on the vector unit", elem)
	}
	return nil
}

// vectorOp emits the vector instruction(s) of one body instruction.
func (c *compiler) vectorOp(b *hlo.Instruction, tile func(string) string, consts map[string]string, sync string) {
	w := &c.out
	op := func(i int) string { return tile(b.Operands[i].Name) }
	dst := tile(b.Name)
	if lit, ok := consts[b.Name]; ok && (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast || b.Opcode == hlo.OpCopy) {
		fmt.Fprintf(w, "        vfill   %s, %s%s\n", dst, fillValue(lit), sync) // a reshaped scalar constant
		return
	}
	if f, ok := scaleFormOf(b, consts); ok {
		fmt.Fprintf(w, "        vscale  %s, %s, %s, %s%s\n", dst, tile(f.x), f.a, f.b, sync)
		return
	}
	switch b.Opcode {
	case hlo.OpBroadcast, hlo.OpConstant:
		fmt.Fprintf(w, "        vfill   %s, %s%s\n", dst, fillValue(consts[b.Name]), sync)
	case hlo.OpCompare:
		dir, _ := b.Attr("direction")
		fmt.Fprintf(w, "        %-7s %s, %s, %s%s\n", compareOps[dir], dst, op(0), op(1), sync)
	case hlo.OpSelect:
		// dst = on_false, then take on_true where the predicate holds.
		first, last := splitSync(sync)
		fmt.Fprintf(w, "        vcvt    %s, %s%s\n", dst, op(2), first) // on_false may be of another type (mixed precision)
		c.loc(b)
		fmt.Fprintf(w, "        vsel    %s, %s, %s%s\n", dst, op(0), op(1), last)
	case hlo.OpClamp:
		first, last := splitSync(sync)
		fmt.Fprintf(w, "        vmax    %s, %s, %s%s\n", dst, op(1), op(0), first)
		c.loc(b)
		fmt.Fprintf(w, "        vmin    %s, %s, %s%s\n", dst, dst, op(2), last)
	default:
		args := make([]string, len(b.Operands))
		for i := range b.Operands {
			args[i] = op(i)
		}
		if e, ok := expansionOf(b); ok {
			tmp := make([]string, len(e.scratch))
			for i := range tmp {
				tmp[i] = tile(scratchName(b.Name, i))
			}
			c.emitExpansion(b, e, dst, args, tmp, sync)
			return
		}
		fmt.Fprintf(w, "        %-7s %s, %s%s\n", vectorOps[b.Opcode], dst, strings.Join(args, ", "), sync)
	}
}

// splitSync splits " wait ... signal ..." into the wait (for the first of
// two instructions) and the signal (for the second).
func splitSync(sync string) (first, last string) {
	if i := strings.Index(sync, " signal"); i >= 0 {
		return sync[:i], sync[i:]
	}
	return sync, ""
}

func fillValue(lit string) string {
	switch lit {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	return lit
}

// copyKeepsLayout reports whether copy b of a body value leaves its
// layout as it is (both default, or the same minor-to-major order).
func copyKeepsLayout(b *hlo.Instruction, body []*hlo.Instruction) bool {
	if len(b.Operands) != 1 || b.Shape == nil || b.Shape.IsTuple {
		return false
	}
	for _, x := range body {
		if x.Name == b.Operands[0].Name {
			return x.Shape != nil && !x.Shape.IsTuple && x.Shape.Elem == b.Shape.Elem && hlo.EqualDims(x.Shape.Dims, b.Shape.Dims) && sameLayout(x.Shape, b.Shape)
		}
	}
	return false
}

// sameLayout: a and b (of one rank) keep their elements in the same order
// in memory; a missing layout is the default, major to minor.
func sameLayout(a, b *hlo.Shape) bool {
	order := func(s *hlo.Shape) ([]int64, string) {
		if s.Layout == nil || len(s.Layout.MinorToMajor) == 0 {
			d := make([]int64, len(s.Dims))
			for i := range d {
				d[i] = int64(len(d) - 1 - i)
			}
			return d, ""
		}
		return s.Layout.MinorToMajor, s.Layout.Tail
	}
	oa, ta := order(a)
	ob, tb := order(b)
	return slices.Equal(oa, ob) && ta == tb
}
