package expand

import (
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
)

// Cephes' i1e Chebyshev coefficients (A for |x| <= 8 in x/2 - 2, B beyond
// in 32/x - 2), single and double precision.
var (
	i1eA32 = []float64{9.38153738649577178388e-9, -4.44505912879632808065e-8, 2.00329475355213526229e-7,
		-8.56872026469545474066e-7, 3.47025130813767847674e-6, -1.32731636560394358279e-5,
		4.78156510755005422638e-5, -1.61760815825896745588e-4, 5.12285956168575772895e-4,
		-1.51357245063125314899e-3, 4.15642294431288815669e-3, -1.05640848946261981558e-2,
		2.47264490306265168283e-2, -5.29459812080949914269e-2, 1.02643658689847095384e-1,
		-1.76416518357834055153e-1, 2.52587186443633654823e-1}
	i1eB32 = []float64{-3.83538038596423702205e-9, -2.63146884688951950684e-8, -2.51223623787020892529e-7,
		-3.88256480887769039346e-6, -1.10588938762623716291e-4, -9.76109749136146840777e-3,
		7.78576235018280120474e-1}
	i1eA64 = append([]float64{2.77791411276104639959e-18, -2.11142121435816608115e-17,
		1.55363195773620046921e-16, -1.10559694773538630805e-15, 7.60068429473540693410e-15,
		-5.04218550472791168711e-14, 3.22379336594557470981e-13, -1.98397439776494371520e-12,
		1.17361862988909016308e-11, -6.66348972350202774223e-11, 3.62559028155211703701e-10,
		-1.88724975172282928790e-9}, i1eA32...)
	i1eB64 = append([]float64{7.51729631084210481353e-18, 4.41434832307170791151e-18,
		-4.65030536848935832153e-17, -3.20952592199342395980e-17, 2.96262899764595013876e-16,
		3.30820231092092828324e-16, -1.88035477551078244854e-15, -3.81440307243700780478e-15,
		1.04202769841288027642e-14, 4.27244001671195135429e-14, -2.10154184277266431302e-14,
		-4.08355111109219731823e-13, -7.19855177624590851209e-13, 2.03562854414708950722e-12,
		1.41258074366137813316e-11, 3.25260358301548823856e-11, -1.89749581235054123450e-11,
		-5.58974346219658380687e-10}, i1eB32...)
)

// ExpandBesselI1es rewrites bessel-i1e, I1(x) e^-|x|, as XLA computes it
// (Cephes' Chebyshev series; f16 and bf16 in f32) for the chips. The
// evaluator computes it directly (a power series, then Hankel's
// expansion): the oracle.
func ExpandBesselI1es(m *hlo.Module) error {
	return rewriteUnaryFloat(m, "bessel-i1e", func(x *rewriter, a *hlo.Instruction, wide bool) *hlo.Instruction {
		if wide {
			return x.besselI1e(a, i1eA64, i1eB64, 64)
		}
		return x.besselI1e(a, i1eA32, i1eB32, 32)
	})
}

func (x *rewriter) besselI1e(a *hlo.Instruction, ca, cb []float64, bits int) *hlo.Instruction {
	d, elem := a.Shape.Dims, a.Shape.Elem
	c := func(v float64) *hlo.Instruction {
		return x.Broadcast(x.Constant(elem, strconv.FormatFloat(v, 'g', -1, bits)), d, nil)
	}
	mul := func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("multiply", p, q) }
	sub := func(p, q *hlo.Instruction) *hlo.Instruction { return x.Binary("subtract", p, q) }
	// chebyshev is Cephes' chbevl: the series in t, halved.
	chebyshev := func(t *hlo.Instruction, cs []float64) *hlo.Instruction {
		b0, b1, b2 := c(0), c(0), c(0)
		for _, k := range cs {
			b2, b1 = b1, b0
			b0 = x.Binary("add", sub(mul(t, b1), b2), c(k))
		}
		return mul(c(0.5), sub(b0, b2))
	}
	z := x.Emit("abs", elem, d, []*hlo.Instruction{a})
	near := mul(z, chebyshev(sub(mul(c(0.5), z), c(2)), ca))
	far := x.Binary("divide", chebyshev(sub(x.Binary("divide", c(32), z), c(2)), cb), x.Emit("sqrt", elem, d, []*hlo.Instruction{z}))
	le := x.Emit("compare", "pred", d, []*hlo.Instruction{z, c(8)}, "direction", "LE")
	r := x.Emit("select", elem, d, []*hlo.Instruction{le, near, far})
	return mul(x.Emit("sign", elem, d, []*hlo.Instruction{a}), r)
}
