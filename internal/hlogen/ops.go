package hlogen

import (
	"fmt"
	"slices"
	"strings"
)

// op builds one instruction (with the constants and parameters it needs)
// from the values computed so far.
type op struct {
	names string // the opcodes it may emit
	build func(g *gen)
}

// ops are the generator's instructions; Generate chooses among them
// uniformly.
var ops = []op{
	{"negate abs exponential tanh floor ceil sign sqrt rsqrt log logistic sine cosine round-nearest-even round-nearest-afz exponential-minus-one log-plus-one cbrt not popcnt count-leading-zeros", unary},
	{"add subtract multiply divide maximum minimum power remainder atan2 and or xor shift-left shift-right-logical shift-right-arithmetic", binary},
	{"compare", compare},
	{"select", selectOp},
	{"clamp", clamp},
	{"convert", convert},
	{"bitcast-convert", bitcastConvert},
	{"broadcast", broadcast},
	{"reshape", reshape},
	{"transpose", transpose},
	{"slice", slice},
	{"pad", pad},
	{"reverse", reverse},
	{"concatenate", concatenate},
	{"reduce", reduce},
	{"reduce-window", reduceWindow},
	{"select-and-scatter", selectAndScatter},
	{"reduce reduce-window", argReduce},
	{"dot", dot},
	{"convolution", convolution},
	{"ragged-dot", raggedDot},
	{"iota", iota},
	{"rng", rngOp},
	{"constant", constant},
	{"dynamic-slice", dynamicSlice},
	{"dynamic-update-slice", dynamicUpdateSlice},
	{"while get-tuple-element tuple", while},
	{"conditional", conditional},
	{"gather", gather},
	{"scatter", scatter},
	{"reduce-precision", reducePrecision},
	{"sort", sortOp},
	{"infeed outfeed after-all get-tuple-element", feed},
	{"complex real imag fft", complexOp},
}

// exactOps compute the same bits on the chips as in the evaluator: IEEE
// operations correctly rounded, and steps. The others (transcendentals,
// division, sums in another order) differ by rounding, which the check's
// tolerance allows, but which an op that amplifies an ulp into a step
// (compare, convert to an integer, bitcast, floor) would make a difference
// no tolerance covers: the generator applies those to exact values only.
var exactOps = map[string]bool{"negate": true, "abs": true, "floor": true, "ceil": true, "sign": true,
	"round-nearest-even": true, "round-nearest-afz": true, "add": true, "subtract": true, "multiply": true,
	"maximum": true, "minimum": true}

func isFloat(e string) bool {
	return e == "f32" || e == "bf16" || e == "f16" || e == "f64" || strings.HasPrefix(e, "f8")
}
func isUnsigned(e string) bool {
	return e == "u8" || e == "u16" || e == "u32" || e == "u64" || e == "u4"
}

// bits is the width of an element type.
func bits(e string) int {
	switch e {
	case "s4", "u4":
		return 4
	case "pred", "s8", "u8", "f8e4m3fn", "f8e5m2":
		return 8
	case "bf16", "f16", "s16", "u16":
		return 16
	case "f64", "s64", "u64":
		return 64
	}
	return 32
}

// oneOf chooses a word of a space-separated list.
func (g *gen) oneOf(list string) string {
	w := strings.Fields(list)
	return w[g.intn(len(w))]
}

func list[T int | int64](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "{" + strings.Join(s, ",") + "}"
}

func unary(g *gen) {
	v := g.pick()
	var opc string
	switch {
	case isFloat(v.elem) && v.inexact: // no steps: an ulp must not become 1
		opc = g.oneOf("negate abs exponential tanh sqrt rsqrt log logistic sine cosine exponential-minus-one log-plus-one cbrt")
	case isFloat(v.elem):
		opc = g.oneOf("negate abs exponential tanh floor ceil sign sqrt rsqrt log logistic sine cosine round-nearest-even round-nearest-afz exponential-minus-one log-plus-one cbrt")
	case v.elem == "pred":
		opc = "not"
	case isUnsigned(v.elem):
		opc = g.oneOf("not popcnt count-leading-zeros")
	default:
		opc = g.oneOf("negate abs sign not popcnt count-leading-zeros")
	}
	g.emit("u", value{elem: v.elem, dims: v.dims, inexact: v.inexact || isFloat(v.elem) && !exactOps[opc]}, "%s(%s)", opc, v.name)
}

func binary(g *gen) {
	v := g.pick()
	w := g.partner(v)
	var opc string
	switch {
	case isFloat(v.elem) && (v.inexact || w.inexact): // continuous ones only
		opc = g.oneOf("add subtract multiply maximum minimum")
	case isFloat(v.elem):
		opc = g.oneOf("add subtract multiply divide maximum minimum power remainder atan2")
	case v.elem == "pred":
		opc = g.oneOf("and or xor")
	default:
		opc = g.oneOf("add subtract multiply divide remainder maximum minimum and or xor shift-left shift-right-logical shift-right-arithmetic")
	}
	g.emit("b", value{elem: v.elem, dims: v.dims, inexact: v.inexact || w.inexact || isFloat(v.elem) && !exactOps[opc]}, "%s(%s, %s)", opc, v.name, w.name)
}

func (g *gen) cmp(v, w value) value {
	return g.emit("cmp", value{elem: "pred", dims: v.dims}, "compare(%s, %s), direction=%s", v.name, w.name, g.oneOf("EQ NE LT LE GT GE"))
}

func compare(g *gen) {
	v := g.pick()
	if w := g.partner(v); !v.inexact && !w.inexact {
		g.cmp(v, w)
	}
}

func selectOp(g *gen) {
	v := g.pick()
	w := g.partner(v)
	var p value
	if g.intn(2) == 0 && !v.inexact && !w.inexact {
		p = g.cmp(v, w)
	} else {
		p = g.param(value{elem: "pred", dims: v.dims})
	}
	g.emit("sel", value{elem: v.elem, dims: v.dims, inexact: v.inexact || w.inexact}, "select(%s, %s, %s)", p.name, v.name, w.name)
}

// literal is a small constant of elem chosen from the stream.
func (g *gen) literal(elem string) string {
	switch {
	case elem == "pred":
		return []string{"false", "true"}[g.intn(2)]
	case isFloat(elem):
		return []string{"0", "1", "-1", "0.5", "-0.25", "2", "3.75", "-3"}[g.intn(8)]
	case isUnsigned(elem):
		return fmt.Sprint(g.intn(9))
	}
	return fmt.Sprint(g.intn(9) - 4)
}

func clamp(g *gen) {
	v := g.pick()
	if v.elem == "pred" {
		return
	}
	lo := g.scalar(v.elem, g.literal(v.elem))
	hi := g.scalar(v.elem, g.literal(v.elem))
	if len(v.dims) > 0 && g.intn(2) == 0 {
		lo = g.emit("bc", value{elem: v.elem, dims: v.dims}, "broadcast(%s), dimensions={}", lo.name)
	}
	g.emit("clamp", value{elem: v.elem, dims: v.dims, inexact: v.inexact}, "clamp(%s, %s, %s)", lo.name, v.name, hi.name)
}

func convert(g *gen) {
	v := g.pick()
	to := dtypes[g.intn(len(dtypes))]
	if v.inexact && !isFloat(to) {
		return // an ulp's difference could round to another integer
	}
	g.emit("cvt", value{elem: to, dims: v.dims, inexact: v.inexact}, "convert(%s)", v.name)
}

// bitcastConvert reinterprets the bits of v as another type of its width.
func bitcastConvert(g *gen) {
	v := g.pick()
	if v.inexact {
		return // an ulp's difference would be a different integer
	}
	var to []string
	for _, e := range []string{"f32", "s32", "u32", "bf16", "f16", "s16", "u16", "s8", "u8", "f64", "s64", "u64"} {
		if e != v.elem && bits(e) == bits(v.elem) && v.elem != "pred" {
			to = append(to, e)
		}
	}
	if len(to) == 0 {
		return
	}
	g.emit("bcv", value{elem: to[g.intn(len(to))], dims: v.dims}, "bitcast-convert(%s)", v.name)
}

func broadcast(g *gen) {
	v := g.pick()
	out := slices.Clone(v.dims)
	var at []int // where each of v's dims lands
	for i := range v.dims {
		at = append(at, i)
	}
	for k := 1 + g.intn(2); k > 0 && len(out) < 5; k-- {
		size := g.dim()
		for size > 1 && (value{dims: out}).elems()*size > g.maxElems {
			size /= 2
		}
		pos := g.intn(len(out) + 1)
		out = slices.Insert(out, pos, size)
		for i := range at {
			if at[i] >= pos {
				at[i]++
			}
		}
	}
	g.emit("bc", value{elem: v.elem, dims: out, inexact: v.inexact}, "broadcast(%s), dimensions=%s", v.name, list(at))
}

func reshape(g *gen) {
	v := g.pick()
	d := slices.Clone(v.dims)
	switch g.intn(5) {
	case 0: // merge two adjacent dims
		if len(d) >= 2 {
			i := g.intn(len(d) - 1)
			d = slices.Replace(d, i, i+2, d[i]*d[i+1])
		}
	case 1: // split a dim by its smallest factor
		if len(d) > 0 && len(d) < 5 {
			i := g.intn(len(d))
			for f := int64(2); f < d[i]; f++ {
				if d[i]%f == 0 {
					d = slices.Replace(d, i, i+1, f, d[i]/f)
					break
				}
			}
		}
	case 2: // insert a dim of 1
		if len(d) < 5 {
			d = slices.Insert(d, g.intn(len(d)+1), 1)
		}
	case 3: // drop a dim of 1
		if i := slices.Index(d, 1); i >= 0 {
			d = slices.Delete(d, i, i+1)
		}
	default: // flatten
		d = []int64{v.elems()}
	}
	g.emit("rs", value{elem: v.elem, dims: d, inexact: v.inexact}, "reshape(%s)", v.name)
}

func transpose(g *gen) {
	v := g.pick()
	perm := make([]int, len(v.dims))
	for i := range perm {
		perm[i] = i
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := make([]int64, len(perm))
	for i, p := range perm {
		out[i] = v.dims[p]
	}
	g.emit("tr", value{elem: v.elem, dims: out, inexact: v.inexact}, "transpose(%s), dimensions=%s", v.name, list(perm))
}

func slice(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	out := make([]int64, len(v.dims))
	spec := make([]string, len(v.dims))
	for i, d := range v.dims {
		start := int64(g.intn(int(d)))
		limit := start + 1 + int64(g.intn(int(d-start)))
		stride := int64(1 + g.intn(3))
		out[i] = (limit - start + stride - 1) / stride
		spec[i] = fmt.Sprintf("[%d:%d:%d]", start, limit, stride)
	}
	g.emit("sl", value{elem: v.elem, dims: out, inexact: v.inexact}, "slice(%s), slice={%s}", v.name, strings.Join(spec, ", "))
}

// rest is the number of elements of dims[i:].
func rest(dims []int64, i int) int64 {
	return value{dims: dims[i:]}.elems()
}

func pad(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	out := make([]int64, len(v.dims))
	spec := make([]string, len(v.dims))
	n := int64(1) // the padded dims so far; n * rest(i) <= maxElems holds
	for i, d := range v.dims {
		lo, hi, in := int64(g.intn(5)-1), int64(g.intn(5)-1), int64(g.intn(3))
		size := lo + hi + d + (d-1)*in
		if size < 1 || n*size*rest(v.dims, i+1) > g.maxElems {
			lo, hi, in, size = 0, 0, 0, d
		}
		out[i], n = size, n*size
		spec[i] = fmt.Sprintf("%d_%d_%d", lo, hi, in)
	}
	c := g.scalar(v.elem, g.literal(v.elem))
	g.emit("pad", value{elem: v.elem, dims: out, inexact: v.inexact}, "pad(%s, %s), padding=%s", v.name, c.name, strings.Join(spec, "x"))
}

func reverse(g *gen) {
	v := g.pick()
	var dims []int
	for i := range v.dims {
		if g.intn(2) == 0 {
			dims = append(dims, i)
		}
	}
	g.emit("rev", value{elem: v.elem, dims: v.dims, inexact: v.inexact}, "reverse(%s), dimensions=%s", v.name, list(dims))
}

func concatenate(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	d := g.intn(len(v.dims))
	w := v
	if g.intn(2) == 0 {
		wd := slices.Clone(v.dims)
		wd[d] = g.dim()
		w = value{elem: v.elem, dims: wd}
	}
	out := slices.Clone(v.dims)
	out[d] += w.dims[d]
	if (value{dims: out}).elems() > g.maxElems {
		return
	}
	if w.name == "" {
		w = g.param(w)
	}
	g.emit("cat", value{elem: v.elem, dims: out, inexact: v.inexact || w.inexact}, "concatenate(%s, %s), dimensions={%d}", v.name, w.name, d)
}

// lowest and highest are the identities of maximum and minimum.
func lowest(e string) string {
	switch e {
	case "pred":
		return "false"
	case "s4":
		return "-8"
	case "s8":
		return "-128"
	case "s16":
		return "-32768"
	case "s32":
		return "-2147483648"
	case "s64":
		return "-9223372036854775808"
	case "f8e4m3fn":
		return "-448" // no infinities
	}
	if isUnsigned(e) {
		return "0"
	}
	return "-inf"
}

func highest(e string) string {
	switch e {
	case "pred":
		return "true"
	case "f8e4m3fn":
		return "448" // no infinities
	case "s4":
		return "7"
	case "u4":
		return "15"
	case "s8":
		return "127"
	case "s16":
		return "32767"
	case "s32":
		return "2147483647"
	case "u8":
		return "255"
	case "u16":
		return "65535"
	case "u32":
		return "4294967295"
	case "s64":
		return "9223372036854775807"
	case "u64":
		return "18446744073709551615"
	}
	return "inf"
}

// reducer returns the name of the computation combining two elem scalars
// with opc, adding it to the module the first time.
func (g *gen) reducer(opc, elem string) string {
	name := opc + "_" + elem
	if _, ok := g.helpers[name]; !ok {
		g.helpers[name] = fmt.Sprintf("%s {\n  %s.a = %s[] parameter(0)\n  %s.b = %s[] parameter(1)\n  ROOT %s.r = %s[] %s(%s.a, %s.b)\n}\n",
			name, name, elem, name, elem, name, elem, opc, name, name)
	}
	return name
}

// monoid chooses a reduction for elem: its combiner and identity.
func (g *gen) monoid(elem string) (opc, init string) {
	switch {
	case elem == "pred":
		if g.intn(2) == 0 {
			return "and", "true"
		}
		return "or", "false"
	}
	switch g.intn(4) {
	case 0:
		return "maximum", lowest(elem)
	case 1:
		return "minimum", highest(elem)
	}
	return "add", "0"
}

func reduce(g *gen) {
	v := g.pick()
	var dims []int
	var out []int64
	for i, d := range v.dims {
		if g.intn(2) == 0 {
			dims = append(dims, i)
		} else {
			out = append(out, d)
		}
	}
	opc, init := g.monoid(v.elem)
	c := g.scalar(v.elem, init)
	g.emit("red", value{elem: v.elem, dims: out, inexact: v.inexact || isFloat(v.elem) && opc == "add"}, "reduce(%s, %s), dimensions=%s, to_apply=%s", v.name, c.name, list(dims), g.reducer(opc, v.elem))
}

func reduceWindow(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 || v.elem == "pred" {
		return
	}
	out := make([]int64, len(v.dims))
	var size, stride, padding []string
	n := int64(1) // as in pad
	for i, d := range v.dims {
		s, st, lo, hi := int64(1+g.intn(3)), int64(1+g.intn(2)), int64(g.intn(2)), int64(g.intn(2))
		if d+lo+hi < s || n*((d+lo+hi-s)/st+1)*rest(v.dims, i+1) > g.maxElems {
			s, lo, hi = 1, 0, 0
		}
		out[i] = (d+lo+hi-s)/st + 1
		n *= out[i]
		size = append(size, fmt.Sprint(s))
		stride = append(stride, fmt.Sprint(st))
		padding = append(padding, fmt.Sprintf("%d_%d", lo, hi))
	}
	opc, init := g.monoid(v.elem)
	c := g.scalar(v.elem, init)
	g.emit("rw", value{elem: v.elem, dims: out, inexact: v.inexact || isFloat(v.elem) && opc == "add"}, "reduce-window(%s, %s), window={size=%s stride=%s pad=%s}, to_apply=%s",
		v.name, c.name, strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(padding, "x"), g.reducer(opc, v.elem))
}

// argReduce is an argmax or argmin: a variadic reduce or reduce-window of
// a value and an iota of its positions, ties to the lower position (an
// order that makes the reducer associative, so a reduce's tree and the
// evaluator's sequential fold agree). Float keys are parameters only: a
// computed float may be NaN, which no comparison orders.
func argReduce(g *gen) {
	v, ok := g.pickWhere(func(v value) bool {
		return !v.inexact && len(v.dims) > 0 && v.elem != "pred" && (!isFloat(v.elem) || strings.HasPrefix(v.name, "p."))
	})
	if !ok {
		return
	}
	dir, init := "GT", lowest(v.elem)
	if g.intn(2) == 0 {
		dir, init = "LT", highest(v.elem)
	}
	name := fmt.Sprintf("arg_%s_%s", dir, v.elem)
	if _, ok := g.helpers[name]; !ok {
		g.helpers[name] = fmt.Sprintf(`%[1]s {
  %[1]s.a0 = %[2]s[] parameter(0)
  %[1]s.a1 = s32[] parameter(1)
  %[1]s.x0 = %[2]s[] parameter(2)
  %[1]s.x1 = s32[] parameter(3)
  %[1]s.better = pred[] compare(%[1]s.x0, %[1]s.a0), direction=%[3]s
  %[1]s.eq = pred[] compare(%[1]s.x0, %[1]s.a0), direction=EQ
  %[1]s.first = pred[] compare(%[1]s.x1, %[1]s.a1), direction=LT
  %[1]s.tie = pred[] and(%[1]s.eq, %[1]s.first)
  %[1]s.take = pred[] or(%[1]s.better, %[1]s.tie)
  %[1]s.m = %[2]s[] select(%[1]s.take, %[1]s.x0, %[1]s.a0)
  %[1]s.n = s32[] select(%[1]s.take, %[1]s.x1, %[1]s.a1)
  ROOT %[1]s.r = (%[2]s[], s32[]) tuple(%[1]s.m, %[1]s.n)
}
`, name, v.elem, dir)
	}
	idx := g.emit("pos", value{elem: "s32", dims: v.dims}, "iota(), iota_dimension=%d", g.intn(len(v.dims)))
	vi := g.scalar(v.elem, init)
	ii := g.scalar("s32", "-1")
	var out []int64
	var attrs, opcode string
	if g.intn(2) == 0 {
		var dims []int
		for i, d := range v.dims {
			if g.intn(2) == 0 {
				dims = append(dims, i)
			} else {
				out = append(out, d)
			}
		}
		opcode, attrs = "reduce", "dimensions="+list(dims)
	} else {
		var size, stride, padding []string
		for _, d := range v.dims {
			s, st, lo, hi := int64(1+g.intn(3)), int64(1+g.intn(2)), int64(g.intn(2)), int64(g.intn(2))
			if d+lo+hi < s {
				s, lo, hi = 1, 0, 0
			}
			out = append(out, (d+lo+hi-s)/st+1)
			size = append(size, fmt.Sprint(s))
			stride = append(stride, fmt.Sprint(st))
			padding = append(padding, fmt.Sprintf("%d_%d", lo, hi))
		}
		opcode, attrs = "reduce-window", fmt.Sprintf("window={size=%s stride=%s pad=%s}", strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(padding, "x"))
	}
	if (value{dims: out}).elems() > g.maxElems {
		return
	}
	vt, it := g.typ(value{elem: v.elem, dims: out}), g.typ(value{elem: "s32", dims: out})
	t := g.name("arg")
	g.body = append(g.body, fmt.Sprintf("  %s = (%s, %s) %s(%s, %s, %s, %s), %s, to_apply=%s", t, vt, it, opcode, v.name, idx.name, vi.name, ii.name, attrs, name))
	g.emit("argv", value{elem: v.elem, dims: out, typ: vt}, "get-tuple-element(%s), index=0", t)
	g.emit("argi", value{elem: "s32", dims: out, typ: it}, "get-tuple-element(%s), index=1", t)
}

// selectAndScatter is a pooling gradient: windows of an exact operand
// (the select computation compares, which an ulp of rounding would flip),
// each window's preferred element receiving a source element.
func selectAndScatter(g *gen) {
	v, ok := g.pickWhere(func(v value) bool { return !v.inexact && len(v.dims) > 0 && v.elem != "pred" })
	if !ok {
		return
	}
	src := make([]int64, len(v.dims))
	var size, stride, padding []string
	for i, d := range v.dims {
		s, st, lo, hi := int64(1+g.intn(3)), int64(1+g.intn(3)), int64(g.intn(2)), int64(g.intn(2))
		if d+lo+hi < s {
			s, lo, hi = 1, 0, 0
		}
		src[i] = (d+lo+hi-s)/st + 1
		size = append(size, fmt.Sprint(s))
		stride = append(stride, fmt.Sprint(st))
		padding = append(padding, fmt.Sprintf("%d_%d", lo, hi))
	}
	if (value{dims: src}).elems() > g.maxElems {
		return // padding grew the windows past the budget
	}
	dir := []string{"GE", "GT", "LE", "LT"}[g.intn(4)]
	name := fmt.Sprintf("select_%s_%s", dir, v.elem)
	if _, ok := g.helpers[name]; !ok {
		g.helpers[name] = fmt.Sprintf("%[1]s {\n  %[1]s.a = %[2]s[] parameter(0)\n  %[1]s.b = %[2]s[] parameter(1)\n  ROOT %[1]s.r = pred[] compare(%[1]s.a, %[1]s.b), direction=%[3]s\n}\n",
			name, v.elem, dir)
	}
	opc := []string{"add", "maximum"}[g.intn(2)]
	source := g.param(value{elem: v.elem, dims: src})
	init := g.scalar(v.elem, "0")
	g.emit("sas", value{elem: v.elem, dims: v.dims, inexact: isFloat(v.elem) && opc == "add"},
		"select-and-scatter(%s, %s, %s), window={size=%s stride=%s pad=%s}, select=%s, scatter=%s",
		v.name, source.name, init.name, strings.Join(size, "x"), strings.Join(stride, "x"), strings.Join(padding, "x"), name, g.reducer(opc, v.elem))
}

// maxConvMACs bounds a generated convolution's multiply-adds: the chips
// expand it into a dot per window position, simulated element by element.
const maxConvMACs = 1 << 20

// convolution is a 1-D or 2-D convolution, channels last or first, with
// strides, padding, dilations and feature groups (depthwise included).
func convolution(g *gen) {
	lhs, ok := g.pickWhere(func(v value) bool {
		return (v.elem == "f32" || v.elem == "bf16" || v.elem == "f16") && (len(v.dims) == 3 || len(v.dims) == 4)
	})
	if !ok {
		v := value{elem: []string{"f32", "f32", "bf16"}[g.intn(3)], dims: []int64{1 + int64(g.intn(3)), g.dim(), g.dim()}}
		if g.intn(2) == 0 {
			v.dims = append(v.dims, 1+int64(g.intn(8)))
		}
		g.fit(&v)
		lhs = g.param(v)
	}
	r := len(lhs.dims)
	sp := r - 2
	// Channels last (b 0 1 f) or first (b f 0 1).
	last := g.intn(2) == 0
	bDim, fDim := 0, r-1
	spatial := make([]int, sp)
	for i := range spatial {
		spatial[i] = 1 + i
	}
	if !last {
		fDim = 1
		for i := range spatial {
			spatial[i] = 2 + i
		}
	}
	inF := lhs.dims[fDim]
	groups := int64(1)
	if g.intn(3) == 0 && inF > 1 {
		groups = inF // depthwise
	}
	outF := groups * int64(1+g.intn(3))
	var size, stride, pad, lhsDil, rhsDil []string
	var outSpatial, kSpatial []int64
	for _, d := range spatial {
		n := lhs.dims[d]
		k, st, lo, hi := int64(1+g.intn(3)), int64(1+g.intn(2)), int64(g.intn(2)), int64(g.intn(2))
		ld, rd := int64(1), int64(1)
		if g.intn(6) == 0 {
			ld = 2
		}
		if g.intn(6) == 0 {
			rd = 2
		}
		in := (n-1)*ld + 1 + lo + hi
		kd := (k-1)*rd + 1
		if in < kd {
			k, rd, kd = 1, 1, 1
		}
		outSpatial = append(outSpatial, (in-kd)/st+1)
		kSpatial = append(kSpatial, k)
		size = append(size, fmt.Sprint(k))
		stride = append(stride, fmt.Sprint(st))
		pad = append(pad, fmt.Sprintf("%d_%d", lo, hi))
		lhsDil = append(lhsDil, fmt.Sprint(ld))
		rhsDil = append(rhsDil, fmt.Sprint(rd))
	}
	// The kernel: spatial dims, then input features (per group), then
	// output features ("01io").
	kdims := append(slices.Clone(kSpatial), inF/groups, outF)
	out := []int64{lhs.dims[bDim]}
	if !last {
		out = append(out, outF)
	}
	out = append(out, outSpatial...)
	if last {
		out = append(out, outF)
	}
	macs := (value{dims: out}).elems() * (value{dims: kSpatial}).elems() * (inF / groups)
	if macs > maxConvMACs || (value{dims: out}).elems() > g.maxElems || (value{dims: kdims}).elems() > g.maxElems {
		return
	}
	w := g.param(value{elem: lhs.elem, dims: kdims})
	sd := "01"[:sp]
	labels := "b" + sd + "f_" + sd + "io->b" + sd + "f"
	if !last {
		labels = "bf" + sd + "_" + sd + "io->bf" + sd
	}
	win := fmt.Sprintf("size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s", strings.Join(size, "x"), strings.Join(stride, "x"),
		strings.Join(pad, "x"), strings.Join(lhsDil, "x"), strings.Join(rhsDil, "x"))
	elem := lhs.elem
	if elem != "f32" && g.intn(2) == 0 {
		elem = "f32"
	}
	g.emit("conv", value{elem: elem, dims: out, inexact: true}, "convolution(%s, %s), window={%s}, dim_labels=%s, feature_group_count=%d",
		lhs.name, w.name, win, labels, groups)
}

// raggedDot is a mixture of experts' grouped matmul: the rows of a
// [m,k] lhs cut into groups by a group_sizes parameter, each group
// multiplied by its expert's [k,n] slice of the rhs.
func raggedDot(g *gen) {
	lhs, ok := g.pickWhere(func(v value) bool {
		return (v.elem == "f32" || v.elem == "bf16") && len(v.dims) == 2
	})
	if !ok {
		v := value{elem: "f32", dims: []int64{g.dim(), g.dim()}}
		g.fit(&v)
		lhs = g.param(v)
	}
	m, k := lhs.dims[0], lhs.dims[1]
	groups, n := int64(1+g.intn(4)), int64(1+g.intn(9))
	if groups*k*n > g.maxElems || m*n > g.maxElems {
		return
	}
	w := g.param(value{elem: lhs.elem, dims: []int64{groups, k, n}})
	sizes := g.param(value{elem: "s32", dims: []int64{groups}})
	g.emit("rdot", value{elem: "f32", dims: []int64{m, n}, inexact: true},
		"ragged-dot(%s, %s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}", lhs.name, w.name, sizes.name)
}

func dot(g *gen) {
	lhs, ok := g.pickWhere(func(v value) bool {
		return (v.elem == "f32" || v.elem == "bf16" || v.elem == "f16" || v.elem == "s8" || v.elem == "s4") && len(v.dims) >= 1
	})
	if !ok {
		v := value{elem: "f32", dims: []int64{g.dim(), g.dim()}}
		g.fit(&v)
		lhs = g.param(v)
	}
	r := len(lhs.dims)
	nb := g.intn(min(3, r))
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	for i := r - 1; i > 0; i-- {
		j := g.intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	batch, contract := perm[:nb], perm[nb]
	slices.Sort(batch)
	var out, rhs []int64
	var rb []int
	for i, b := range batch {
		out = append(out, lhs.dims[b])
		rhs = append(rhs, lhs.dims[b])
		rb = append(rb, i)
	}
	for i, d := range lhs.dims {
		if i != contract && !slices.Contains(batch, i) {
			out = append(out, d)
		}
	}
	n := g.dim()
	for n > 1 && max((value{dims: out}).elems(), (value{dims: rhs}).elems()*lhs.dims[contract])*n > g.maxElems {
		n /= 2
	}
	if (value{dims: rhs}).elems()*lhs.dims[contract]*n > g.maxElems {
		return // the weights alone would be too big
	}
	rc := nb
	if g.intn(2) == 0 {
		rhs = append(rhs, lhs.dims[contract], n)
	} else {
		rhs, rc = append(rhs, n, lhs.dims[contract]), nb+1
	}
	out = append(out, n)
	w := g.param(value{elem: lhs.elem, dims: rhs})
	elem := lhs.elem
	switch {
	case elem == "s8" || elem == "s4":
		elem = "s32" // int8 x int8 summed in int32, as on the MXUs
	case elem != "f32" && g.intn(2) == 0:
		elem = "f32"
	}
	g.emit("dot", value{elem: elem, dims: out, inexact: isFloat(elem)}, "dot(%s, %s), lhs_batch_dims=%s, lhs_contracting_dims={%d}, rhs_batch_dims=%s, rhs_contracting_dims={%d}",
		lhs.name, w.name, list(batch), contract, list(rb), rc)
}

func iota(g *gen) {
	v := g.shape()
	if len(v.dims) == 0 {
		v.dims = []int64{g.dim()}
	}
	v.elem = g.oneOf("s32 f32 u32 bf16 s8")
	g.emit("iota", v, "iota(), iota_dimension=%d", g.intn(len(v.dims)))
}

// rngOp draws uniform floats or integers, or normal floats (inexact: a
// logarithm, a square root and a cosine each round).
func rngOp(g *gen) {
	v := g.shape()
	switch g.intn(3) {
	case 0:
		v.elem = g.oneOf("f32 bf16 f16")
		a, b := g.scalar(v.elem, "-1.5"), g.scalar(v.elem, "2")
		g.emit("rng", v, "rng(%s, %s), distribution=rng_uniform", a.name, b.name)
	case 1:
		v.elem, v.inexact = g.oneOf("f32 bf16"), true
		a, b := g.scalar(v.elem, "0.5"), g.scalar(v.elem, "2")
		g.emit("rng", v, "rng(%s, %s), distribution=rng_normal", a.name, b.name)
	default:
		v.elem = g.oneOf("s32 s8 u8 u32")
		lo, hi := g.intn(50), 50+g.intn(5000)
		if v.elem == "s8" || v.elem == "u8" {
			hi = min(hi, 127)
		}
		a, b := g.scalar(v.elem, fmt.Sprint(lo)), g.scalar(v.elem, fmt.Sprint(hi))
		g.emit("rng", v, "rng(%s, %s), distribution=rng_uniform", a.name, b.name)
	}
}

func constant(g *gen) {
	elem := dtypes[g.intn(len(dtypes))]
	n := 1 + g.intn(6)
	lits := make([]string, n)
	for i := range lits {
		lits[i] = g.literal(elem)
	}
	g.emit("k", value{elem: elem, dims: []int64{int64(n)}}, "constant({%s})", strings.Join(lits, ", "))
}

// indices emits one s32 scalar start index per dim of v: constants (some
// beyond the bounds, which clamp) or parameters.
func (g *gen) indices(v value) []string {
	idx := make([]string, len(v.dims))
	for i, d := range v.dims {
		if g.intn(3) == 0 {
			idx[i] = g.param(value{elem: "s32"}).name
		} else {
			idx[i] = g.scalar("s32", fmt.Sprint(g.intn(int(d)+2)-1)).name
		}
	}
	return idx
}

// sub chooses extents at most v's.
func (g *gen) sub(v value) []int64 {
	s := make([]int64, len(v.dims))
	for i, d := range v.dims {
		s[i] = 1 + int64(g.intn(int(d)))
	}
	return s
}

func dynamicSlice(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	sizes := g.sub(v)
	idx := g.indices(v)
	g.emit("ds", value{elem: v.elem, dims: sizes, inexact: v.inexact}, "dynamic-slice(%s, %s), dynamic_slice_sizes=%s", v.name, strings.Join(idx, ", "), list(sizes))
}

func dynamicUpdateSlice(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	u := g.param(value{elem: v.elem, dims: g.sub(v)})
	idx := g.indices(v)
	g.emit("dus", value{elem: v.elem, dims: v.dims, inexact: v.inexact}, "dynamic-update-slice(%s, %s, %s)", v.name, u.name, strings.Join(idx, ", "))
}

// while repeats an elementwise op on v a few times in a counted loop.
func while(g *gen) {
	v := g.pick()
	trip := 1 + g.intn(4)
	opc := "add"
	switch {
	case v.elem == "pred":
		opc = "xor"
	case isFloat(v.elem) && g.intn(2) == 0:
		opc = "multiply"
	}
	k := g.next + 1
	state := fmt.Sprintf("(s32[], %s)", v.typ)
	cond, body := fmt.Sprintf("cond.%d", k), fmt.Sprintf("body.%d", k)
	g.helpers[cond] = fmt.Sprintf("%s {\n  %s.p = %s parameter(0)\n  %s.i = s32[] get-tuple-element(%s.p), index=0\n  %s.n = s32[] constant(%d)\n  ROOT %s.lt = pred[] compare(%s.i, %s.n), direction=LT\n}\n",
		cond, cond, state, cond, cond, cond, trip, cond, cond, cond)
	g.helpers[body] = fmt.Sprintf("%s {\n  %s.p = %s parameter(0)\n  %s.i = s32[] get-tuple-element(%s.p), index=0\n  %s.one = s32[] constant(1)\n  %s.i2 = s32[] add(%s.i, %s.one)\n  %s.x = %s get-tuple-element(%s.p), index=1\n  %s.y = %s %s(%s.x, %s.x)\n  ROOT %s.t = %s tuple(%s.i2, %s.y)\n}\n",
		body, body, state, body, body, body, body, body, body, body, v.typ, body, body, v.typ, opc, body, body, body, state, body, body)
	zero := g.scalar("s32", "0")
	t := g.name("t")
	g.body = append(g.body, fmt.Sprintf("  %s = %s tuple(%s, %s)", t, state, zero.name, v.name))
	w := g.name("w")
	g.body = append(g.body, fmt.Sprintf("  %s = %s while(%s), condition=%s, body=%s", w, state, t, cond, body))
	g.emit("loop", value{elem: v.elem, dims: v.dims, typ: v.typ, inexact: v.inexact}, "get-tuple-element(%s), index=1", w)
}

// conditional applies one of two elementwise computations to v, chosen by
// a pred parameter or a comparison of scalars.
func conditional(g *gen) {
	v := g.pick()
	k := g.next + 1
	on, off := fmt.Sprintf("then.%d", k), fmt.Sprintf("else.%d", k)
	f, h := "negate", "add"
	switch {
	case v.elem == "pred":
		f, h = "not", "xor"
	case isUnsigned(v.elem):
		f = "not"
	}
	g.helpers[on] = fmt.Sprintf("%s {\n  %s.p = %s parameter(0)\n  ROOT %s.r = %s %s(%s.p)\n}\n", on, on, v.typ, on, v.typ, f, on)
	g.helpers[off] = fmt.Sprintf("%s {\n  %s.p = %s parameter(0)\n  ROOT %s.r = %s %s(%s.p, %s.p)\n}\n", off, off, v.typ, off, v.typ, h, off, off)
	var p value
	if s, ok := g.pickWhere(func(w value) bool { return len(w.dims) == 0 && w.elem != "pred" && !w.inexact }); ok && g.intn(2) == 0 {
		p = g.cmp(s, s)
	} else {
		p = g.param(value{elem: "pred"})
	}
	g.emit("cond", value{elem: v.elem, dims: v.dims, typ: v.typ, inexact: v.inexact},
		"conditional(%s, %s, %s), true_computation=%s, false_computation=%s", p.name, v.name, v.name, on, off)
}

// gather takes n slices of v along one dim, at indices from an s32
// parameter (the random arguments are 0 to 7: some beyond small dims,
// which clamp).
func gather(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 {
		return
	}
	k := g.intn(len(v.dims))
	rest := v.elems() / v.dims[k]
	n := min(g.dim(), max(g.maxElems/rest, 1))
	idx := g.param(value{elem: "s32", dims: []int64{n, 1}})
	out := []int64{n}
	sizes := slices.Clone(v.dims)
	sizes[k] = 1
	var offset []int
	for i, d := range v.dims {
		if i != k {
			offset = append(offset, len(out))
			out = append(out, d)
		}
	}
	g.emit("g", value{elem: v.elem, dims: out, inexact: v.inexact},
		"gather(%s, %s), offset_dims=%s, collapsed_slice_dims={%d}, start_index_map={%d}, index_vector_dim=1, slice_sizes=%s",
		v.name, idx.name, list(offset), k, k, list(sizes))
}

// scatter combines n updates into v along one dim with add, maximum or
// minimum (commutative: duplicate indices give one answer).
func scatter(g *gen) {
	v := g.pick()
	if len(v.dims) == 0 || v.elem == "pred" {
		return
	}
	k := g.intn(len(v.dims))
	rest := v.elems() / v.dims[k]
	n := min(g.dim(), max(g.maxElems/rest, 1))
	idx := g.param(value{elem: "s32", dims: []int64{n, 1}})
	ud := []int64{n}
	var window []int
	for i, d := range v.dims {
		if i != k {
			window = append(window, len(ud))
			ud = append(ud, d)
		}
	}
	u := g.param(value{elem: v.elem, dims: ud})
	opc, _ := g.monoid(v.elem)
	g.emit("sc", value{elem: v.elem, dims: v.dims, inexact: v.inexact || isFloat(v.elem) && opc == "add"},
		"scatter(%s, %s, %s), update_window_dims=%s, inserted_window_dims={%d}, scatter_dims_to_operand_dims={%d}, index_vector_dim=1, to_apply=%s",
		v.name, idx.name, u.name, list(window), k, k, g.reducer(opc, v.elem))
}

// reducePrecision rounds a float value to bf16's or f16's precision.
func reducePrecision(g *gen) {
	v, ok := g.pickWhere(func(w value) bool { return isFloat(w.elem) })
	if !ok {
		return
	}
	bits := [][2]int{{8, 7}, {5, 10}, {8, 23}}[g.intn(3)]
	g.emit("rp", value{elem: v.elem, dims: v.dims, inexact: v.inexact}, "reduce-precision(%s), exponent_bits=%d, mantissa_bits=%d", v.name, bits[0], bits[1])
}

// sortOp sorts a value along one dimension, ascending or descending,
// alone or with a payload of the same dims that moves with it. Float keys
// are parameters only, in total order: a computed float may be NaN, which
// a plain less-than leaves unordered against everything, and the order a
// sort then gives depends on its algorithm, not on its definition.
func sortOp(g *gen) {
	v, ok := g.pickWhere(func(v value) bool {
		// At most 1K elements: Go's fuzzer kills a worker whose input
		// runs 10 s ("hung or terminated unexpectedly: exit status 2"),
		// and a network over 4K elements took 3.8 s on four simulations
		// uninstrumented, over 10 s under coverage instrumentation.
		return !v.inexact && len(v.dims) > 0 && v.elems() <= 1<<10 && (!isFloat(v.elem) || strings.HasPrefix(v.name, "p."))
	})
	if !ok {
		return
	}
	d := g.intn(len(v.dims))
	dir := []string{"LT", "GT"}[g.intn(2)]
	typ := ""
	if isFloat(v.elem) {
		typ = ", type=TOTALORDER"
	}
	ops := []value{v}
	if g.intn(2) == 0 {
		w, ok := g.pickWhere(func(w value) bool { return slices.Equal(w.dims, v.dims) && w.name != v.name })
		if !ok {
			w = g.param(value{elem: dtypes[g.intn(len(dtypes))], dims: v.dims})
		}
		ops = append(ops, w)
	}
	name := fmt.Sprintf("sortcmp.%d", g.next+1)
	c := name + " {\n"
	var names, types []string
	for i, o := range ops {
		c += fmt.Sprintf("  %s.a%d = %s[] parameter(%d)\n  %s.b%d = %s[] parameter(%d)\n", name, i, o.elem, 2*i, name, i, o.elem, 2*i+1)
		names = append(names, o.name)
		types = append(types, o.typ)
	}
	g.helpers[name] = c + fmt.Sprintf("  ROOT %s.r = pred[] compare(%s.a0, %s.b0), direction=%s%s\n}\n", name, name, name, dir, typ)
	attrs := fmt.Sprintf("dimensions={%d}, to_apply=%s", d, name)
	if len(ops) == 1 {
		g.emit("sort", value{elem: v.elem, dims: v.dims, typ: v.typ}, "sort(%s), %s", v.name, attrs)
		return
	}
	t := g.name("sort")
	g.body = append(g.body, fmt.Sprintf("  %s = (%s) sort(%s), %s", t, strings.Join(types, ", "), strings.Join(names, ", "), attrs))
	for i, o := range ops {
		g.emit("sorted", value{elem: o.elem, dims: o.dims, typ: o.typ, inexact: o.inexact}, "get-tuple-element(%s), index=%d", t, i)
	}
}

// feed reads an array from the host's infeed queue or sends a value to
// the outfeed queue. Every infeed of a module reads one shape (g.infeed),
// so that the harness's random records (eval.RandomInfeed) fit them all.
func feed(g *gen) {
	tok := g.name("tok")
	g.body = append(g.body, fmt.Sprintf("  %s = token[] after-all()", tok))
	if g.intn(2) == 0 {
		v := g.pick()
		g.body = append(g.body, fmt.Sprintf("  %s = token[] outfeed(%s, %s), outfeed_shape=%s", g.name("of"), v.name, tok, v.typ))
		return
	}
	if g.infeed == nil {
		v := g.shape()
		v.typ = g.typ(v)
		g.infeed = &v
	}
	in := g.name("in")
	g.body = append(g.body, fmt.Sprintf("  %s = (%s, token[]) infeed(%s)", in, g.infeed.typ, tok))
	g.emit("fed", value{elem: g.infeed.elem, dims: g.infeed.dims, typ: g.infeed.typ}, "get-tuple-element(%s), index=0", in)
}

// complexOp builds a chain of complex arithmetic (expand.ExpandComplex's
// pairs) from f32 values and ends it real again (real, imag or abs), so
// that the other ops never meet a complex operand. Its results are
// inexact: complex products and quotients round differently in each
// order.
func complexOp(g *gen) {
	x, ok := g.pickWhere(func(v value) bool { return v.elem == "f32" && len(v.dims) >= 1 && len(v.dims) <= 3 })
	if !ok {
		v := value{elem: "f32", dims: []int64{g.dim(), g.dim()}}
		g.fit(&v)
		x = g.param(v)
	}
	dims := x.dims
	pair := func() value {
		re := g.param(value{elem: "f32", dims: dims})
		im := g.param(value{elem: "f32", dims: dims})
		return g.emit("complex", value{elem: "c64", dims: dims, inexact: true}, "complex(%s, %s)", re.name, im.name)
	}
	y := g.param(value{elem: "f32", dims: dims})
	z := g.emit("complex", value{elem: "c64", dims: dims, inexact: true}, "complex(%s, %s)", x.name, y.name)
	for n := 1 + g.intn(3); n > 0; n-- {
		switch g.intn(6) {
		case 0, 1, 2:
			op := []string{"multiply", "add", "divide"}[g.intn(3)]
			w := pair()
			z = g.emit(op, value{elem: "c64", dims: dims, inexact: true}, "%s(%s, %s)", op, z.name, w.name)
		case 3:
			z = g.emit("negate", value{elem: "c64", dims: dims, inexact: true}, "negate(%s)", z.name)
		case 4:
			k := 1 + g.intn(min(2, len(dims)))
			lengths := dims[len(dims)-k:]
			typ := []string{"FFT", "IFFT"}[g.intn(2)]
			z = g.emit("fft", value{elem: "c64", dims: dims, inexact: true}, "fft(%s), fft_type=%s, fft_length=%s", z.name, typ, list64(lengths))
		case 5:
			if len(dims) >= 2 {
				perm := make([]int, len(dims))
				out := make([]int64, len(dims))
				for i := range perm {
					perm[i] = len(dims) - 1 - i
					out[i] = dims[perm[i]]
				}
				z = g.emit("transpose", value{elem: "c64", dims: out, inexact: true}, "transpose(%s), dimensions=%s", z.name, list(perm))
				dims = out
			}
		}
	}
	end := []string{"real", "imag", "abs"}[g.intn(3)]
	g.vals = slices.DeleteFunc(g.vals, func(v value) bool { return v.elem == "c64" })
	g.emit(end, value{elem: "f32", dims: dims, inexact: true}, "%s(%s)", end, z.name)
}

func list64(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "{" + strings.Join(s, ",") + "}"
}
