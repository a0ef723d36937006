package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/check"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// XLA leaves some orders open: a reduction's (for a reducer that must be
// associative) and a sort's among elements its comparator (which must be a
// strict weak order) does not order. A module whose reducer or comparator
// breaks that contract has several right answers; these probes find such
// modules by evaluating the computation on random scalars, so that a test
// can count their differences apart instead of calling them wrong.

// orderDependentReduce: the module has a reduce whose reducer is not
// associative: f(f(a, b), c) and f(a, f(b, c)) differ beyond the dtype's
// tolerance.
func orderDependentReduce(m *hlo.Module) bool {
	return anyCallee(m, "reduce", func(in *hlo.Instruction) int { return len(in.Operands) / 2 }, associative)
}

// orderDependentSort: the module has a sort whose comparator is not a
// strict weak order: it says a goes before a, or a before b and b before
// a, or a before b and b before c but not a before c.
func orderDependentSort(m *hlo.Module) bool {
	return anyCallee(m, "sort", func(in *hlo.Instruction) int { return len(in.Operands) }, strictWeakOrder)
}

// anyCallee reports whether some instruction of the opcode has a to_apply
// computation (of k operands) that fails the probe ok.
func anyCallee(m *hlo.Module, opcode string, k func(*hlo.Instruction) int, ok func(lib string, body *hlo.Computation, k int) bool) bool {
	var others []*hlo.Computation
	for _, c := range m.Computations {
		if c != m.Entry {
			others = append(others, c)
		}
	}
	lib := (&hlo.Module{Computations: others}).String()
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			name, _ := in.Attr("to_apply")
			body := m.Computation(strings.TrimPrefix(name, "%"))
			if in.Opcode == opcode && body != nil && k(in) > 0 && !ok(lib, body, k(in)) {
				return true
			}
		}
	}
	return false
}

// paramElems is the element types of body's first n parameters.
func paramElems(body *hlo.Computation, n int) []string {
	elems := make([]string, n)
	for _, b := range body.Instructions {
		if b.Opcode == hlo.OpParameter && int(b.ParamNumber) < n && b.Shape != nil {
			elems[b.ParamNumber] = b.Shape.Elem
		}
	}
	return elems
}

// probe evaluates lib plus entry on seeds sets of random arguments; holds
// says whether a result (a tuple of outs values) keeps the property. A
// probe that cannot run counts as holding (the module is not set apart).
func probe(lib, entry string, seeds, outs int, holds func(v []*eval.Value) bool) bool {
	m, err := hlo.Parse("probe.hlo", lib+entry)
	if err != nil {
		return true
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		args, err := eval.RandomArgs(m, seed)
		if err != nil {
			return true
		}
		v, err := (&eval.Evaluator{File: "probe.hlo", M: m}).Run(args)
		if err != nil || len(v.Tuple) != outs {
			return true
		}
		if !holds(v.Tuple) {
			return false
		}
	}
	return true
}

// associative probes body (2k scalar parameters, k results): f(f(a, b), c)
// against f(a, f(b, c)).
func associative(lib string, body *hlo.Computation, k int) bool {
	elems := paramElems(body, 2*k)
	var e strings.Builder
	fmt.Fprintf(&e, "\nENTRY probe {\n")
	vars := func(p string) []string {
		v := make([]string, k)
		for i := range v {
			v[i] = fmt.Sprintf("%s%d", p, i)
		}
		return v
	}
	for j, p := range []string{"a", "b", "c"} {
		for i, v := range vars(p) {
			fmt.Fprintf(&e, "  %s = %s[] parameter(%d)\n", v, elems[i], j*k+i)
		}
	}
	call := func(out string, x, y []string) []string {
		ty := elems[0] + "[]"
		if k > 1 {
			ty = "(" + tupleTypes(elems[:k], 1) + ")"
		}
		fmt.Fprintf(&e, "  %s = %s call(%s), to_apply=%s\n", out, ty, strings.Join(append(append([]string{}, x...), y...), ", "), body.Name)
		if k == 1 {
			return []string{out}
		}
		r := make([]string, k)
		for i := range r {
			r[i] = fmt.Sprintf("%s.%d", out, i)
			fmt.Fprintf(&e, "  %s = %s[] get-tuple-element(%s), index=%d\n", r[i], elems[i], out, i)
		}
		return r
	}
	left := call("l2", call("l1", vars("a"), vars("b")), vars("c"))
	right := call("r2", vars("a"), call("r1", vars("b"), vars("c")))
	fmt.Fprintf(&e, "  ROOT out = (%s) tuple(%s)\n}\n", tupleTypes(elems[:k], 2), strings.Join(append(left, right...), ", "))
	return probe(lib, e.String(), 4, 2*k, func(v []*eval.Value) bool {
		for i := range k {
			if check.Compare(v[i], v[k+i]).Mismatches > 0 {
				return false
			}
		}
		return true
	})
}

// strictWeakOrder probes the comparator cmp of k operands on random
// triples (random integers are few, so ties occur).
func strictWeakOrder(lib string, cmp *hlo.Computation, k int) bool {
	elems := paramElems(cmp, 2*k)
	var e strings.Builder
	fmt.Fprintf(&e, "\nENTRY probe {\n")
	for j, p := range []string{"a", "b", "c"} {
		for i := range k {
			fmt.Fprintf(&e, "  %s%d = %s[] parameter(%d)\n", p, i, elems[2*i], j*k+i)
		}
	}
	pairs := [][2]string{{"a", "a"}, {"a", "b"}, {"b", "a"}, {"b", "c"}, {"a", "c"}}
	var outs []string
	for n, pq := range pairs {
		var args []string
		for i := range k {
			args = append(args, fmt.Sprintf("%s%d", pq[0], i), fmt.Sprintf("%s%d", pq[1], i))
		}
		fmt.Fprintf(&e, "  q%d = pred[] call(%s), to_apply=%s\n", n, strings.Join(args, ", "), cmp.Name)
		outs = append(outs, fmt.Sprintf("q%d", n))
	}
	fmt.Fprintf(&e, "  ROOT out = (%s) tuple(%s)\n}\n", tupleTypes([]string{"pred"}, len(pairs)), strings.Join(outs, ", "))
	return probe(lib, e.String(), 16, len(pairs), func(v []*eval.Value) bool {
		q := func(i int) bool { return v[i].Data[0] != 0 }
		return !(q(0) || q(1) && q(2) || q(1) && q(3) && !q(4))
	})
}

// tupleTypes is elems' scalar types, the list repeated n times.
func tupleTypes(elems []string, n int) string {
	var ts []string
	for range n {
		for _, e := range elems {
			ts = append(ts, e+"[]")
		}
	}
	return strings.Join(ts, ", ")
}

// TestOrderProbes: the probes tell lawful reducers and comparators from
// ones that break XLA's contract.
func TestOrderProbes(t *testing.T) {
	parse := func(src string) *hlo.Module {
		m, err := hlo.Parse("p.hlo", src)
		require.NoError(t, err)
		require.NoError(t, verify.Verify("p.hlo", m))
		return m
	}
	reduce := func(root string) *hlo.Module {
		return parse(`r {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ` + root + `
}
ENTRY e {
  x = s32[8] parameter(0)
  y = s32[8] parameter(1)
  z = s32[] constant(0)
  ROOT o = (s32[], s32[]) reduce(x, y, z, z), dimensions={0}, to_apply=r
}`)
	}
	require.False(t, orderDependentReduce(reduce("m = s32[] maximum(a, c)\n  n = s32[] add(b, d)\n  ROOT t = (s32[], s32[]) tuple(m, n)")))
	require.True(t, orderDependentReduce(reduce("m = s32[] maximum(a, b)\n  n = s32[] maximum(c, d)\n  ROOT t = (s32[], s32[]) tuple(m, n)")))
	sort := func(root string) *hlo.Module {
		return parse(`c {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  p = s32[] parameter(2)
  q = s32[] parameter(3)
  ` + root + `
}
ENTRY e {
  x = s32[8] parameter(0)
  y = s32[8] parameter(1)
  ROOT o = (s32[8], s32[8]) sort(x, y), dimensions={0}, to_apply=c
}`)
	}
	require.False(t, orderDependentSort(sort("ROOT r = pred[] compare(a, b), direction=GT")))
	require.True(t, orderDependentSort(sort("ROOT r = pred[] compare(b, p), direction=LT")))
	require.True(t, orderDependentSort(sort("ROOT r = pred[] compare(a, b), direction=LE")))
}
