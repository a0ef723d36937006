package expand

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// Transformer Engine's fused attention, as JAX programs written for GPUs
// call it (MaxText with attention=cudnn_flash_te): custom calls to
// te_fused_attn_forward_ffi and te_fused_attn_backward_ffi whose
// backend_config (an MLIR dictionary: attn_heads = 32 : i64, ...) holds
// the attention's parameters, with NVTE's enums for the layout and the
// mask (transformer_engine/common/include/transformer_engine/fused_attn.h).
//
//	forward(q, k, v, bias, seed, q_cu_seqlens, kv_cu_seqlens, ...)
//	    -> (o, softmax_aux f32[B,H,Sq,1], rng_state, workspace)
//	backward(q, k, v, bias, softmax_aux, rng_state, o, do, q_cu_seqlens,
//	    kv_cu_seqlens, ...) -> (dq, dk, dv, dbias, workspace)
//
// where, in the BSHD layout, q is [B,Sq,H,D], k [B,Sk,G,D] and v
// [B,Sk,G,Dv] with G = num_gqa_groups key/value heads, query head h
// reading key head h / (H/G); o = softmax(scale * q k^T, masked) v and
// softmax_aux is each query row's log-sum-exp, which the backward uses to
// recompute the probabilities. Masks: causal from the top-left corner (key
// j <= query i) or the bottom-right (j <= i + Sk - Sq), padding from the
// cumulative sequence lengths (positions at or past a sequence's length
// take no part; their rows of o and of the gradients are zeros).
//
// ExpandTEFusedAttns rewrites each call into that arithmetic, block by
// block of queries so that no more than teScoreBytes of f32 scores exist
// at once (a [2,32,8192,8192] score array is 17 GB), and under a causal
// mask each block reads only the keys it can see, as a flash-attention
// kernel skips the blocks above the diagonal. Probabilities are rounded to
// the inputs' type before they meet v (and ds before it meets q and k), as
// the fused kernels do. The workspace and rng_state outputs are zeros: the
// kernel's scratch and its dropout generator's state, which no program
// reads as data. Dropout, biases, sliding windows, packed (THD) layouts and
// segment ids are refused: they change the arithmetic.

const (
	teForward  = "te_fused_attn_forward_ffi"
	teBackward = "te_fused_attn_backward_ffi"
)

// teScoreBytes bounds one block's f32 score array (a variable so that a
// test can make small attentions take several blocks).
var teScoreBytes int64 = 1 << 30

// NVTE_QKV_Layout values read (separate q, k and v arrays).
const (
	teLayoutSBHD = 4 // NVTE_SBHD_SBHD_SBHD
	teLayoutBSHD = 9 // NVTE_BSHD_BSHD_BSHD
)

// IsTEFusedAttn reports whether in is a Transformer Engine fused-attention
// custom call.
func IsTEFusedAttn(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	t, _ := in.Attr("custom_call_target")
	t = strings.Trim(t, `"`)
	return t == teForward || t == teBackward
}

// teConfig is what the expansion reads of backend_config.
type teConfig struct {
	heads, groups       int64
	scale, dropout      float64
	mask, layout, bias  int64
	winLeft, winRight   int64
	hasHeads, hasGroups bool
	maxSegmentsPerSeq   int64
	causal, bottomRight bool
	padding             bool
}

// teConfigOf parses backend_config={k = v : type, ...}.
func teConfigOf(in *hlo.Instruction) (teConfig, error) {
	c := teConfig{scale: 1, winLeft: -1, winRight: -1, layout: teLayoutBSHD, maxSegmentsPerSeq: 1}
	raw, ok := in.Attr("backend_config")
	if !ok {
		return c, fmt.Errorf("a fused-attention call without backend_config: its mask and scale are not given")
	}
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, `"`) {
		var err error
		if raw, err = strconv.Unquote(raw); err != nil {
			return c, fmt.Errorf("backend_config: %v", err)
		}
	}
	raw = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(raw), "{"), "}")
	for _, field := range strings.Split(raw, ",") {
		if strings.TrimSpace(field) == "" {
			continue
		}
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			return c, fmt.Errorf("backend_config: %q is not key = value", strings.TrimSpace(field))
		}
		k = strings.TrimSpace(k)
		v, _, _ = strings.Cut(v, " : ")
		v = strings.TrimSpace(v)
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("backend_config: %s = %s: want a number", k, v)
			}
			return f, nil
		}
		var f float64
		var err error
		switch k {
		case "attn_heads", "num_gqa_groups", "scaling_factor", "dropout_probability", "mask_type", "qkv_layout", "bias_type", "window_size_left", "window_size_right", "max_segments_per_seq":
			if f, err = num(); err != nil {
				return c, err
			}
		}
		switch k {
		case "attn_heads":
			c.heads, c.hasHeads = int64(f), true
		case "num_gqa_groups":
			c.groups, c.hasGroups = int64(f), true
		case "scaling_factor":
			c.scale = f
		case "dropout_probability":
			c.dropout = f
		case "mask_type":
			c.mask = int64(f)
		case "qkv_layout":
			c.layout = int64(f)
		case "bias_type":
			c.bias = int64(f)
		case "window_size_left":
			c.winLeft = int64(f)
		case "window_size_right":
			c.winRight = int64(f)
		case "max_segments_per_seq":
			c.maxSegmentsPerSeq = int64(f)
		}
	}
	switch c.mask {
	case 0: // NVTE_NO_MASK
	case 1:
		c.padding = true
	case 2:
		c.causal = true
	case 3:
		c.causal, c.padding = true, true
	case 4:
		c.causal, c.bottomRight = true, true
	case 5:
		c.causal, c.bottomRight, c.padding = true, true, true
	default:
		return c, fmt.Errorf("mask_type %d is not one of NVTE's masks 0-5", c.mask)
	}
	switch {
	case c.layout != teLayoutBSHD && c.layout != teLayoutSBHD:
		return c, fmt.Errorf("qkv_layout %d: only separate q, k and v arrays (BSHD_BSHD_BSHD 9, SBHD_SBHD_SBHD 4) are expanded", c.layout)
	case c.dropout != 0:
		return c, fmt.Errorf("dropout_probability %g: attention dropout (cuDNN's generator) is not expanded", c.dropout)
	case c.bias != 0:
		return c, fmt.Errorf("bias_type %d: attention biases are not expanded", c.bias)
	case c.winLeft >= 0 || c.winRight >= 0:
		return c, fmt.Errorf("a sliding window (%d, %d) is not expanded", c.winLeft, c.winRight)
	case c.maxSegmentsPerSeq > 1:
		return c, fmt.Errorf("max_segments_per_seq %d: packed sequences are not expanded", c.maxSegmentsPerSeq)
	}
	return c, nil
}

// ExpandTEFusedAttns rewrites Transformer Engine's fused-attention calls
// (see above).
// The calls' get-tuple-elements then read the results directly, so that
// the zeros of the outputs nothing reads (a backward call's workspace is
// 514 MiB in MaxText's Llama 8B) are not made.
func ExpandTEFusedAttns(m *hlo.Module) error {
	calls := map[string]bool{}
	err := rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsTEFusedAttn(in) {
			x.Out = append(x.Out, in)
			return nil
		}
		cfg, err := teConfigOf(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		calls[in.Name] = true
		t, _ := in.Attr("custom_call_target")
		if strings.Trim(t, `"`) == teForward {
			return x.teForward(ops, cfg)
		}
		return x.teBackward(ops, cfg)
	})
	if err != nil || len(calls) == 0 {
		return err
	}
	rewrite.ForwardTupleElements(m, calls)
	return nil
}

// teDims are an attention's sizes, checked against each other.
type teDims struct {
	b, sq, sk, h, g, r, d, dv int64
	elem                      string
}

// teArrays reads q, k, v (made BSHD) and their sizes.
func (x *rewriter) teArrays(ops []*hlo.Instruction, cfg teConfig) (q, k, v *hlo.Instruction, td teDims, err error) {
	for _, o := range ops[:3] {
		if o.Shape.IsTuple || len(o.Shape.Dims) != 4 {
			return nil, nil, nil, td, x.Errorf("q, k and v are arrays of rank 4")
		}
	}
	q, k, v = ops[0], ops[1], ops[2]
	if cfg.layout == teLayoutSBHD {
		q, k, v = x.Transpose(q, []int64{1, 0, 2, 3}), x.Transpose(k, []int64{1, 0, 2, 3}), x.Transpose(v, []int64{1, 0, 2, 3})
	}
	qd, kd, vd := q.Shape.Dims, k.Shape.Dims, v.Shape.Dims
	td = teDims{b: qd[0], sq: qd[1], h: qd[2], d: qd[3], sk: kd[1], g: kd[2], dv: vd[3], elem: q.Shape.Elem}
	switch {
	case kd[0] != td.b || vd[0] != td.b || vd[1] != td.sk || vd[2] != td.g || kd[3] != td.d:
		return nil, nil, nil, td, x.Errorf("k %v and v %v do not fit q %v", kd, vd, qd)
	case td.b < 1 || td.sq < 1 || td.sk < 1 || td.h < 1 || td.d < 1 || td.dv < 1:
		return nil, nil, nil, td, x.Errorf("an empty attention (q %v, k %v, v %v)", qd, kd, vd)
	case td.g < 1 || td.h%td.g != 0:
		return nil, nil, nil, td, x.Errorf("%d query heads are not a multiple of %d key/value heads", td.h, td.g)
	case cfg.hasHeads && cfg.heads != td.h || cfg.hasGroups && cfg.groups != td.g:
		return nil, nil, nil, td, x.Errorf("backend_config says %d heads in %d groups; q and k have %d and %d", cfg.heads, cfg.groups, td.h, td.g)
	case !hlo.IsRealFloat(td.elem) || k.Shape.Elem != td.elem || v.Shape.Elem != td.elem:
		return nil, nil, nil, td, x.Errorf("q, k and v of one float type (%s, %s, %s)", td.elem, k.Shape.Elem, v.Shape.Elem)
	}
	td.r = td.h / td.g
	return q, k, v, td, nil
}

// teLengths are the per-sequence lengths [B] (s32) of cumulative lengths
// cu [B+1]; nil when the mask has no padding.
func (x *rewriter) teLengths(cu *hlo.Instruction, td teDims, cfg teConfig) (*hlo.Instruction, error) {
	if !cfg.padding {
		return nil, nil
	}
	if cu.Shape.IsTuple || len(cu.Shape.Dims) != 1 || cu.Shape.Dims[0] != td.b+1 || !hlo.IsInteger(cu.Shape.Elem) {
		return nil, x.Errorf("a padding mask needs cumulative sequence lengths of %d integers, not %s", td.b+1, cu.Shape)
	}
	c := x.Convert(cu, "s32")
	return x.Binary("subtract", x.SliceDim(c, 0, 1, td.b), x.SliceDim(c, 0, 0, td.b)), nil
}

// teBlock is the number of query rows per block: all of them when their
// scores fit teScoreBytes, else as many as do, in multiples of 128 (the
// MXU's rows) where that leaves at least 128.
func teBlock(td teDims) int64 {
	row := td.b * td.h * td.sk * 4
	if td.sq*row <= teScoreBytes {
		return td.sq
	}
	n := teScoreBytes / row
	if n >= 128 {
		n = n / 128 * 128
	}
	return max(n, 1)
}

// teKeys is how many keys the queries [q0, q0+n) may see: under a causal
// mask of fixed offset, none past the last query's diagonal.
func teKeys(td teDims, cfg teConfig, q0, n int64) int64 {
	if !cfg.causal || cfg.bottomRight && cfg.padding {
		return td.sk
	}
	off := int64(0)
	if cfg.bottomRight {
		off = td.sk - td.sq
	}
	return max(1, min(td.sk, q0+n+off))
}

// teDot is a dot_general with f32 results.
func (x *rewriter) teDot(a, b *hlo.Instruction, dims []int64, lb, rb, lc, rc []int64) *hlo.Instruction {
	return x.Emit("dot", "f32", dims, []*hlo.Instruction{a, b},
		"lhs_batch_dims", hlo.IntsText(lb), "rhs_batch_dims", hlo.IntsText(rb),
		"lhs_contracting_dims", hlo.IntsText(lc), "rhs_contracting_dims", hlo.IntsText(rc))
}

// teScores are scale * q_c k_c^T for a block: [B,G,n,R,keys] f32, and the
// mask of the pairs that take part (nil when all do).
func (x *rewriter) teScores(qc, kc *hlo.Instruction, td teDims, cfg teConfig, q0 int64, qlen, kvlen *hlo.Instruction) (s, valid *hlo.Instruction) {
	n, keys := qc.Shape.Dims[1], kc.Shape.Dims[1]
	dims := []int64{td.b, td.g, n, td.r, keys}
	s = x.teDot(qc, kc, dims, []int64{0, 2}, []int64{0, 2}, []int64{4}, []int64{3})
	if cfg.scale != 1 {
		s = x.Binary("multiply", s, x.ScalarLike(s, cfg.scale))
	}
	// The mask is built over [B,n,keys] (or [n,keys] when no sequence
	// lengths enter it) and broadcast over the heads: a score-sized iota
	// would be as large as the scores.
	mdims := []int64{n, keys}
	qd, kd, bmap := 0, 1, []int64{2, 4}
	if cfg.padding {
		mdims, qd, kd, bmap = []int64{td.b, n, keys}, 1, 2, []int64{0, 2, 4}
	}
	and := func(a, b *hlo.Instruction) *hlo.Instruction {
		if a == nil {
			return b
		}
		return x.Emit("and", "pred", mdims, []*hlo.Instruction{a, b})
	}
	cmp := func(a, b *hlo.Instruction, dir string) *hlo.Instruction {
		return x.Emit("compare", "pred", mdims, []*hlo.Instruction{a, b}, "direction", dir)
	}
	iota := func(dim int) *hlo.Instruction {
		return x.Emit("iota", "s32", mdims, nil, "iota_dimension", strconv.Itoa(dim))
	}
	perBatch := func(l *hlo.Instruction) *hlo.Instruction { return x.Broadcast(l, mdims, []int64{0}) }
	sc := func(v int64) *hlo.Instruction {
		return x.Broadcast(x.Constant("s32", strconv.FormatInt(v, 10)), mdims, nil)
	}
	if !cfg.causal && !cfg.padding {
		return s, nil
	}
	i, j := iota(qd), iota(kd)
	if q0 != 0 {
		i = x.Binary("add", i, sc(q0))
	}
	if cfg.causal {
		lim := i // key j <= query i + offset
		switch {
		case cfg.bottomRight && cfg.padding:
			lim = x.Binary("add", i, x.Binary("subtract", perBatch(kvlen), perBatch(qlen)))
		case cfg.bottomRight && td.sk != td.sq:
			lim = x.Binary("add", i, sc(td.sk-td.sq))
		}
		valid = and(valid, cmp(j, lim, "LE"))
	}
	if cfg.padding {
		valid = and(valid, cmp(i, perBatch(qlen), "LT"))
		valid = and(valid, cmp(j, perBatch(kvlen), "LT"))
	}
	valid = x.Broadcast(valid, dims, bmap)
	return s, valid
}

// teRows broadcasts a per-row array [B,G,n,R] over a block's last dim.
func (x *rewriter) teRows(a *hlo.Instruction, dims []int64) *hlo.Instruction {
	return x.Broadcast(a, dims, []int64{0, 1, 2, 3})
}

func (x *rewriter) teSelect(p, a, b *hlo.Instruction) *hlo.Instruction {
	return x.Emit("select", a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{p, a, b})
}

// teHeads makes a block's [B,G,n,R,E] result a [B,n,H,E] array of elem.
func (x *rewriter) teHeads(a *hlo.Instruction, td teDims, elem string) *hlo.Instruction {
	d := a.Shape.Dims
	t := x.Transpose(a, []int64{0, 2, 1, 3, 4})
	return x.Convert(x.Reshape(t, []int64{d[0], d[2], td.h, d[4]}), elem)
}

// teLayout puts a BSHD result back in the call's layout.
func (x *rewriter) teLayout(a *hlo.Instruction, cfg teConfig) *hlo.Instruction {
	if cfg.layout == teLayoutSBHD {
		return x.Transpose(a, []int64{1, 0, 2, 3})
	}
	return a
}

// teZeros is a zero array of s (the workspace, rng_state, an empty dbias).
func (x *rewriter) teZeros(s *hlo.Shape) *hlo.Instruction {
	return x.Broadcast(x.Constant(s.Elem, "0"), s.Dims, nil)
}

func (x *rewriter) teForward(ops []*hlo.Instruction, cfg teConfig) error {
	out := x.At.Shape
	if len(ops) < 7 || !out.IsTuple || len(out.Tuple) < 2 {
		return x.Errorf("the forward call takes q, k, v, bias, seed and the sequence lengths, and returns (o, softmax_aux, ...)")
	}
	q, k, v, td, err := x.teArrays(ops, cfg)
	if err != nil {
		return err
	}
	qlen, err := x.teLengths(ops[5], td, cfg)
	if err != nil {
		return err
	}
	kvlen, err := x.teLengths(ops[6], td, cfg)
	if err != nil {
		return err
	}
	q5 := x.Reshape(q, []int64{td.b, td.sq, td.g, td.r, td.d})
	var os, lses []*hlo.Instruction
	block := teBlock(td)
	for q0 := int64(0); q0 < td.sq; q0 += block {
		n := min(block, td.sq-q0)
		keys := teKeys(td, cfg, q0, n)
		qc, kc, vc := x.SliceDim(q5, 1, q0, n), x.SliceDim(k, 1, 0, keys), x.SliceDim(v, 1, 0, keys)
		s, valid := x.teScores(qc, kc, td, cfg, q0, qlen, kvlen)
		if valid != nil {
			s = x.teSelect(valid, s, x.Broadcast(x.Constant("f32", "-inf"), s.Shape.Dims, nil))
		}
		m := x.Reduce("maximum", s, []int64{4}, "-inf")
		if valid != nil { // a row that sees no key: 0, not -inf - -inf
			m = x.teSelect(x.Emit("compare", "pred", m.Shape.Dims, []*hlo.Instruction{m, x.Broadcast(x.Constant("f32", "-inf"), m.Shape.Dims, nil)}, "direction", "EQ"), x.ScalarLike(m, 0), m)
		}
		p := x.Emit("exponential", "f32", s.Shape.Dims, []*hlo.Instruction{x.Binary("subtract", s, x.teRows(m, s.Shape.Dims))})
		l := x.ReduceSum(p, []int64{4})
		if valid != nil {
			l = x.teSelect(x.Emit("compare", "pred", l.Shape.Dims, []*hlo.Instruction{l, x.ScalarLike(l, 0)}, "direction", "EQ"), x.ScalarLike(l, 1), l)
		}
		odims := []int64{td.b, td.g, n, td.r, td.dv}
		o := x.teDot(x.Convert(p, td.elem), vc, odims, []int64{0, 1}, []int64{0, 2}, []int64{4}, []int64{1})
		o = x.Binary("divide", o, x.teRows(l, odims))
		os = append(os, x.teHeads(o, td, out.Tuple[0].Elem))
		lses = append(lses, x.Binary("add", m, x.Emit("log", "f32", l.Shape.Dims, []*hlo.Instruction{l})))
	}
	o := x.teLayout(x.Concatenate(os, 1), cfg)
	lse := x.Concatenate(lses, 2) // [B,G,Sq,R]
	lse = x.Reshape(x.Transpose(lse, []int64{0, 1, 3, 2}), []int64{td.b, td.h, td.sq, 1})
	if aux := out.Tuple[1]; aux.IsTuple || aux.Elems() != lse.Shape.Elems() {
		return x.Errorf("softmax_aux %s: want %d elements ([B,H,Sq,1])", aux, lse.Shape.Elems())
	} else {
		lse = x.Convert(x.Reshape(lse, aux.Dims), aux.Elem)
	}
	if !hlo.SameShape(o.Shape, out.Tuple[0]) {
		return x.Errorf("the output %s is not [B,Sq,H,Dv] = %v", out.Tuple[0], o.Shape.Dims)
	}
	res := []*hlo.Instruction{o, lse}
	for _, s := range out.Tuple[2:] {
		if s.IsTuple {
			return x.Errorf("the rng_state and workspace outputs are arrays")
		}
		res = append(res, x.teZeros(s))
	}
	x.Emit("tuple", "", nil, res).Shape = out
	return nil
}

func (x *rewriter) teBackward(ops []*hlo.Instruction, cfg teConfig) error {
	out := x.At.Shape
	if len(ops) < 10 || !out.IsTuple || len(out.Tuple) < 3 {
		return x.Errorf("the backward call takes q, k, v, bias, softmax_aux, rng_state, o, do and the sequence lengths, and returns (dq, dk, dv, ...)")
	}
	q, k, v, td, err := x.teArrays(ops, cfg)
	if err != nil {
		return err
	}
	aux, o, do := ops[4], ops[6], ops[7]
	if cfg.layout == teLayoutSBHD {
		o, do = x.Transpose(o, []int64{1, 0, 2, 3}), x.Transpose(do, []int64{1, 0, 2, 3})
	}
	ow := []int64{td.b, td.sq, td.h, td.dv}
	if aux.Shape.IsTuple || aux.Shape.Elems() != td.b*td.h*td.sq || !hlo.EqualDims(o.Shape.Dims, ow) || !hlo.EqualDims(do.Shape.Dims, ow) {
		return x.Errorf("softmax_aux %s, o %s and do %s do not fit q %v", aux.Shape, o.Shape, do.Shape, q.Shape.Dims)
	}
	qlen, err := x.teLengths(ops[8], td, cfg)
	if err != nil {
		return err
	}
	kvlen, err := x.teLengths(ops[9], td, cfg)
	if err != nil {
		return err
	}
	// delta_i = sum over d of do * o: the row term of softmax's gradient.
	prod := x.Binary("multiply", x.Convert(do, "f32"), x.Convert(o, "f32"))
	delta := x.ReduceSum(prod, []int64{3}) // [B,Sq,H]
	delta = x.Transpose(x.Reshape(delta, []int64{td.b, td.sq, td.g, td.r}), []int64{0, 2, 1, 3})
	lse := x.Convert(x.Reshape(aux, []int64{td.b, td.g, td.r, td.sq}), "f32")
	lse = x.Transpose(lse, []int64{0, 1, 3, 2}) // [B,G,Sq,R]
	q5 := x.Reshape(q, []int64{td.b, td.sq, td.g, td.r, td.d})
	do5 := x.Reshape(do, []int64{td.b, td.sq, td.g, td.r, td.dv})
	var dqs []*hlo.Instruction
	var dk, dv *hlo.Instruction // f32 [B,G,Sk,D]
	accumulate := func(acc, part *hlo.Instruction) *hlo.Instruction {
		if keys := part.Shape.Dims[2]; keys < td.sk {
			dims := append([]int64{}, part.Shape.Dims...)
			dims[2] = td.sk
			part = x.Emit("pad", "f32", dims, []*hlo.Instruction{part, x.Constant("f32", "0")},
				"padding", fmt.Sprintf("0_0x0_0x0_%dx0_0", td.sk-keys))
		}
		return x.Binary("add", acc, part)
	}
	block := teBlock(td)
	for q0 := int64(0); q0 < td.sq; q0 += block {
		n := min(block, td.sq-q0)
		keys := teKeys(td, cfg, q0, n)
		qc, kc, vc := x.SliceDim(q5, 1, q0, n), x.SliceDim(k, 1, 0, keys), x.SliceDim(v, 1, 0, keys)
		doc := x.SliceDim(do5, 1, q0, n)
		s, valid := x.teScores(qc, kc, td, cfg, q0, qlen, kvlen)
		sdims := s.Shape.Dims
		p := x.Emit("exponential", "f32", sdims, []*hlo.Instruction{x.Binary("subtract", s, x.teRows(x.SliceDim(lse, 2, q0, n), sdims))})
		if valid != nil {
			p = x.teSelect(valid, p, x.ScalarLike(p, 0))
		}
		dvc := x.teDot(x.Convert(p, td.elem), doc, []int64{td.b, td.g, keys, td.dv}, []int64{0, 1}, []int64{0, 2}, []int64{2, 3}, []int64{1, 3})
		dp := x.teDot(doc, vc, sdims, []int64{0, 2}, []int64{0, 2}, []int64{4}, []int64{3})
		ds := x.Binary("multiply", p, x.Binary("subtract", dp, x.teRows(x.SliceDim(delta, 2, q0, n), sdims)))
		if cfg.scale != 1 {
			ds = x.Binary("multiply", ds, x.ScalarLike(ds, cfg.scale))
		}
		dsc := x.Convert(ds, td.elem)
		dq := x.teDot(dsc, kc, []int64{td.b, td.g, n, td.r, td.d}, []int64{0, 1}, []int64{0, 2}, []int64{4}, []int64{1})
		dqs = append(dqs, x.teHeads(dq, td, out.Tuple[0].Elem))
		dkc := x.teDot(dsc, qc, []int64{td.b, td.g, keys, td.d}, []int64{0, 1}, []int64{0, 2}, []int64{2, 3}, []int64{1, 3})
		if dk == nil {
			dk, dv = x.teZeros(&hlo.Shape{Elem: "f32", Dims: []int64{td.b, td.g, td.sk, td.d}}), x.teZeros(&hlo.Shape{Elem: "f32", Dims: []int64{td.b, td.g, td.sk, td.dv}})
		}
		dk, dv = accumulate(dk, dkc), accumulate(dv, dvc)
	}
	res := []*hlo.Instruction{
		x.teLayout(x.Concatenate(dqs, 1), cfg),
		x.teLayout(x.Convert(x.Transpose(dk, []int64{0, 2, 1, 3}), out.Tuple[1].Elem), cfg),
		x.teLayout(x.Convert(x.Transpose(dv, []int64{0, 2, 1, 3}), out.Tuple[2].Elem), cfg),
	}
	for i, r := range res {
		if !hlo.SameShape(r.Shape, out.Tuple[i]) {
			return x.Errorf("gradient %d is %s; the call says %s", i, r.Shape, out.Tuple[i])
		}
	}
	for _, s := range out.Tuple[3:] {
		if s.IsTuple {
			return x.Errorf("the dbias and workspace outputs are arrays")
		}
		res = append(res, x.teZeros(s))
	}
	x.Emit("tuple", "", nil, res).Shape = out
	return nil
}
