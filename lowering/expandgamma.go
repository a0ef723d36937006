package lowering

import (
	"fmt"
	"math"
)

// lgamma by the Lanczos approximation (g = 7, nine coefficients: the
// published set of Numerical Recipes and Boost, as XLA's math library
// uses) for x >= 1/2, and the reflection lgamma(x) = log(pi) -
// log|sin(pi x)| - lgamma(1 - x) below, with sin(pi x) taken of x's
// distance to the nearest integer so that it stays exact near the poles
// (where lgamma is +inf). log(z + g + 1/2) is split as log(g + 1/2) +
// log1p(z / (g + 1/2)).

var lanczos = [...]float64{
	0.99999999999980993, 676.5203681218851, -1259.1392167224028,
	771.32342877765313, -176.61502916214059, 12.507343278686905,
	-0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
}

func init() {
	s := make([]string, 8)
	for i := range s {
		s[i] = "f32"
	}
	s = append(s, "pred")
	s = append(s, "f32", "f32", "f32", "f32", "f32", "pred") // the sine's
	expansions["lgamma"] = expansion{scratch: s, emit: lgamma}
}

func lgamma(dst string, args, t []string) []string {
	x, u, z, acc, tmp, lg, r, w, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]
	sine := t[9:]
	const g = 7.0
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vfill   " + tmp + ", 0.5",
		"vcmp.lt " + m + ", " + x + ", " + tmp, // reflect below 1/2
		"vscale  " + u + ", " + x + ", -1, 1",
		"vcopy   " + w + ", " + x,
		"vsel    " + w + ", " + m + ", " + u,  // w = x or 1 - x
		"vscale  " + z + ", " + w + ", 1, -1", // z = w - 1
		"vfill   " + acc + ", " + f32imm(lanczos[0]),
	}
	for i := 1; i < len(lanczos); i++ {
		seq = append(seq,
			"vscale  "+tmp+", "+z+", 1, "+f32imm(float64(i)),
			"vrcp    "+tmp+", "+tmp,
			"vscale  "+tmp+", "+tmp+", "+f32imm(lanczos[i])+", 0",
			"vadd    "+acc+", "+acc+", "+tmp,
		)
	}
	// (z + 1/2) log(t) - t + log(acc) + log(2 pi)/2, t = z + g + 1/2
	seq = append(seq,
		"vscale  "+tmp+", "+z+", "+f32imm(1/(g+0.5))+", 0",
	)
	seq = append(seq, log1pInto(lg, tmp, u, r, m)...) // (m is free again below)
	seq = append(seq,
		"vscale  "+lg+", "+lg+", 1, "+f32imm(math.Log(g+0.5)), // log t
		"vscale  "+tmp+", "+z+", 1, 0.5",
		"vmul    "+lg+", "+lg+", "+tmp,
		"vscale  "+tmp+", "+z+", 1, "+f32imm(g+0.5),
		"vsub    "+lg+", "+lg+", "+tmp,
		"vlog    "+acc+", "+acc,
		"vadd    "+lg+", "+lg+", "+acc,
		"vscale  "+lg+", "+lg+", 1, "+f32imm(0.5*math.Log(2*math.Pi)), // lgamma(w)
		// the reflection: log(pi) - log|sin(pi r)| - lgamma(1 - x), r = x - round(x)
		"vround  "+r+", "+x,
		"vsub    "+r+", "+x+", "+r,
		"vscale  "+r+", "+r+", "+f32imm(math.Pi)+", 0",
	)
	seq = append(seq, sincos(r, r, sine, false)...)
	seq = append(seq,
		"vabs    "+r+", "+r,
		"vlog    "+r+", "+r,
		"vadd    "+r+", "+r+", "+lg,
		"vscale  "+r+", "+r+", -1, "+f32imm(math.Log(math.Pi)),
		"vfill   "+tmp+", 0.5",
		"vcmp.lt "+m+", "+x+", "+tmp,
		"vsel    "+lg+", "+m+", "+r,
		// +-inf: +inf (the series and the reflection give NaN there)
		"vabs    "+tmp+", "+x,
		"vcmp.ne "+m+", "+lg+", "+lg,
		"vsel    "+lg+", "+m+", "+tmp,
		"vcmp.ne "+m+", "+x+", "+x,
		"vsel    "+lg+", "+m+", "+x, // NaN stays NaN
		"vcvt    "+dst+", "+lg,
	)
	return seq
}

func init() {
	s := []string{"f32", "f32", "f32", "f32", "f32", "f32", "f32", "pred"}
	s = append(s, "f32", "f32", "f32", "f32", "f32", "pred") // the sine's and cosine's
	expansions["digamma"] = expansion{scratch: s, emit: digamma}
}

// digamma as the evaluator computes it: psi(w) = psi(w + 6) - sum_k<6
// 1/(w + k), the asymptotic series at w + 6, and for x <= 0 the reflection
// psi(x) = psi(1 - x) - pi / tan(pi x), tan taken of x's distance to the
// nearest integer; NaN at the poles (non-positive integers) and at -inf.
func digamma(dst string, args, t []string) []string {
	x, w, r, y, a, b, c, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
	trig := t[8:]
	m2 := trig[5] // the sine's mask, free outside it
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vfill   " + a + ", 0",
		"vcmp.le " + m + ", " + x + ", " + a,
		"vscale  " + b + ", " + x + ", -1, 1",
		"vcopy   " + w + ", " + x,
		"vsel    " + w + ", " + m + ", " + b, // w = x, or 1 - x to reflect
		"vfill   " + r + ", 0",
	}
	for k := 0; k < 6; k++ {
		seq = append(seq,
			"vscale  "+a+", "+w+", 1, "+fmt.Sprint(k),
			"vrcp    "+a+", "+a,
			"vsub    "+r+", "+r+", "+a,
		)
	}
	// t = f (-1/12 + f (1/120 + f (-1/252 + f (1/240 + f (-1/132 + f (691/32760 - f/12)))))), f = 1/y^2
	seq = append(seq,
		"vscale  "+y+", "+w+", 1, 6",
		"vmul    "+b+", "+y+", "+y,
		"vrcp    "+b+", "+b,
		"vscale  "+a+", "+b+", "+f32imm(-1.0/12)+", "+f32imm(691.0/32760),
	)
	for _, k := range []float64{-1.0 / 132, 1.0 / 240, -1.0 / 252, 1.0 / 120, -1.0 / 12} {
		seq = append(seq, "vmul    "+a+", "+a+", "+b, "vscale  "+a+", "+a+", 1, "+f32imm(k))
	}
	seq = append(seq,
		"vmul    "+a+", "+a+", "+b,
		"vadd    "+r+", "+r+", "+a,
		"vlog    "+a+", "+y,
		"vadd    "+r+", "+r+", "+a,
		"vrcp    "+a+", "+y,
		"vscale  "+a+", "+a+", -0.5, 0",
		"vadd    "+r+", "+r+", "+a, // psi(w)
		"vround  "+c+", "+x,
		"vsub    "+c+", "+x+", "+c,
		"vscale  "+c+", "+c+", "+f32imm(math.Pi)+", 0",
	)
	seq = append(seq, sincos(a, c, trig, false)...)
	seq = append(seq, sincos(b, c, trig, true)...)
	seq = append(seq,
		"vdiv    "+b+", "+b+", "+a, // cos/sin = 1/tan
		"vscale  "+b+", "+b+", "+f32imm(-math.Pi)+", 0",
		"vadd    "+b+", "+r+", "+b,
		"vsel    "+r+", "+m+", "+b, // reflected where x <= 0
		"vfloor  "+a+", "+x,
		"vcmp.eq "+m2+", "+a+", "+x,
		"vand    "+m+", "+m+", "+m2, // a pole: x <= 0 and an integer (or -inf)
		"vfill   "+a+", -1",
		"vsqrt   "+a+", "+a,
		"vsel    "+r+", "+m+", "+a,
		"vcvt    "+dst+", "+r,
	)
	return seq
}
