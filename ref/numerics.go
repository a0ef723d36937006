package ref

import (
	"math"

	"github.com/pulse-sim/pulse/isa"
)

// The vector unit computes in f32 when any source is a float type other
// than f64, in f64 when the sources are f64, and in s32 (wrapping) or a
// wider integer type otherwise; results are then rounded to the destination
// dtype by isa.Round. Values travel as float64, which holds every f64, f32
// and s32 exactly; functions of f32 inputs are evaluated in float64 and
// rounded once to f32, which is the correctly rounded result for + - * /
// and sqrt (and f64 results are float64's own).

func f32(x float64) float64 { return float64(float32(x)) }

func f64(x float64) float64 { return x }

// rounding is the rounding of float compute type ct: f64 keeps float64's
// result, every other float type computes in f32.
func rounding(ct isa.DType) func(float64) float64 {
	if ct == isa.F64 {
		return f64
	}
	return f32
}

func wrap32(x int64) float64 { return float64(int32(x)) }

// Binary applies a vector binary function to floats computing in ct, f32
// or f64 (integers: IntBinary).
func Binary(ct isa.DType, fn uint8, a, b float64) float64 {
	f32 := rounding(ct)
	switch fn {
	case isa.VAdd:
		return f32(a + b)
	case isa.VSub:
		return f32(a - b)
	case isa.VMul:
		return f32(a * b)
	case isa.VDiv:
		return f32(a / b)
	case isa.VMax:
		if a != a || b != b {
			return math.NaN()
		}
		return math.Max(a, b)
	case isa.VMin:
		if a != a || b != b {
			return math.NaN()
		}
		return math.Min(a, b)
	case isa.VPow:
		return f32(math.Pow(a, b))
	}
	return 0
}

// binaryInto is Binary over slices, its function chosen once rather than
// per element (a value run's vector ops are most of its time).
func binaryInto(out []float64, ct isa.DType, fn uint8, a, b []float64) {
	a, b = a[:len(out)], b[:len(out)]
	if ct == isa.F64 {
		for i := range out {
			out[i] = Binary(ct, fn, a[i], b[i])
		}
		return
	}
	switch fn {
	case isa.VAdd:
		for i := range out {
			out[i] = float64(float32(a[i] + b[i]))
		}
	case isa.VSub:
		for i := range out {
			out[i] = float64(float32(a[i] - b[i]))
		}
	case isa.VMul:
		for i := range out {
			out[i] = float64(float32(a[i] * b[i]))
		}
	default:
		for i := range out {
			out[i] = Binary(ct, fn, a[i], b[i])
		}
	}
}

// Compare evaluates a comparison (NaN compares unequal to everything).
func Compare(fn uint8, a, b float64) bool {
	switch fn {
	case isa.CmpEq:
		return a == b
	case isa.CmpNe:
		return a != b
	case isa.CmpLt:
		return a < b
	case isa.CmpLe:
		return a <= b
	case isa.CmpGt:
		return a > b
	case isa.CmpGe:
		return a >= b
	}
	return false
}

// Unary applies a unary function to a value of dtype src. Integer sources
// use integer semantics for the functions that have one (neg, abs, relu, sign,
// bitwise not; rounding is the identity); not of a pred is logical.
func Unary(fn uint8, x float64, src isa.DType) float64 {
	if fn == isa.FnNot && src == isa.Pred {
		if x == 0 {
			return 1
		}
		return 0
	}
	if src == isa.U32 || src.IsWide() {
		if r, ok := IntUnary(fn, src, x); ok {
			return r
		}
		x = isa.IntValue(src, x) // other functions of integers are computed in f32
	}
	if src.IsInt() {
		v := int32(x)
		switch fn {
		case isa.FnNone, isa.FnFloor, isa.FnCeil, isa.FnRound:
			return x
		case isa.FnNeg:
			return float64(-v)
		case isa.FnAbs:
			if v < 0 {
				return float64(-v)
			}
			return x
		case isa.FnRelu:
			return float64(max(v, 0))
		case isa.FnSign:
			switch {
			case v > 0:
				return 1
			case v < 0:
				return -1
			}
			return 0
		case isa.FnNot:
			return float64(^v)
		}
		// Other functions of integers are computed in f32.
		x = f32(x)
	}
	return floatUnary(fn, x, rounding(src))
}

// floatUnary applies a unary function to a float, rounding with f32 (the
// compute type's rounding: see rounding).
func floatUnary(fn uint8, x float64, f32 func(float64) float64) float64 {
	switch fn {
	case isa.FnNone:
		return x
	case isa.FnRelu:
		if x != x {
			return x
		}
		if x < 0 {
			return 0
		}
		return x
	case isa.FnGelu:
		return f32(0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x))))
	case isa.FnTanh:
		return f32(math.Tanh(x))
	case isa.FnLogistic:
		return f32(1 / (1 + math.Exp(-x)))
	case isa.FnExp:
		return f32(math.Exp(x))
	case isa.FnNeg:
		return -x
	case isa.FnAbs:
		return math.Abs(x)
	case isa.FnLog:
		return f32(math.Log(x))
	case isa.FnSqrt:
		return f32(math.Sqrt(x))
	case isa.FnRsqrt:
		return f32(1 / math.Sqrt(x))
	case isa.FnRcp:
		return f32(1 / x)
	case isa.FnFloor:
		return math.Floor(x)
	case isa.FnCeil:
		return math.Ceil(x)
	case isa.FnRound:
		return math.RoundToEven(x)
	case isa.FnSign:
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x // ±0 and NaN
	case isa.FnNot:
		if x == 0 {
			return 1
		}
		return 0
	}
	return x
}

// Reduce folds float values in index order, computing in ct, f32 or f64
// (integers: IntReduce).
func Reduce(ct isa.DType, fn uint8, vals []float64) float64 {
	f32 := rounding(ct)
	acc := vals[0]
	for _, v := range vals[1:] {
		switch fn {
		case isa.RedSum:
			acc = f32(acc + v)
		case isa.RedMax:
			acc = Binary(ct, isa.VMax, acc, v)
		case isa.RedMin:
			acc = Binary(ct, isa.VMin, acc, v)
		}
	}
	return acc
}

// MatMul computes out[M,N] = x[M,K] @ w[K,N] the way the array does: every
// output is summed down its column, k = 0..K-1, starting from zero, each
// product and each partial sum rounded to f32 (s32 wrapping for integers).
// Products of bf16 and f16 inputs are exact in f32.
func MatMul(x, w []float64, m, k, n int, intClass bool) []float64 {
	out := make([]float64, m*n)
	if intClass {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var acc int32
				for t := 0; t < k; t++ {
					acc += int32(x[i*k+t]) * int32(w[t*n+j])
				}
				out[i*n+j] = float64(acc)
			}
		}
		return out
	}
	xs := make([]float32, len(x))
	for i, v := range x {
		xs[i] = float32(v)
	}
	// Transposed weights keep the inner loop sequential in memory.
	wt := make([]float32, len(w))
	for t := 0; t < k; t++ {
		for j := 0; j < n; j++ {
			wt[j*k+t] = float32(w[t*n+j])
		}
	}
	for i := 0; i < m; i++ {
		row := xs[i*k : (i+1)*k]
		for j := 0; j < n; j++ {
			col := wt[j*k : (j+1)*k]
			var acc float32
			for t, a := range row {
				p := float32(a * col[t])
				acc = float32(acc + p)
			}
			out[i*n+j] = float64(acc)
		}
	}
	return out
}

func mathFloat32frombits(b uint32) float32 { return math.Float32frombits(b) }
