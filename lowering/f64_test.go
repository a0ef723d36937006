package lowering_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
)

// f64 programs (JAX with x64 enabled) computed in f64 on the vector unit
// and checked against the evaluator, which computes them in float64.
func TestF64(t *testing.T) {
	cases := map[string]string{
		"elementwise, constants and conversions": `ENTRY e {
  x = f64[130,70] parameter(0)
  y = f64[130,70] parameter(1)
  tenth = f64[] constant(0.1)
  bt = f64[130,70] broadcast(tenth), dimensions={}
  half = f64[] constant(0.5)
  bh = f64[130,70] broadcast(half), dimensions={}
  a = f64[130,70] add(x, bt)
  m = f64[130,70] multiply(a, y)
  d = f64[130,70] divide(m, bh)
  ax = f64[130,70] abs(x)
  s = f64[130,70] sqrt(ax)
  ex = f64[130,70] exponential(y)
  l = f64[130,70] log(ex)
  th = f64[130,70] tanh(d)
  c = pred[130,70] compare(x, y), direction=LT
  sel = f64[130,70] select(c, s, l)
  f = f32[130,70] convert(sel)
  back = f64[130,70] convert(f)
  r = f64[130,70] subtract(sel, back)
  ROOT t = (f64[130,70], f64[130,70], f32[130,70], f64[130,70]) tuple(th, sel, f, r)
}`,
		"sums, pads and transposes": `add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY e {
  x = f64[64,48] parameter(0)
  z = f64[] constant(0)
  r = f64[64] reduce(x, z), dimensions={1}, to_apply=add
  c = f64[48] reduce(x, z), dimensions={0}, to_apply=add
  third = f64[] constant(0.3333333333333333)
  p = f64[66,50] pad(x, third), padding=1_1x1_1
  tr = f64[48,64] transpose(x), dimensions={1,0}
  ROOT t = (f64[64], f64[48], f64[66,50], f64[48,64]) tuple(r, c, p, tr)
}`,
	}
	for name, src := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
}

// f64 results are float64's own, bit for bit: an f32 step anywhere would
// lose the low bits of 1 + 2^-40.
func TestF64Exact(t *testing.T) {
	src := `ENTRY e {
  a = f64[4] constant({1, 3, 1e300, -2.5e-310})
  b = f64[4] constant({9.094947017729282e-13, 0.1, 1e300, 1e-10})
  s = f64[4] add(a, b)
  m = f64[4] multiply(a, b)
  ROOT t = (f64[4], f64[4]) tuple(s, m)
}`
	a := []float64{1, 3, 1e300, -2.5e-310}
	b := []float64{9.094947017729282e-13, 0.1, 1e300, 1e-10}
	for _, chipName := range chips {
		outs, _ := rawOutputs(t, chipName, src)
		for o, vals := range outs {
			for i, v := range vals {
				want := a[i] + b[i]
				if o == 1 {
					want = a[i] * b[i]
				}
				require.Equal(t, math.Float64bits(want), math.Float64bits(v), "%s output %d [%d]: %v", chipName, o, i, v)
			}
		}
	}
}

// What the vector unit cannot compute to f64's precision is refused with
// the reason, never rounded through f32.
func TestF64Refused(t *testing.T) {
	cases := []struct{ name, chip, src, want string }{
		{"no f64 arithmetic on the chip", "trn1nc", `ENTRY e {
  x = f64[8] parameter(0)
  ROOT y = f64[8] add(x, x)
}`, "vpu.f64_cost is 0"},
		{"f32-accurate vector sequence", "teach16", `ENTRY e {
  x = f64[8] parameter(0)
  ROOT y = f64[8] sine(x)
}`, "accurate to f32"},
		{"f64 erf-inv (XLA's f64 approximation needs f64 log1p)", "teach16", `ENTRY e {
  x = f64[8] parameter(0)
  ROOT y = f64[8] erf-inv(x)
}`, "erf-inv"},
		{"a dot summing in f64", "tpuv4core", `ENTRY e {
  x = f32[4,3] parameter(0)
  y = f32[3,6] parameter(1)
  ROOT d = f64[4,6] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, "accumulates in f32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := hlo.Parse("t.hlo", c.src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("t.hlo", m))
			chip, err := config.Load(c.chip, nil)
			require.NoError(t, err)
			_, err = lowering.Compile("t.hlo", m, chip)
			var le *lowering.Error
			require.ErrorAs(t, err, &le, "%v", err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// TestF64Erf: f64 erf runs as XLA's f64 approximation (Cephes' rational
// functions, expand.ExpandErfAndActivations), not the f32 polynomial, on
// both chips against the evaluator's math.Erf.
func TestF64Erf(t *testing.T) {
	src := `ENTRY e {
  x = f64[256] parameter(0)
  k = f64[256] broadcast(f64[] constant(4)), dimensions={}
  ROOT y = f64[256] erf(f64[256] multiply(x, k))
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
}
