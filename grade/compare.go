package grade

import (
	"fmt"
	"math"
	"strings"

	"github.com/pulse-sim/pulse/labs"
)

// mismatch is what comparing one output with its reference found.
type mismatch struct {
	tensor labs.Tensor
	wrong  []int // flat indices of the elements out of tolerance
	cause  string
	detail string
}

// tolerance of element i: atol + rtol * scale.
func tol(t labs.Tensor, scale float64) float64 {
	return t.ATol + t.RTol*scale
}

func within(got, want, tl float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tl
}

// compare checks got against want element by element and, when elements
// are wrong, guesses why from the pattern they make.
func compare(t labs.Tensor, got, want, scale []float64) *mismatch {
	m := &mismatch{tensor: t}
	for i := range want {
		if !within(got[i], want[i], tol(t, scale[i])) {
			m.wrong = append(m.wrong, i)
		}
	}
	if len(m.wrong) == 0 {
		return nil
	}
	m.cause, m.detail = diagnose(t, m.wrong, got, want, scale)
	return m
}

// Message describes the mismatch for the student: how many elements,
// the first one with its index, the likely cause.
func (m *mismatch) message() string {
	t := m.tensor
	i := m.wrong[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d elements wrong; the first is %s", t.Name, len(m.wrong), t.Elems(), index(t, i))
	b.WriteString(". " + m.detail)
	return b.String()
}

// index prints element i of t as name[r,c].
func index(t labs.Tensor, i int) string {
	idx := make([]string, len(t.Shape))
	for d := len(t.Shape) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(i % t.Shape[d])
		i /= t.Shape[d]
	}
	return t.Name + "[" + strings.Join(idx, ",") + "]"
}

// The patterns, most specific first. Each names a cause the lab's
// handout has a section for (lab.yaml's sections).
func diagnose(t labs.Tensor, wrong []int, got, want, scale []float64) (cause, detail string) {
	n := len(want)
	first := wrong[0]
	val := fmt.Sprintf("%s = %s, want %s (tolerance %.3g)", index(t, first), num(got[first]), num(want[first]), tol(t, scale[first]))

	// Elements the kernel never stored still hold the grader's fill.
	var unset []int
	for _, i := range wrong {
		if math.IsNaN(got[i]) && !math.IsNaN(want[i]) {
			unset = append(unset, i)
		}
	}
	if len(unset) == len(wrong) {
		lo, hi := unset[0], unset[len(unset)-1]
		contiguous := hi-lo+1 == len(unset)
		switch {
		case len(unset) == n:
			return "unwritten", fmt.Sprintf("No element of %s was written: the kernel never stores it to hbm, or stores it to another address.", t.Name)
		case contiguous && hi == n-1:
			return "off-by-one", fmt.Sprintf("%s through %s (the last %d elements) were never written: the loop stops early, most likely one tile short (an off-by-one in the tile count).", index(t, lo), index(t, hi), len(unset))
		case contiguous && lo == 0:
			return "off-by-one", fmt.Sprintf("%s through %s (the first %d elements) were never written: the loop starts late or skips its first tile (an off-by-one in the start offset).", index(t, lo), index(t, hi), len(unset))
		}
		return "unwritten", fmt.Sprintf("%d elements were never written, from %s to %s: some tiles are never stored (check the store's address and the loop's step).", len(unset), index(t, lo), index(t, hi))
	}

	// Infinities or NaN where the answer is finite: an overflow.
	nonfinite := 0
	for _, i := range wrong {
		if (math.IsInf(got[i], 0) || math.IsNaN(got[i])) && !math.IsInf(want[i], 0) && !math.IsNaN(want[i]) {
			nonfinite++
		}
	}
	if nonfinite > 0 && nonfinite*2 >= len(wrong) {
		return "overflow", fmt.Sprintf("%s: %d elements are infinite or NaN where the answer is finite: an intermediate overflowed (exp of a large input overflows f32 past about 88; subtract the row's maximum first).", val, nonfinite)
	}

	// Right values in the wrong place: got[i] is want[i+d] for one d.
	if d, ok := shifted(t, wrong, got, want, scale); ok {
		dir := "ahead of"
		if d < 0 {
			dir, d = "behind", -d
		}
		return "off-by-one", fmt.Sprintf("%s. The values are right but %d elements %s where they belong: a tile loaded or stored at the wrong offset (an off-by-one tile).", val, d, dir)
	}

	// Zeros where the answer is not: data read before it arrived.
	zeros := 0
	for _, i := range wrong {
		if got[i] == 0 {
			zeros++
		}
	}
	// (Without the race detector's evidence this is a guess: a term left
	// out of a sum looks the same, so the cause stays "wrong".)
	if zeros*2 >= len(wrong) {
		return "wrong", fmt.Sprintf("%s. %d of the wrong elements are exactly 0: either an instruction read a buffer before its data arrived (a missing wait), or a term of the result is missing.", val, zeros)
	}

	// Errors of 16-bit rounding: a value that went through bf16 or f16.
	if t.RTol < 1e-3 {
		coarse := 0
		for _, i := range wrong {
			if math.Abs(got[i]-want[i]) <= 1e-2*scale[i]+t.ATol {
				coarse++
			}
		}
		if coarse == len(wrong) {
			return "dtype", fmt.Sprintf("%s. Every wrong element is within 1%% of the answer, the size of bf16 or f16 rounding (8 or 11 bits of mantissa): a value went through a 16-bit dtype where %s was expected (a dtype mismatch).", val, t.DType)
		}
	}
	// Close, but a few roundings off: an intermediate kept in a 16-bit type.
	if t.RTol >= 1e-3 {
		near := 0
		for _, i := range wrong {
			if math.Abs(got[i]-want[i]) <= 8*tol(t, scale[i]) {
				near++
			}
		}
		if near == len(wrong) {
			return "precision", fmt.Sprintf("%s. Every wrong element is within a few %s roundings of the answer: precision was lost before the final rounding (an intermediate kept in a 16-bit type: keep the arithmetic in f32 and round once at the end).", val, t.DType)
		}
	}
	return "wrong", val + "."
}

// shifted finds a displacement d such that most wrong elements hold the
// answer of element i+d.
func shifted(t labs.Tensor, wrong []int, got, want, scale []float64) (int, bool) {
	i0 := wrong[0]
	for j := range want {
		d := j - i0
		if d == 0 || !within(got[i0], want[j], tol(t, scale[j])) || want[j] == 0 {
			continue
		}
		hits := 0
		for _, i := range wrong {
			if k := i + d; k >= 0 && k < len(want) && within(got[i], want[k], tol(t, scale[k])) {
				hits++
			}
		}
		if hits*10 >= len(wrong)*9 {
			return d, true
		}
	}
	return 0, false
}

func num(x float64) string {
	return fmt.Sprintf("%.7g", x)
}
