package eval

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
	"math"
	"strconv"
	"strings"
)

// rng is defined by its expansion (ExpandRngs), which the chips run: the
// evaluator evaluates that expansion on the rng's operands, drawing from
// the same module-wide state, so that the host's numbers and the chips'
// are the same numbers.

// rngState is the generator state rng-get-and-update-state hands out.
type rngState struct{ key, counter uint64 }

func (e *Evaluator) rngStateOf() *rngState {
	if e.rngs == nil {
		e.rngs = &rngState{key: e.Seed}
	}
	return e.rngs
}

// rngGetAndUpdateState returns the state (key, counter) as u64[2] and
// advances the counter by delta.
func (e *Evaluator) rngGetAndUpdateState(in *hlo.Instruction) (*Value, error) {
	d, ok := in.Attr("delta")
	delta, err := strconv.ParseUint(strings.TrimSpace(d), 10, 64)
	if !ok || err != nil {
		return nil, e.Fail(in, "needs delta=N (the counter's advance)")
	}
	if in.Shape == nil || in.Shape.IsTuple || in.Shape.Elem != hlo.U64 || in.Shape.Elems() != 2 {
		return nil, e.Fail(in, "returns u64[2], not %s", in.Shape)
	}
	s := e.rngStateOf()
	v := &Value{Shape: in.Shape, Data: []float64{math.Float64frombits(s.key), math.Float64frombits(s.counter)}}
	s.counter += delta
	return v, nil
}

// rngOp evaluates rng(a, b) as its expansion: float bounds as parameters,
// integer bounds (which the expansion needs as constants) as literals.
func (e *Evaluator) rngOp(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 2 || in.Shape == nil || in.Shape.IsTuple {
		return nil, e.Fail(in, "takes two scalars and returns an array")
	}
	dist, _ := in.Attr("distribution")
	E := in.Shape.Elem
	var b strings.Builder
	fmt.Fprintf(&b, "HloModule rng\nENTRY e {\n")
	var args []*Value
	for i, o := range ops {
		if o.Shape == nil || o.Shape.IsTuple || len(o.Data) != 1 {
			return nil, e.Fail(in, "operand %d is not a scalar", i)
		}
		if hlo.IsFloat(o.Shape.Elem) {
			fmt.Fprintf(&b, "  p%d = %s[] parameter(%d)\n", i, o.Shape.Elem, len(args))
			args = append(args, o)
			continue
		}
		fmt.Fprintf(&b, "  p%d = %s[] constant(%s)\n", i, o.Shape.Elem, intText(o.Shape.Elem, o.Data[0]))
	}
	fmt.Fprintf(&b, "  ROOT r = %s rng(p0, p1), distribution=%s\n}\n", in.Shape, dist)
	v, err := e.byExpansion(in, b.String(), expand.ExpandRngs, args)
	if err == nil && v.Shape.Elem != E {
		return nil, e.Fail(in, "internal error: rng's expansion returned %s", v.Shape)
	}
	return v, err
}

// intText is an integer value of elem as a literal.
func intText(elem string, v float64) string {
	switch elem {
	case hlo.S64:
		return strconv.FormatInt(int64(math.Float64bits(v)), 10)
	case hlo.U64:
		return strconv.FormatUint(math.Float64bits(v), 10)
	case hlo.Pred:
		if v != 0 {
			return "true"
		}
		return "false"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
