package lowering

// tan, asin and acos from the sine, cosine and atan2 sequences
// (expand.go): tan x = sin x / cos x over one shared argument; asin x =
// atan2(x, sqrt((1 - x)(1 + x))) and acos x = atan2(sqrt((1 - x)(1 + x)),
// x), the factored form keeping 1 - x^2 exact near +-1. NaN outside
// [-1, 1] (the square root of a negative).

func init() {
	trig := []string{"f32", "f32", "f32", "f32", "f32", "pred"}
	expansions["tan"] = expansion{scratch: append([]string{"f32", "f32"}, trig...), emit: tan}
	arc := []string{"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "pred"}
	expansions["asin"] = expansion{scratch: arc, emit: func(d string, a, t []string) []string { return arcsin(d, a, t, false) }}
	expansions["acos"] = expansion{scratch: arc, emit: func(d string, a, t []string) []string { return arcsin(d, a, t, true) }}
}

func tan(dst string, args, t []string) []string {
	s, c, rest := t[0], t[1], t[2:]
	seq := sincos(s, args[0], rest, false)
	seq = append(seq, sincos(c, args[0], rest, true)...)
	return append(seq, "vdiv    "+s+", "+s+", "+c, "vcvt    "+dst+", "+s)
}

func arcsin(dst string, args, t []string, cosine bool) []string {
	x, r, rest := t[0], t[1], t[2:]
	seq := []string{
		"vcvt    " + x + ", " + args[0],
		"vscale  " + r + ", " + x + ", -1, 1",
		"vscale  " + rest[0] + ", " + x + ", 1, 1",
		"vmul    " + r + ", " + r + ", " + rest[0],
		"vsqrt   " + r + ", " + r,
	}
	if cosine {
		return append(seq, atan2(dst, []string{r, x}, rest)...)
	}
	return append(seq, atan2(dst, []string{x, r}, rest)...)
}
