package lowering_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// TestXLATestModules compiles every verified module of XLA's tests (up to
// 1M elements per array) for teach16: each either compiles or fails with a positioned "cannot lower"
// error (or the single-device message) — never an internal error, never a
// panic. The small ones that compile are simulated and checked against the
// evaluator.
func TestXLATestModules(t *testing.T) {
	f, err := os.Open("../../shared/corpus/hlo-xla-tests.jsonl")
	if err != nil {
		t.Skip("corpus not present")
	}
	defer f.Close()
	chip, err := config.Load("teach16", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: chip}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var n, compiled, checked, narrow, internal int
	reasons := map[string]int{} // why the others do not compile, for the log
	for sc.Scan() {
		var c struct {
			Source string `json:"source"`
			Line   int    `json:"line"`
			Text   string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		m, err := hlo.Parse("case.hlo", c.Text)
		if err != nil || hlo.Verify("case.hlo", m) != nil {
			continue
		}
		if largest(m) > 1<<20 {
			continue // big modules compile to big programs: minutes for this whole test
		}
		n++
		x, err := client.Compile("case.hlo", m)
		if err != nil {
			reasons[reasonOf(err.Error())]++
			var le *lowering.Error
			ok := errors.As(err, &le) || strings.Contains(err.Error(), "devices") || strings.Contains(err.Error(), "no entry")
			if !ok {
				// A lowering bug, caught (Compile recovers): counted and
				// shown, to be fixed; what must never happen is a crash.
				require.Contains(t, err.Error(), "internal", "%s:%d: %v", c.Source, c.Line, err)
				if internal++; internal <= 5 {
					t.Logf("internal error: %s:%d: %v", c.Source, c.Line, err)
				}
			}
			continue
		}
		compiled++
		// Simulating every one takes minutes: check an evenly spread
		// sample of the small ones (all of them: PULSE_XLA_ALL=1).
		if hlo.ParamElements(m) > 1<<12 || os.Getenv("PULSE_XLA_ALL") == "" && compiled%5 != 0 {
			continue
		}
		args, err := hlo.RandomArgsWithin(m, 2, 1<<12)
		if err != nil {
			continue
		}
		want, err := (&hlo.Evaluator{File: "case.hlo", M: m, MaxLiveElements: 1 << 16, MaxWhileIterations: 1000}).Run(args)
		if err != nil {
			continue
		}
		r, err := client.Execute(x, args, runtime.ExecOptions{MaxCycles: 1e7})
		require.NoError(t, err, "%s:%d", c.Source, c.Line)
		wants := []*hlo.Value{want}
		if want.Tuple != nil || want.Shape.IsTuple {
			wants = want.Tuple
		}
		require.Len(t, r.Outputs, len(wants), "%s:%d", c.Source, c.Line)
		mismatch := false
		for i := range wants {
			d := hlo.Compare(r.Outputs[i], wants[i])
			if d.Mismatches > 0 && orderDependentReduce(m) {
				// XLA leaves a reduction's order unspecified and asks for
				// an associative reducer; this one is not, so the tree
				// the chip folds in and the evaluator's sequential fold
				// may both be XLA's answer. Counted, not hidden.
				t.Logf("%s:%d output %d: non-associative reducer, order differs: got %v want %v", c.Source, c.Line, i, d.FirstGot, d.FirstWant)
				mismatch = true
				continue
			}
			if d.Mismatches > 0 && narrowFloatReduce(m) {
				// Known, documented difference (docs/lowering.md): the
				// vector unit sums bf16/f16 in f32, the HLO folds in the
				// narrow type. Counted, not hidden.
				t.Logf("%s:%d output %d: reduction order differs: got %v want %v", c.Source, c.Line, i, d.FirstGot, d.FirstWant)
				mismatch = true
				continue
			}
			require.Zero(t, d.Mismatches, "%s:%d output %d: first [%d] got %v want %v", c.Source, c.Line, i, d.First, d.FirstGot, d.FirstWant)
		}
		if mismatch {
			narrow++
			continue
		}
		checked++
	}
	type rc struct {
		r string
		n int
	}
	var rs []rc
	for r, k := range reasons {
		rs = append(rs, rc{r, k})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].r < rs[j].r })
	for i, r := range rs {
		if i == 30 {
			break
		}
		t.Logf("%5d %s", r.n, r.r)
	}
	t.Logf("XLA tests: %d verified modules, %d compile for teach16, %d simulated and checked against the evaluator; %d differ only by reduction order (bf16/f16 sums, f32 sums read as bits, or a non-associative reducer); %d internal lowering errors", n, compiled, checked, narrow, internal)
	require.Zero(t, internal, "internal lowering errors: each is a bug to fix")
}

// narrowFloatReduce: the module reduces bf16 or f16 values, or reduces
// f32 values and reads the sum's bits as an integer (bitcast), where the
// vector unit's tree order of additions shows in the last bit that the
// dtype-aware tolerance would otherwise absorb.
func narrowFloatReduce(m *hlo.Module) bool {
	floatReduce, toBits := false, false
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Opcode == "reduce" && in.Shape != nil && (in.Shape.Elem == "bf16" || in.Shape.Elem == "f16") {
				return true
			}
			if in.Opcode == "reduce" && in.Shape != nil && in.Shape.Elem == "f32" {
				floatReduce = true
			}
			if (in.Opcode == "bitcast" || in.Opcode == "bitcast-convert") && in.Shape != nil && in.Shape.Elem[0] != 'f' {
				toBits = true
			}
		}
	}
	return floatReduce && toBits
}

// orderDependentReduce: the module has a reduce whose reducer is not
// associative, as the evaluator finds it on random arguments: f(f(a, b), c)
// and f(a, f(b, c)) differ beyond the dtype's tolerance.
func orderDependentReduce(m *hlo.Module) bool {
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
			k := len(in.Operands) / 2
			if in.Opcode != "reduce" || body == nil || k == 0 {
				continue
			}
			if !associative(lib, body, k) {
				return true
			}
		}
	}
	return false
}

// associative probes body (2k scalar parameters, k results) on random
// arguments: f(f(a, b), c) against f(a, f(b, c)).
func associative(lib string, body *hlo.Computation, k int) bool {
	elems := make([]string, 2*k)
	for _, b := range body.Instructions {
		if b.Opcode == "parameter" && int(b.ParamNumber) < 2*k && b.Shape != nil {
			elems[b.ParamNumber] = b.Shape.Elem
		}
	}
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
			var ts []string
			for i := range k {
				ts = append(ts, elems[i]+"[]")
			}
			ty = "(" + strings.Join(ts, ", ") + ")"
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
	m, err := hlo.Parse("probe.hlo", lib+e.String())
	if err != nil {
		return true // cannot tell: not counted as order-dependent
	}
	for seed := uint64(1); seed <= 4; seed++ {
		args, err := hlo.RandomArgs(m, seed)
		if err != nil {
			return true
		}
		v, err := (&hlo.Evaluator{File: "probe.hlo", M: m}).Run(args)
		if err != nil || len(v.Tuple) != 2*k {
			return true
		}
		for i := range k {
			if hlo.Compare(v.Tuple[i], v.Tuple[k+i]).Mismatches > 0 {
				return false
			}
		}
	}
	return true
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

// largest is the element count of the module's biggest array.
func largest(m *hlo.Module) int64 {
	var n int64
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if in.Shape != nil {
				n = max(n, in.Shape.Elems())
			}
		}
	}
	return n
}

// reasonOf reduces a compile error to its reason: the text after "cannot
// lower: " (or the whole message), with numbers and names blurred so that
// like cases count together.
func reasonOf(msg string) string {
	if i := strings.Index(msg, "cannot lower: "); i >= 0 {
		op := ""
		if j := strings.LastIndex(msg[:max(i-2, 0)], ": "); j >= 0 {
			op = msg[j+2:i-2] + ": " // the opcode, for "not lowered yet"
		}
		msg = op + msg[i+len("cannot lower: "):]
	} else if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	msg = digits.ReplaceAllString(msg, "N")
	if len(msg) > 90 {
		msg = msg[:90]
	}
	return msg
}

var digits = regexp.MustCompile(`[0-9]+`)
