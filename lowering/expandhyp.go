package lowering

// Expansions of the exponential family and rounding ops the vector unit
// lacks (expand.go has the mechanism): expm1, cosh, sinh, cbrt, the inverse
// hyperbolics and round-half-away-from-zero. Each computes in f32 scratch
// tiles and converts once at the end; each is checked within a few ulps of
// float64 on wide ranges and on zeros, infinities and NaN
// (TestExpandedElementwise).

func init() {
	f := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = "f32"
		}
		return append(s, "pred")
	}
	expansions["exponential-minus-one"] = expansion{scratch: f(4), emit: expm1}
	expansions["cosh"] = expansion{scratch: f(3), emit: cosh}
	expansions["sinh"] = expansion{scratch: f(7), emit: sinh}
	expansions["cbrt"] = expansion{scratch: f(4), emit: cbrt}
	expansions["round-nearest-afz"] = expansion{scratch: f(4), emit: roundAFZ}
	expansions["atanh"] = expansion{scratch: f(6), emit: atanh}
	expansions["asinh"] = expansion{scratch: f(6), emit: asinh}
	expansions["acosh"] = expansion{scratch: f(6), emit: acosh}
}

// expm1Into computes e^x - 1 of the f32 tile x into r (Kahan: u = e^x,
// (u - 1) x / log u, accurate to a few ulps where e^x - 1 alone cancels):
// x itself where u rounds to 1, -1 where it rounds to 0, u - 1 where the
// quotient is NaN (x infinite). Scratch a, b; mask m. x is kept.
func expm1Into(r, x, a, b, m string) []string {
	return []string{
		"vexp    " + a + ", " + x,             // u
		"vscale  " + r + ", " + a + ", 1, -1", // u - 1
		"vlog    " + b + ", " + a,
		"vdiv    " + b + ", " + x + ", " + b,
		"vmul    " + b + ", " + r + ", " + b,
		"vcmp.ne " + m + ", " + b + ", " + b, // NaN: x is +-inf (or NaN)
		"vsel    " + b + ", " + m + ", " + r,
		"vfill   " + r + ", 1",
		"vcmp.eq " + m + ", " + a + ", " + r, // u == 1
		"vsel    " + b + ", " + m + ", " + x,
		"vfill   " + r + ", 0",
		"vcmp.eq " + m + ", " + a + ", " + r, // u == 0
		"vfill   " + r + ", -1",
		"vsel    " + b + ", " + m + ", " + r,
		"vcopy   " + r + ", " + b,
	}
}

func expm1(dst string, args, t []string) []string {
	x, r, a, b, m := t[0], t[1], t[2], t[3], t[4]
	seq := []string{"vcvt    " + x + ", " + args[0]}
	seq = append(seq, expm1Into(r, x, a, b, m)...)
	return append(seq, "vcvt    "+dst+", "+r)
}

// cosh x = e^2/2 + 1/(2 e^2) with e = e^(|x|/2): no cancellation, and no
// overflow until cosh itself overflows (e^|x| alone would at 88.7).
func cosh(dst string, args, t []string) []string {
	a, e, r := t[0], t[1], t[2]
	return []string{
		"vcvt    " + a + ", " + args[0],
		"vabs    " + a + ", " + a,
		"vscale  " + a + ", " + a + ", 0.5, 0",
		"vexp    " + e + ", " + a,
		"vscale  " + a + ", " + e + ", 0.5, 0",
		"vmul    " + a + ", " + a + ", " + e, // e^2 / 2
		"vmul    " + r + ", " + e + ", " + e,
		"vrcp    " + r + ", " + r,
		"vscale  " + r + ", " + r + ", 0.5, 0",
		"vadd    " + a + ", " + a + ", " + r,
		"vcvt    " + dst + ", " + a,
	}
}

// sinh x = sign(x) s(|x|): below 1, s = (E + E/(E+1))/2 with E = expm1(|x|)
// (no cancellation); from 1 on, e^2/2 - 1/(2 e^2) with e = e^(|x|/2), as
// for cosh. Zeros keep their sign; NaN stays NaN.
func sinh(dst string, args, t []string) []string {
	x, a, r, p, q, big, sgn, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vsign   " + sgn + ", " + x,
		"vabs    " + a + ", " + x,
	}
	seq = append(seq, expm1Into(r, a, p, q, m)...) // r = E
	seq = append(seq,
		"vscale  "+p+", "+r+", 1, 1",
		"vdiv    "+p+", "+r+", "+p,
		"vadd    "+p+", "+p+", "+r,
		"vscale  "+p+", "+p+", 0.5, 0", // small |x|
		"vscale  "+q+", "+a+", 0.5, 0",
		"vexp    "+q+", "+q, // e
		"vscale  "+big+", "+q+", 0.5, 0",
		"vmul    "+big+", "+big+", "+q,
		"vmul    "+q+", "+q+", "+q,
		"vrcp    "+q+", "+q,
		"vscale  "+q+", "+q+", -0.5, 0",
		"vadd    "+big+", "+big+", "+q, // large |x|
		"vfill   "+q+", 1",
		"vcmp.ge "+m+", "+a+", "+q,
		"vsel    "+p+", "+m+", "+big,
		"vmul    "+p+", "+p+", "+sgn,
		"vfill   "+q+", 0",
		"vcmp.eq "+m+", "+x+", "+q,
		"vsel    "+p+", "+m+", "+x, // signed zeros
		"vcvt    "+dst+", "+p,
	)
	return seq
}

// cbrt x = sign(x) e^(log|x| / 3), then one Newton step y -= (y^3 - x) /
// (3 y^2) (within an ulp); x itself where it is 0, infinite or NaN.
func cbrt(dst string, args, t []string) []string {
	x, y, a, b, m := t[0], t[1], t[2], t[3], t[4]
	return []string{
		"vcvt    " + x + ", " + args[0],
		"vabs    " + y + ", " + x,
		"vlog    " + y + ", " + y,
		"vscale  " + y + ", " + y + ", " + f32imm(1.0/3) + ", 0",
		"vexp    " + y + ", " + y,
		"vsign   " + a + ", " + x,
		"vmul    " + y + ", " + y + ", " + a,
		// Newton: y = (2y + x/y^2) / 3
		"vmul    " + a + ", " + y + ", " + y,
		"vdiv    " + a + ", " + x + ", " + a,
		"vscale  " + b + ", " + y + ", 2, 0",
		"vadd    " + a + ", " + a + ", " + b,
		"vscale  " + y + ", " + a + ", " + f32imm(1.0/3) + ", 0",
		"vcmp.ne " + m + ", " + y + ", " + y, // 0, infinities: NaN from the step
		"vsel    " + y + ", " + m + ", " + x,
		"vfill   " + a + ", 0",
		"vcmp.eq " + m + ", " + x + ", " + a,
		"vsel    " + y + ", " + m + ", " + x, // -0 stays -0
		"vcvt    " + dst + ", " + y,
	}
}

// roundAFZ rounds half away from zero: f = floor|x|, plus one where |x| -
// f (exact) is at least 1/2, with x's sign. (|x| + 1/2 would round up
// odd integers past 2^23 before the floor.)
func roundAFZ(dst string, args, t []string) []string {
	x, f, d, h, m := t[0], t[1], t[2], t[3], t[4]
	return []string{
		"vcvt    " + x + ", " + args[0],
		"vabs    " + d + ", " + x,
		"vfloor  " + f + ", " + d,
		"vsub    " + d + ", " + d + ", " + f,
		"vfill   " + h + ", 0.5",
		"vcmp.ge " + m + ", " + d + ", " + h,
		"vscale  " + h + ", " + f + ", 1, 1",
		"vsel    " + f + ", " + m + ", " + h,
		"vfill   " + h + ", 0",
		"vcmp.lt " + m + ", " + x + ", " + h,
		"vneg    " + h + ", " + f,
		"vsel    " + f + ", " + m + ", " + h,
		"vcmp.ne " + m + ", " + x + ", " + x,
		"vsel    " + f + ", " + m + ", " + x, // NaN
		"vcvt    " + dst + ", " + f,
	}
}

// log1pInto computes log(1 + v) of the f32 tile v into r (logPlusOne's
// method: see there; v is kept; scratch a, b; mask m).
func log1pInto(r, v, a, b, m string) []string {
	return []string{
		"vscale  " + a + ", " + v + ", 1, 1", // u
		"vlog    " + r + ", " + a,
		"vscale  " + a + ", " + a + ", 1, -1", // u - 1
		"vfill   " + b + ", 0",
		"vcmp.eq " + m + ", " + a + ", " + b,
		"vdiv    " + a + ", " + v + ", " + a,
		"vmul    " + b + ", " + r + ", " + a,
		"vsel    " + b + ", " + m + ", " + v,
		"vcmp.ne " + m + ", " + b + ", " + b,
		"vsel    " + b + ", " + m + ", " + r,
		"vcopy   " + r + ", " + b,
	}
}

// atanh x = (log1p(x) - log1p(-x)) / 2: each log1p well conditioned
// where the other is not (near -1 and 1), no cancellation near 0; +-inf at
// +-1, NaN beyond.
func atanh(dst string, args, t []string) []string {
	x, v, r, a, b, p, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	seq := []string{"vcvt    " + x + ", " + args[0]}
	seq = append(seq, log1pInto(p, x, a, b, m)...)
	seq = append(seq, "vneg    "+v+", "+x)
	seq = append(seq, log1pInto(r, v, a, b, m)...)
	return append(seq,
		"vsub    "+r+", "+p+", "+r,
		"vscale  "+r+", "+r+", 0.5, 0",
		"vcvt    "+dst+", "+r,
	)
}

// asinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) up to 2^12, and
// sign(x) (log|x| + log 2) beyond, where x^2 would lose 1 (and overflow).
func asinh(dst string, args, t []string) []string {
	x, v, r, a, b, big, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vabs    " + big + ", " + x,
		"vmul    " + a + ", " + big + ", " + big,
		"vscale  " + b + ", " + a + ", 1, 1",
		"vsqrt   " + b + ", " + b,
		"vscale  " + b + ", " + b + ", 1, 1",
		"vdiv    " + a + ", " + a + ", " + b,
		"vadd    " + v + ", " + big + ", " + a,
	}
	seq = append(seq, log1pInto(r, v, a, b, m)...)
	seq = append(seq,
		"vlog    "+a+", "+big,
		"vscale  "+a+", "+a+", 1, "+f32imm(0.6931471805599453),
		"vfill   "+b+", 4096",
		"vcmp.gt "+m+", "+big+", "+b,
		"vsel    "+r+", "+m+", "+a,
		"vsign   "+a+", "+x,
		"vmul    "+r+", "+r+", "+a,
		"vfill   "+b+", 0",
		"vcmp.eq "+m+", "+x+", "+b,
		"vsel    "+r+", "+m+", "+x, // signed zeros
		"vcvt    "+dst+", "+r,
	)
	return seq
}

// acosh x = log1p((x - 1) + sqrt((x - 1)(x + 1))) up to 2^12, log x + log 2
// beyond; NaN below 1.
func acosh(dst string, args, t []string) []string {
	x, v, r, a, b, big, m := t[0], t[1], t[2], t[3], t[4], t[5], t[6]
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vscale  " + v + ", " + x + ", 1, -1",
		"vscale  " + a + ", " + x + ", 1, 1",
		"vmul    " + a + ", " + a + ", " + v,
		"vsqrt   " + a + ", " + a,
		"vadd    " + v + ", " + v + ", " + a,
	}
	seq = append(seq, log1pInto(r, v, a, b, m)...)
	return append(seq,
		"vlog    "+big+", "+x,
		"vscale  "+big+", "+big+", 1, "+f32imm(0.6931471805599453),
		"vfill   "+b+", 4096",
		"vcmp.gt "+m+", "+x+", "+b,
		"vsel    "+r+", "+m+", "+big,
		"vfill   "+b+", 1",
		"vcmp.lt "+m+", "+x+", "+b, // below 1: NaN (sqrt of -1)
		"vfill   "+b+", -1",
		"vsqrt   "+b+", "+b,
		"vsel    "+r+", "+m+", "+b,
		"vcvt    "+dst+", "+r,
	)
}
