package eval

import (
	"errors"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/rewrite"
)

// runComplex runs a module with complex values as its ExpandComplex
// rewrite (the chips' program): complex arguments and results are the
// same numbers, (real, imaginary) interleaved, under their complex shapes.
func (e *Evaluator) runComplex(args []*Value) (*Value, error) {
	orig := e.M
	if e.complexOf != orig {
		x := orig.Clone()
		if err := expand.ExpandComplex(x); err != nil {
			var xe *rewrite.ExpandError
			if errors.As(err, &xe) {
				return nil, &EvalError{e.File, xe.Pos, xe.Name + ": " + xe.Opcode + ": " + xe.Reason}
			}
			return nil, err
		}
		e.complexOf, e.complexM = orig, x
	}
	e.M = e.complexM
	defer func() { e.M = orig }()
	real := make([]*Value, len(args))
	for i, a := range args {
		real[i] = asShape(a, realShapeOf)
	}
	v, err := e.Run(real)
	if err != nil {
		return nil, err
	}
	return withShape(v, orig.Entry.Root.Shape), nil
}

func realShapeOf(s *hlo.Shape) *hlo.Shape { return hlo.RealShape(s) }

// asShape is v under the shapes f gives its arrays (the same numbers).
func asShape(v *Value, f func(*hlo.Shape) *hlo.Shape) *Value {
	if v == nil || !hlo.ShapeHasComplex(v.Shape) && v.Shape != nil {
		return v
	}
	if v.Tuple != nil {
		t := &Value{Shape: f(v.Shape)}
		for _, e := range v.Tuple {
			t.Tuple = append(t.Tuple, asShape(e, f))
		}
		return t
	}
	w := *v
	w.Shape = f(v.Shape)
	return &w
}

// withShape is v (of RealShape(s)) under s.
func withShape(v *Value, s *hlo.Shape) *Value {
	if v == nil || !hlo.ShapeHasComplex(s) {
		return v
	}
	if s.IsTuple {
		t := &Value{Shape: s}
		for i, e := range v.Tuple {
			t.Tuple = append(t.Tuple, withShape(e, s.Tuple[i]))
		}
		return t
	}
	w := *v
	w.Shape = s
	return &w
}
