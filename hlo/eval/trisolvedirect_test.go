package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"slices"
)

// TriangularSolveDirect solves triangular-solve(a, b) directly, the
// reference TestExpandTriangularSolves checks expand.ExpandTriangularSolves
// (what the evaluator and the chips compute, as XLA does) against: X with
// op(a) X = b
// (left_side=true) or X op(a) = b (left_side=false), op(a) being a or its
// transpose (transpose_a=TRANSPOSE; ADJOINT is the same for real types),
// reading only the triangle of a that lower names, with ones on its
// diagonal when unit_diagonal=true. Leading dimensions are batches. The
// substitution runs in float64 and rounds once to the result type.
func (e *Evaluator) TriangularSolveDirect(in *hlo.Instruction, ops []*Value) (*Value, error) {
	if len(ops) != 2 {
		return nil, e.Fail(in, "takes a and b")
	}
	a, b := ops[0], ops[1]
	flag := func(k string) bool { v, _ := in.Attr(k); return v == "true" }
	left, lower, unit := flag("left_side"), flag("lower"), flag("unit_diagonal")
	tr, _ := in.Attr("transpose_a")
	switch tr {
	case "", "NO_TRANSPOSE":
	case "TRANSPOSE", "ADJOINT":
		lower = !lower // op(a)'s triangle
	default:
		return nil, e.Fail(in, "transpose_a=%s", tr)
	}
	transposed := tr == "TRANSPOSE" || tr == "ADJOINT"
	ad, bd := a.Shape.Dims, b.Shape.Dims
	if len(ad) < 2 || len(bd) != len(ad) || ad[len(ad)-1] != ad[len(ad)-2] {
		return nil, e.Fail(in, "a must be [..., m, m] and b of its rank")
	}
	if in.Shape.IsTuple || !slices.Equal(in.Shape.Dims, bd) {
		return nil, e.Fail(in, "the result %s is not b's shape %s", in.Shape, b.Shape)
	}
	m := int(ad[len(ad)-1])
	rows, cols := int(bd[len(bd)-2]), int(bd[len(bd)-1])
	if left && rows != m || !left && cols != m {
		return nil, e.Fail(in, "b's %s dimension is not a's %d", map[bool]string{true: "row", false: "column"}[left], m)
	}
	batches := 1
	for i := 0; i < len(ad)-2; i++ {
		if ad[i] != bd[i] {
			return nil, e.Fail(in, "batch dimensions of a and b differ")
		}
		batches *= int(ad[i])
	}
	out := NewArray(in.Shape)
	x := make([]float64, rows*cols)
	for bt := 0; bt < batches; bt++ {
		A := a.Data[bt*m*m : (bt+1)*m*m]
		op := func(i, j int) float64 { // op(a)[i][j]
			if transposed {
				i, j = j, i
			}
			return A[i*m+j]
		}
		diag := func(i int) float64 {
			if unit {
				return 1
			}
			return op(i, i)
		}
		copy(x, b.Data[bt*rows*cols:(bt+1)*rows*cols])
		if left { // op(a) X = B: rows of X by substitution
			for s := 0; s < m; s++ {
				i := s
				if !lower {
					i = m - 1 - s
				}
				for c := 0; c < cols; c++ {
					v := x[i*cols+c]
					for k := 0; k < m; k++ {
						if lower && k < i || !lower && k > i {
							v -= op(i, k) * x[k*cols+c]
						}
					}
					x[i*cols+c] = v / diag(i)
				}
			}
		} else { // X op(a) = B: columns of X by substitution
			for s := 0; s < m; s++ {
				j := s
				if lower {
					j = m - 1 - s
				}
				for rw := 0; rw < rows; rw++ {
					v := x[rw*cols+j]
					for k := 0; k < m; k++ {
						if !lower && k < j || lower && k > j {
							v -= x[rw*cols+k] * op(k, j)
						}
					}
					x[rw*cols+j] = v / diag(j)
				}
			}
		}
		for i, v := range x {
			out.Data[bt*rows*cols+i] = hlo.Round(in.Shape.Elem, v)
		}
	}
	return out, nil
}
