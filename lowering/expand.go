package lowering

import (
	"fmt"
	"math"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Elementwise ops with no vector instruction of their own are expanded
// into sequences of vector instructions, as XLA expands sine or
// log-plus-one into range reductions, polynomials and selects for a TPU's
// vector unit. The sequences compute in f32 scratch tiles the kernel
// allocates next to the op's own tile, so bf16 and f16 operands are
// reduced and evaluated at f32 precision and rounded once at the end.

// expansion is one op's sequence.
type expansion struct {
	scratch []string // element types of the scratch tiles
	// emit returns the instructions (mnemonic and operands, one per
	// line) computing dst from the operand tiles with the scratch tiles.
	emit func(dst string, args, tmp []string) []string
}

var expansions = map[string]expansion{
	"sine":         {scratch: []string{"f32", "f32", "f32", "f32", "f32", "pred"}, emit: func(d string, a, t []string) []string { return sincos(d, a[0], t, false) }},
	"cosine":       {scratch: []string{"f32", "f32", "f32", "f32", "f32", "pred"}, emit: func(d string, a, t []string) []string { return sincos(d, a[0], t, true) }},
	"is-finite":    {scratch: []string{"f32"}, emit: isFinite},
	"log-plus-one": {scratch: []string{"f32", "f32", "f32", "f32", "pred"}, emit: logPlusOne},
	"atan2":        {scratch: []string{"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "pred"}, emit: atan2},
	// reduce-precision to bf16's 8 exponent and 7 mantissa bits (the only
	// form in the corpus, checked by checkElementwise): a round trip
	// through a bf16 tile, which rounds to nearest even as XLA does.
	"reduce-precision": {scratch: []string{"bf16"}, emit: func(d string, a, t []string) []string {
		return []string{"vcvt    " + t[0] + ", " + a[0], "vcvt    " + d + ", " + t[0]}
	}},
}

// scratchName is the buffer name of an expanded op's i-th scratch tile.
func scratchName(op string, i int) string { return fmt.Sprintf("%s~%d", op, i) }

// f32imm prints an f32 immediate exactly (the assembler rounds decimal
// text to f32; 9 significant digits always round back to the same bits).
func f32imm(x float64) string { return fmt.Sprintf("%.9g", float32(x)) }

// sincos: x = k*pi/2 + r with k = round(x*2/pi) and r in [-pi/4, pi/4],
// pi/2 split Cody-Waite style in three parts (k*C1 and k*C2 exact for |k|
// below 2^13); then sin r and cos r by their Taylor series (odd to degree
// 13, even to degree 14: truncation below 3e-12 on [-pi/4, pi/4]) and the
// quadrant's choice: sin x = [sin r, cos r, -sin r, -cos r][k mod 4], and
// cos x the same at k+1. Near a zero of the result it is sin r of a small
// r, accurate to an ulp or two; a single series over [-pi, pi] lost 20
// ulps there (cos x near pi/2: terms near 1 summing to 0.06).
func sincos(dst, x string, t []string, cosine bool) []string {
	const c1 = 1.5703125 // pi/2's leading 8 bits
	rest := math.Pi/2 - c1
	c2 := math.Float64frombits(math.Float64bits(rest) &^ (1<<41 - 1)) // its next 11 bits
	c3 := rest - c2
	a, b, c, d, e, m := t[0], t[1], t[2], t[3], t[4], t[5]
	seq := []string{
		"vcvt    " + a + ", " + x,
		"vscale  " + b + ", " + a + ", " + f32imm(2/math.Pi) + ", 0",
		"vround  " + b + ", " + b, // k
		"vscale  " + c + ", " + b + ", " + f32imm(-c1) + ", 0",
		"vadd    " + a + ", " + a + ", " + c,
		"vscale  " + c + ", " + b + ", " + f32imm(-c2) + ", 0",
		"vadd    " + a + ", " + a + ", " + c,
		"vscale  " + c + ", " + b + ", " + f32imm(-c3) + ", 0",
		"vadd    " + a + ", " + a + ", " + c, // a = r
	}
	if cosine {
		seq = append(seq, "vscale  "+b+", "+b+", 1, 1") // cos x = sin(x + pi/2): quadrant k+1
	}
	seq = append(seq,
		// b = q = k mod 4, d = floor(q/2) (the sign), e = q mod 2 (which series)
		"vscale  "+d+", "+b+", 0.25, 0",
		"vfloor  "+d+", "+d,
		"vscale  "+d+", "+d+", -4, 0",
		"vadd    "+b+", "+b+", "+d,
		"vscale  "+d+", "+b+", 0.5, 0",
		"vfloor  "+d+", "+d,
		"vscale  "+e+", "+d+", -2, 0",
		"vadd    "+e+", "+e+", "+b,
		"vscale  "+d+", "+d+", -2, 1", // d = 1 or -1
		"vfill   "+c+", 0",
		"vcmp.ne "+m+", "+e+", "+c, // m: the cosine series
		"vmul    "+b+", "+a+", "+a, // b = r^2
	)
	// series appends Horner's rule in r^2 for coefficients (-1)^k/(2k+s)!.
	series := func(dst string, s, top int) {
		coef := func(k int) float64 {
			f := 1.0
			for i := 2; i <= 2*k+s; i++ {
				f *= float64(i)
			}
			if k%2 == 1 {
				return -1 / f
			}
			return 1 / f
		}
		seq = append(seq, "vscale  "+dst+", "+b+", "+f32imm(coef(top))+", "+f32imm(coef(top-1)))
		for k := top - 2; k >= 0; k-- {
			seq = append(seq, "vmul    "+dst+", "+dst+", "+b, "vscale  "+dst+", "+dst+", 1, "+f32imm(coef(k)))
		}
	}
	series(c, 1, 6) // sin r / r
	seq = append(seq, "vmul    "+c+", "+c+", "+a)
	series(e, 0, 7) // cos r
	return append(seq,
		"vsel    "+c+", "+m+", "+e,
		"vmul    "+c+", "+c+", "+d,
		"vcvt    "+dst+", "+c,
	)
}

// isFinite: x - x is 0 for finite x and NaN for infinities and NaN, and
// only NaN is unequal to itself.
func isFinite(dst string, args, t []string) []string {
	a := t[0]
	return []string{
		"vcvt    " + a + ", " + args[0],
		"vsub    " + a + ", " + a + ", " + a,
		"vcmp.eq " + dst + ", " + a + ", " + a,
	}
}

// logPlusOne: log(u) * x / (u - 1) with u = 1 + x rounded (Goldberg's
// "Every computer scientist" theorem 4: accurate to a few ulps where
// log(1 + x) alone loses every digit of a small x); x itself where u
// rounds to 1, and log(u) where the quotient is NaN (x infinite or NaN).
func logPlusOne(dst string, args, t []string) []string {
	a, b, c, d, m := t[0], t[1], t[2], t[3], t[4]
	seq := []string{"vcvt    " + a + ", " + args[0]}
	seq = append(seq, log1pInto(c, a, b, d, m)...)
	return append(seq, "vcvt    "+dst+", "+c)
}

// atan2(y, x): a = min(|y|,|x|) / max(|y|,|x|) in [0, 1] (0 where both are
// zero, 1 where both are infinite); atan(a) by Cephes' atanf — above
// tan(pi/8) as pi/4 + atan((a-1)/(a+1)), then an odd polynomial of degree
// 9, within 2 ulps; then the octant: pi/2 - r where |y| > |x|, pi - r
// where x is negative (min(x, 1/x) < 0, so -0 counts), -r where y is;
// NaN where either operand is NaN.
func atan2(dst string, args, t []string) []string {
	A, B, C, D, E, F, G, H, M := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]
	return []string{
		"vcvt    " + A + ", " + args[0], // y
		"vcvt    " + B + ", " + args[1], // x
		"vabs    " + C + ", " + A,
		"vabs    " + D + ", " + B,
		"vmin    " + E + ", " + C + ", " + D,
		"vmax    " + F + ", " + C + ", " + D,
		"vdiv    " + E + ", " + E + ", " + F,
		"vfill   " + G + ", 0",
		"vcmp.eq " + M + ", " + F + ", " + G,
		"vsel    " + E + ", " + M + ", " + G, // both zero: 0
		"vfill   " + G + ", 1",
		"vcmp.ne " + M + ", " + E + ", " + E,
		"vsel    " + E + ", " + M + ", " + G, // both infinite: 1
		"vfill   " + G + ", " + f32imm(math.Sqrt2-1),
		"vcmp.gt " + M + ", " + E + ", " + G,
		"vscale  " + G + ", " + E + ", 1, -1",
		"vscale  " + H + ", " + E + ", 1, 1",
		"vdiv    " + G + ", " + G + ", " + H,
		"vsel    " + E + ", " + M + ", " + G, // t
		"vmul    " + G + ", " + E + ", " + E, // z
		"vscale  " + H + ", " + G + ", " + f32imm(8.05374449538e-2) + ", " + f32imm(-1.38776856032e-1),
		"vmul    " + H + ", " + H + ", " + G,
		"vscale  " + H + ", " + H + ", 1, " + f32imm(1.99777106478e-1),
		"vmul    " + H + ", " + H + ", " + G,
		"vscale  " + H + ", " + H + ", 1, " + f32imm(-3.33329491539e-1),
		"vmul    " + H + ", " + H + ", " + G,
		"vmul    " + H + ", " + H + ", " + E,
		"vadd    " + E + ", " + H + ", " + E, // atan(t)
		"vscale  " + H + ", " + E + ", 1, " + f32imm(math.Pi/4),
		"vsel    " + E + ", " + M + ", " + H, // atan(a)
		"vcmp.gt " + M + ", " + C + ", " + D,
		"vscale  " + H + ", " + E + ", -1, " + f32imm(math.Pi/2),
		"vsel    " + E + ", " + M + ", " + H,
		"vfill   " + G + ", 0",
		"vrcp    " + H + ", " + B,
		"vmin    " + H + ", " + H + ", " + B, // below 0 for x < 0 and x = -0
		"vcmp.lt " + M + ", " + H + ", " + G,
		"vscale  " + H + ", " + E + ", -1, " + f32imm(math.Pi),
		"vsel    " + E + ", " + M + ", " + H,
		"vrcp    " + H + ", " + A,
		"vmin    " + H + ", " + H + ", " + A,
		"vcmp.lt " + M + ", " + H + ", " + G,
		"vneg    " + H + ", " + E,
		"vsel    " + E + ", " + M + ", " + H,
		"vcmp.ne " + M + ", " + A + ", " + A,
		"vsel    " + E + ", " + M + ", " + A,
		"vcmp.ne " + M + ", " + B + ", " + B,
		"vsel    " + E + ", " + M + ", " + B,
		"vcvt    " + dst + ", " + E,
	}
}

// emitExpansion writes an expanded op's sequence, the kernel's wait on
// its first instruction and its signal on the last.
// Every instruction carries the op's .loc (the caller wrote the first).
func (c *compiler) emitExpansion(b *hlo.Instruction, e expansion, dst string, args []string, tmp []string, sync string) {
	first, last := splitSync(sync)
	seq := e.emit(dst, args, tmp)
	for i, s := range seq {
		suffix := ""
		if i == 0 {
			suffix = first
		} else {
			c.loc(b)
		}
		if i == len(seq)-1 {
			suffix += last
		}
		mn, rest, _ := strings.Cut(s, " ")
		fmt.Fprintf(&c.out, "        %-7s %s%s\n", mn, strings.TrimSpace(rest), suffix)
	}
}
