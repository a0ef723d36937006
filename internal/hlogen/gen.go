// Package hlogen generates random, valid HLO modules from a byte string:
// the programs of the differential fuzzer (lowering's FuzzPipeline), which
// compiles each for the chips, simulates it and compares the outputs with
// the reference evaluator's.
//
// The bytes are a stream of choices: each decision (how many ops, which
// op, which operand, which shape, dtype, layout, attribute) reads the next
// byte, and a spent stream reads zeros, so every byte string, the empty one
// included, is a module, and a fuzzer that mutates a byte changes one
// decision. The modules are small (a dozen instructions, arrays of at
// most MaxElems elements, one module in eight up to MaxBigElems) so that
// one check takes milliseconds, yet their shapes cross the chips' tile
// boundaries (dims of 1, primes, 128+2, rank 5; in the big ones arrays
// larger than a tile of SRAM) and their layouts are not always the
// default.
//
// It keeps away from what the reference evaluator cannot answer exactly,
// which would be a false finding: ops that turn a rounding difference into
// a step (see exactOps). (s64 and u64 values of any size are fine: the
// evaluator carries them exactly.)
package hlogen

import (
	"fmt"
	"slices"
	"strings"
)

// MaxElems bounds every array of most modules, MaxBigElems those of the
// big ones.
const (
	MaxElems    = 4096
	MaxBigElems = 1 << 16
)

// maxOps bounds the instructions generated after the parameters.
const maxOps = 12

// value is an array the module has computed so far.
type value struct {
	name string
	elem string
	dims []int64
	typ  string // as printed, layout included (set when emitted)
	// inexact values may differ from the evaluator's by rounding
	// (exactOps); they are never compared, converted to integers or
	// bitcast.
	inexact bool
}

func (v value) elems() int64 {
	n := int64(1)
	for _, d := range v.dims {
		n *= d
	}
	return n
}

// gen holds one module under construction.
type gen struct {
	src     []byte
	pos     int
	params  []string // parameter instructions, emitted first
	body    []string // the other instructions, in order
	vals    []value
	helpers map[string]string // reducer computations by name
	next    int               // instruction number
	// maxElems bounds every array; sizes are the dims chosen from.
	maxElems int64
	sizes    []int64
	// infeed is the data every infeed of the module reads (nil before
	// the first): one shape, so that random records fit them all.
	infeed *value
}

// Generate returns the HLO text of the module the choices in data make.
func Generate(data []byte) string {
	g := &gen{src: data, helpers: map[string]string{}, maxElems: MaxElems, sizes: dimSizes}
	if g.intn(8) == 7 {
		g.maxElems, g.sizes = MaxBigElems, append(slices.Clone(dimSizes), 257, 520, 1024, 2048)
	}
	g.param(g.shape())
	if g.intn(2) == 0 {
		g.param(g.shape())
	}
	for n := 1 + g.intn(maxOps); n > 0; n-- {
		ops[g.intn(len(ops))].build(g)
	}
	return g.text()
}

// Ops lists the opcodes the generator emits (for the docs and the test
// that every one occurs).
func Ops() []string {
	var names []string
	for _, o := range ops {
		names = append(names, strings.Fields(o.names)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// byte reads the next choice; a spent stream reads zeros.
func (g *gen) byte() byte {
	if g.pos >= len(g.src) {
		return 0
	}
	b := g.src[g.pos]
	g.pos++
	return b
}

// intn chooses in [0, n).
func (g *gen) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(g.byte()) % n
}

func (g *gen) name(prefix string) string {
	g.next++
	return fmt.Sprintf("%s.%d", prefix, g.next)
}

// pick chooses an operand, the newest ones most often: chains of ops
// exercise the lowering more than many ops of the parameters.
func (g *gen) pick() value {
	n := len(g.vals)
	if g.intn(3) > 0 {
		return g.vals[n-1-g.intn(min(n, 3))]
	}
	return g.vals[g.intn(n)]
}

// pickWhere is pick among the values satisfying ok; false when none does.
func (g *gen) pickWhere(ok func(value) bool) (value, bool) {
	var c []value
	for _, v := range g.vals {
		if ok(v) {
			c = append(c, v)
		}
	}
	if len(c) == 0 {
		return value{}, false
	}
	if g.intn(2) == 0 {
		return c[len(c)-1], true
	}
	return c[g.intn(len(c))], true
}

// partner returns a second operand with v's type: another value of that
// type, v itself, or a new parameter.
func (g *gen) partner(v value) value {
	switch g.intn(3) {
	case 0:
		return g.param(v)
	case 1:
		if w, ok := g.pickWhere(func(w value) bool { return w.elem == v.elem && slices.Equal(w.dims, v.dims) && w.name != v.name }); ok {
			return w
		}
	}
	return v
}

// dtypes are the element types generated, f32 most often.
var dtypes = []string{"f32", "f32", "f32", "bf16", "f16", "s32", "s8", "u8", "pred", "u32", "s16", "u16", "f64", "s64", "u64", "f8e4m3fn", "f8e5m2", "s4", "u4"}

// dimSizes are the extents generated: small ones, primes, and sizes just
// past the chips' lane and tile widths.
var dimSizes = []int64{1, 2, 3, 4, 5, 7, 8, 1, 2, 16, 17, 31, 33, 64, 130}

// dim chooses an extent.
func (g *gen) dim() int64 { return g.sizes[g.intn(len(g.sizes))] }

// shape chooses a type for a new parameter or array.
func (g *gen) shape() value {
	v := value{elem: dtypes[g.intn(len(dtypes))]}
	rank := []int{0, 1, 1, 2, 2, 2, 3, 3, 4, 5}[g.intn(10)]
	for range rank {
		v.dims = append(v.dims, g.dim())
	}
	g.fit(&v)
	return v
}

// fit shrinks v's largest dims until it holds at most g.maxElems elements.
func (g *gen) fit(v *value) {
	for v.elems() > g.maxElems {
		i := 0
		for j, d := range v.dims {
			if d > v.dims[i] {
				i = j
			}
		}
		v.dims[i] = (v.dims[i] + 1) / 2
	}
}

// typ prints v's type, with a layout chosen at random: the default
// (major to minor) most often, sometimes a permutation.
func (g *gen) typ(v value) string {
	dims := make([]string, len(v.dims))
	for i, d := range v.dims {
		dims[i] = fmt.Sprint(d)
	}
	s := fmt.Sprintf("%s[%s]", v.elem, strings.Join(dims, ","))
	if len(v.dims) < 2 {
		return s
	}
	order := make([]int, len(v.dims))
	for i := range order {
		order[i] = len(v.dims) - 1 - i
	}
	if g.intn(4) == 0 {
		for i := len(order) - 1; i > 0; i-- {
			j := g.intn(i + 1)
			order[i], order[j] = order[j], order[i]
		}
	}
	l := make([]string, len(order))
	for i, o := range order {
		l[i] = fmt.Sprint(o)
	}
	return s + "{" + strings.Join(l, ",") + "}"
}

// param adds a parameter of v's type and returns it.
func (g *gen) param(v value) value {
	v.name = g.name("p")
	v.dims = slices.Clone(v.dims)
	v.typ = g.typ(v)
	g.params = append(g.params, fmt.Sprintf("  %s = %s parameter(%d)", v.name, v.typ, len(g.params)))
	g.vals = append(g.vals, v)
	return v
}

// emit adds an instruction computing v (named by prefix) as rhs, of type
// v.typ when set (a tuple element's), else one chosen now.
func (g *gen) emit(prefix string, v value, rhs string, args ...any) value {
	v.name = g.name(prefix)
	v.dims = slices.Clone(v.dims)
	if v.typ == "" {
		v.typ = g.typ(v)
	}
	g.body = append(g.body, fmt.Sprintf("  %s = %s %s", v.name, v.typ, fmt.Sprintf(rhs, args...)))
	g.vals = append(g.vals, v)
	return v
}

// scalar emits a constant of elem.
func (g *gen) scalar(elem, lit string) value {
	return g.emit("c", value{elem: elem}, "constant(%s)", lit)
}

// text assembles the module: reducers, then the entry computation whose
// root is the last value or a tuple of it and an earlier one.
func (g *gen) text() string {
	body := slices.Clone(g.body)
	last := g.vals[len(g.vals)-1]
	outs := []value{last}
	if len(g.vals) > 2 && g.intn(2) == 0 {
		if o := g.vals[g.intn(len(g.vals)-1)]; o.name != last.name {
			outs = append(outs, o)
		}
	}
	if n := len(body); len(outs) == 1 && n > 0 && strings.HasPrefix(body[n-1], "  "+last.name+" ") {
		body[n-1] = "  ROOT " + strings.TrimPrefix(body[n-1], "  ")
	} else {
		types := make([]string, len(outs))
		args := make([]string, len(outs))
		for i, o := range outs {
			types[i] = o.typ
			args[i] = o.name
		}
		body = append(body, fmt.Sprintf("  ROOT out = (%s) tuple(%s)", strings.Join(types, ", "), strings.Join(args, ", ")))
	}
	var b strings.Builder
	b.WriteString("HloModule fuzz\n\n")
	names := make([]string, 0, len(g.helpers))
	for n := range g.helpers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b.WriteString(g.helpers[n] + "\n")
	}
	b.WriteString("ENTRY main {\n")
	for _, l := range append(g.params, body...) {
		b.WriteString(l + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}
