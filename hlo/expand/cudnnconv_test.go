package expand_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/expand"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestCudnnConvBackwardAreAdjoints checks the backward cuDNN calls against
// what they must be, not against a second copy of their formulas: for
// y = conv(x, w), dx = convBackwardInput(dy, w) and dw =
// convBackwardFilter(x, dy) are the adjoints, so <y, dy> = <x, dx> =
// <w, dw> for any x, w, dy. Strides that do not divide, uneven and
// oversized padding, dilation, 1-D and 2-D, three layouts.
func TestCudnnConvBackwardAreAdjoints(t *testing.T) {
	for _, c := range []struct {
		name              string
		x, w, y           string
		window, dimLabels string
	}{
		{"1d", "f64[2,3,9]", "f64[4,3,3]", "f64[2,4,7]", "{size=3}", "bf0_oi0->bf0"},
		{"1d stride pad", "f64[2,3,9]", "f64[4,3,3]", "f64[2,4,5]", "{size=3 stride=2 pad=1_2}", "bf0_oi0->bf0"},
		{"1d stride slack", "f64[1,2,10]", "f64[3,2,3]", "f64[1,3,3]", "{size=3 stride=3 pad=0_1}", "bf0_oi0->bf0"},
		{"1d dilated", "f64[2,2,11]", "f64[2,2,3]", "f64[2,2,7]", "{size=3 rhs_dilate=2}", "bf0_oi0->bf0"},
		{"1d big pad", "f64[1,1,4]", "f64[1,1,2]", "f64[1,1,8]", "{size=2 pad=3_2}", "bf0_oi0->bf0"},
		{"2d nhwc", "f64[2,7,6,3]", "f64[3,3,3,5]", "f64[2,4,3,5]", "{size=3x3 stride=2x2 pad=1_1x0_1}", "b01f_01io->b01f"},
		{"2d ohwi", "f64[1,6,6,2]", "f64[4,2,3,2]", "f64[1,5,4,4]", "{size=2x3 pad=0_0x0_0}", "b01f_o01i->b01f"},
		{"2d strided dilated", "f64[2,3,9,8]", "f64[2,3,2,3]", "f64[2,2,4,3]", "{size=2x3 stride=2x3 pad=0_1x1_1 rhs_dilate=2x1}", "bf01_oi01->bf01"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf(`HloModule adjoint
ENTRY e {
  x = %[1]s parameter(0)
  w = %[2]s parameter(1)
  dy = %[3]s parameter(2)
  y = %[3]s convolution(x, w), window=%[4]s, dim_labels=%[5]s
  dx = (%[1]s, u8[0]) custom-call(dy, w), window=%[4]s, dim_labels=%[5]s, custom_call_target="__cudnn$convBackwardInput", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}
  dw = (%[2]s, u8[0]) custom-call(x, dy), window=%[4]s, dim_labels=%[5]s, custom_call_target="__cudnn$convBackwardFilter", backend_config="{conv_result_scale:1}"
  ROOT r = (%[3]s, (%[1]s, u8[0]), (%[2]s, u8[0])) tuple(y, dx, dw)
}
`, c.x, c.w, c.y, c.window, c.dimLabels)
			m, err := hlo.Parse("adjoint.hlo", src)
			require.NoError(t, err)
			require.NoError(t, verify.Verify("adjoint.hlo", m))
			args, err := eval.RandomArgs(m, 7)
			require.NoError(t, err)
			out, err := (&eval.Evaluator{File: "adjoint.hlo", M: m}).Run(args)
			require.NoError(t, err)
			inner := func(a, b []float64) float64 {
				require.Len(t, b, len(a))
				s := 0.0
				for i := range a {
					s += a[i] * b[i]
				}
				return s
			}
			y, dx, dw := out.Tuple[0], out.Tuple[1].Tuple[0], out.Tuple[2].Tuple[0]
			ydy := inner(y.Data, args[2].Data)
			require.NotZero(t, ydy)
			tol := 1e-9 * (1 + math.Abs(ydy))
			require.InDelta(t, ydy, inner(args[0].Data, dx.Data), tol, "<y,dy> vs <x,dx>")
			require.InDelta(t, ydy, inner(args[1].Data, dw.Data), tol, "<y,dy> vs <w,dw>")
		})
	}
}

// TestCudnnConvForward: the forward calls against a plain convolution and
// the epilogue computed here: scale, bias per output feature, side input,
// each activation; f16 results computed in f32 and rounded once.
func TestCudnnConvForward(t *testing.T) {
	for _, c := range []struct {
		name, target, config, extra string
		f                           func(conv, bias, side float64) float64
	}{
		{"forward scaled", "__cudnn$convForward", `{"cudnn_conv_backend_config":{"conv_result_scale":0.5,"activation_mode":"kNone"}}`, "",
			func(v, _, _ float64) float64 { return 0.5 * v }},
		{"bias relu", "__cudnn$convBiasActivationForward", `"{\"activationMode\":\"2\",\"convResultScale\":1,\"sideInputScale\":1}"`, ", b",
			func(v, b, _ float64) float64 { return math.Max(v+b, 0) }},
		{"bias side relu6", "__cudnn$convBiasActivationForward", `{"cudnn_conv_backend_config":{"activation_mode":"kRelu6","conv_result_scale":2,"side_input_scale":0.25}}`, ", b, s",
			func(v, b, s float64) float64 { return math.Min(math.Max(2*v+0.25*s+b, 0), 6) }},
		{"bias tanh", "__cudnn$convBiasActivationForward", `{"cudnn_conv_backend_config":{"activation_mode":"kTanh","conv_result_scale":1}}`, ", b",
			func(v, b, _ float64) float64 { return math.Tanh(v + b) }},
		{"bias sigmoid", "__cudnn$convBiasActivationForward", `{"cudnn_conv_backend_config":{"activation_mode":"kSigmoid","conv_result_scale":1}}`, ", b",
			func(v, b, _ float64) float64 { return 1 / (1 + math.Exp(-(v + b))) }},
		{"bias elu", "__cudnn$convBiasActivationForward", `{"cudnn_conv_backend_config":{"activation_mode":"kElu","conv_result_scale":1}}`, ", b",
			func(v, b, _ float64) float64 {
				if v+b > 0 {
					return v + b
				}
				return math.Expm1(v + b)
			}},
		{"bias leaky", "__cudnn$convBiasActivationForward", `{"cudnn_conv_backend_config":{"activation_mode":"kLeakyRelu","conv_result_scale":1,"leakyrelu_alpha":0.125}}`, ", b",
			func(v, b, _ float64) float64 {
				if v+b > 0 {
					return v + b
				}
				return 0.125 * (v + b)
			}},
	} {
		for _, elem := range []string{"f32", "f16"} {
			t.Run(c.name+" "+elem, func(t *testing.T) {
				src := fmt.Sprintf(`HloModule fwd
ENTRY e {
  x = %[1]s[2,5,5,3] parameter(0)
  w = %[1]s[3,3,3,4] parameter(1)
  b = %[1]s[4] parameter(2)
  s = %[1]s[2,3,3,4] parameter(3)
  xf = f32[2,5,5,3] convert(x)
  wf = f32[3,3,3,4] convert(w)
  conv = f32[2,3,3,4] convolution(xf, wf), window={size=3x3}, dim_labels=b01f_01io->b01f
  call = (%[1]s[2,3,3,4], u8[0]) custom-call(x, w%[2]s), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="%[3]s", backend_config=%[4]s
  ROOT r = (f32[2,3,3,4], (%[1]s[2,3,3,4], u8[0])) tuple(conv, call)
}
`, elem, c.extra, c.target, c.config)
				m, err := hlo.Parse("fwd.hlo", src)
				require.NoError(t, err)
				require.NoError(t, verify.Verify("fwd.hlo", m))
				args, err := eval.RandomArgs(m, 3)
				require.NoError(t, err)
				out, err := (&eval.Evaluator{File: "fwd.hlo", M: m}).Run(args)
				require.NoError(t, err)
				conv, got := out.Tuple[0].Data, out.Tuple[1].Tuple[0].Data
				for i, v := range conv {
					want := hlo.Round(elem, hlo.Round("f32", c.f(v, args[2].Data[i%4], args[3].Data[i])))
					require.InDelta(t, want, got[i], 1e-6*(1+math.Abs(want)), "element %d", i)
				}
				require.Empty(t, out.Tuple[1].Tuple[1].Data)
			})
		}
	}
}

// TestCudnnConvRefusals: what the calls cannot mean is a positioned error.
func TestCudnnConvRefusals(t *testing.T) {
	for _, c := range []struct{ name, call, want string }{
		{"no config", `custom-call(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward"`,
			"without backend_config"},
		{"no scale", `custom-call(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kNone"}}`,
			"backend_config gives no conv_result_scale"},
		{"bad activation", `custom-call(x, w, b), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1,"activation_mode":"kBandPass"}}`,
			"activation mode kBandPass is not supported"},
		{"activation on forward", `custom-call(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1,"activation_mode":"kRelu"}}`,
			"only convBiasActivationForward applies one"},
		{"bias shape", `custom-call(x, w, x), window={size=3x3}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}`,
			"is not one value per output feature"},
		{"grouped backward", `custom-call(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=3, custom_call_target="__cudnn$convBackwardFilter", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}`,
			"grouped cuDNN backward convolution is not supported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `HloModule bad
ENTRY e {
  x = f32[2,5,5,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  b = f32[4] parameter(2)
  ROOT call = (f32[2,3,3,4], u8[0]) ` + c.call + `
}
`
			m, err := hlo.Parse("bad.hlo", src)
			require.NoError(t, err)
			err = expand.ExpandCudnnConvs(m)
			require.ErrorContains(t, err, "6:3: call: custom-call: ")
			require.ErrorContains(t, err, c.want)
			args, err := eval.RandomArgs(m, 1)
			require.NoError(t, err)
			_, err = (&eval.Evaluator{File: "bad.hlo", M: m}).Run(args)
			require.ErrorContains(t, err, c.want)
		})
	}
}
