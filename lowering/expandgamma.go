package lowering

import "math"

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
