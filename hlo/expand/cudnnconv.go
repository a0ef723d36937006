package expand

import (
	"encoding/json"
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// XLA's GPU backend rewrites convolutions into custom calls to cuDNN
// (CudnnConvKind) that keep the convolution's window, dim_labels and
// group counts as attributes and put the rest in backend_config
// (CudnnConvBackendConfig). Their meaning is fixed and public:
//
//	convForward(x, w)                     conv_result_scale * conv(x, w)
//	convBiasActivationForward(x, w, b[, s]) activation(conv_result_scale * conv(x, w)
//	                                        + side_input_scale * s + broadcast(b))
//	convBackwardInput(dy, w)              the gradient of conv(x, w) for x
//	convBackwardFilter(x, dy)             the gradient of conv(x, w) for w
//
// where window and dim_labels describe the forward conv(x, w) in all four,
// and each returns (result, u8[n] workspace). ExpandCudnnConvs rewrites
// them into that arithmetic on convolution instructions; the evaluator
// evaluates the same expansion. The workspace is cuDNN's scratch space, not
// data: Pulse makes it zeros.

// Cudnn convolution custom-call targets.
const (
	cudnnForward        = "__cudnn$convForward"
	cudnnBiasActivation = "__cudnn$convBiasActivationForward"
	cudnnBackwardInput  = "__cudnn$convBackwardInput"
	cudnnBackwardFilter = "__cudnn$convBackwardFilter"
)

// IsCudnnConv reports whether in is one of those custom calls.
func IsCudnnConv(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	t, _ := in.Attr("custom_call_target")
	switch strings.Trim(t, `"`) {
	case cudnnForward, cudnnBiasActivation, cudnnBackwardInput, cudnnBackwardFilter:
		return true
	}
	return false
}

// cudnnConfig is what backend_config says about the arithmetic.
type cudnnConfig struct {
	scale, sideScale, leakyAlpha float64
	activation                   string // "" for none, else the mode's name without its k
}

// cudnnActivations are the activation modes by their number in
// stream_executor's dnn.proto (the ones whose numbers have not moved) and
// by name.
var cudnnActivations = map[string]string{
	"0": "", "1": "Sigmoid", "2": "Relu", "3": "Relu6", "5": "Tanh",
	"kNone": "", "kSigmoid": "Sigmoid", "kRelu": "Relu", "kRelu6": "Relu6", "kTanh": "Tanh",
	"kElu": "Elu", "kLeakyRelu": "LeakyRelu",
}

// cudnnConfigOf reads backend_config: the CudnnConvBackendConfig inside a
// GpuBackendConfig, or on its own as older dumps have it, with keys in
// snake or camel case, quoted or not.
func cudnnConfigOf(in *hlo.Instruction) (cudnnConfig, error) {
	var c cudnnConfig
	raw, ok := in.Attr("backend_config")
	if !ok {
		return c, fmt.Errorf("a cuDNN convolution without backend_config: its conv_result_scale is not given")
	}
	if strings.HasPrefix(raw, `"`) {
		var err error
		if raw, err = strconv.Unquote(raw); err != nil {
			return c, fmt.Errorf("backend_config: %v", err)
		}
	}
	raw = hlo.UnquotedKey.ReplaceAllString(raw, `$1"$2":`)
	var top map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return c, fmt.Errorf("backend_config is not JSON: %v", err)
	}
	cfg := top
	for _, k := range []string{"cudnn_conv_backend_config", "cudnnConvBackendConfig"} {
		if m, ok := top[k].(map[string]any); ok {
			cfg = m
		}
	}
	get := func(snake, camel string) (any, bool) {
		if v, ok := cfg[snake]; ok {
			return v, true
		}
		v, ok := cfg[camel]
		return v, ok
	}
	number := func(snake, camel string, def float64, required bool) (float64, error) {
		v, ok := get(snake, camel)
		if !ok {
			if required {
				return 0, fmt.Errorf("backend_config gives no %s", snake)
			}
			return def, nil
		}
		f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		if err != nil {
			return 0, fmt.Errorf("backend_config's %s is not a number: %v", snake, v)
		}
		return f, nil
	}
	var err error
	if c.scale, err = number("conv_result_scale", "convResultScale", 0, true); err != nil {
		return c, err
	}
	if c.sideScale, err = number("side_input_scale", "sideInputScale", 0, false); err != nil {
		return c, err
	}
	if c.leakyAlpha, err = number("leakyrelu_alpha", "leakyreluAlpha", 0, false); err != nil {
		return c, err
	}
	if v, ok := get("activation_mode", "activationMode"); ok {
		a, known := cudnnActivations[fmt.Sprint(v)]
		if !known {
			return c, fmt.Errorf("activation mode %v is not supported (none, sigmoid, relu, relu6, tanh, elu, leaky relu are)", v)
		}
		c.activation = a
	}
	return c, nil
}

// ExpandCudnnConvs replaces each cuDNN convolution call by the arithmetic
// it stands for (see above). Narrow float results are computed in f32, as
// cuDNN does, and rounded once.
func ExpandCudnnConvs(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsCudnnConv(in) {
			x.Out = append(x.Out, in) // another custom call: unchanged
			return nil
		}
		t, _ := in.Attr("custom_call_target")
		kind := strings.Trim(t, `"`)
		cfg, err := cudnnConfigOf(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		out := in.Shape
		if out.IsTuple {
			if len(out.Tuple) != 2 || out.Tuple[0].IsTuple || out.Tuple[1].IsTuple {
				return x.Errorf("a cuDNN convolution returns its result, or its result and a workspace")
			}
			out = out.Tuple[0]
		}
		if !hlo.IsRealFloat(out.Elem) {
			return x.Errorf("a cuDNN convolution into %s is not supported (float results are)", out.Elem)
		}
		want := map[string][2]int{cudnnForward: {2, 2}, cudnnBiasActivation: {3, 4}, cudnnBackwardInput: {2, 2}, cudnnBackwardFilter: {2, 2}}[kind]
		if len(ops) < want[0] || len(ops) > want[1] {
			return x.Errorf("%s takes %d to %d operands, not %d", kind, want[0], want[1], len(ops))
		}
		for _, o := range ops {
			if o.Shape.IsTuple {
				return x.Errorf("%s's operands are arrays", kind)
			}
		}
		if kind == cudnnForward || kind == cudnnBiasActivation {
			// The convolution it stands for must be one (XLA's tests hold
			// calls whose features only a cuDNN padding pass makes agree).
			labels, _ := in.Attr("dim_labels")
			d, err := hlo.ParseDimLabels(labels)
			if err == nil && d.LhsFeature < len(ops[0].Shape.Dims) && d.RhsIn < len(ops[1].Shape.Dims) {
				g := hlo.AttrIntOr(in, "feature_group_count", 1)
				if f, k := ops[0].Shape.Dims[d.LhsFeature], ops[1].Shape.Dims[d.RhsIn]; f != k*g {
					return x.Errorf("%s: input features %d are not the filter's input features %d x feature_group_count %d", kind, f, k, g)
				}
			}
		}
		if kind != cudnnBiasActivation && cfg.activation != "" {
			return x.Errorf("%s with activation %s: only convBiasActivationForward applies one", kind, cfg.activation)
		}
		compute := out.Elem
		if compute == "f16" || compute == "bf16" || strings.HasPrefix(compute, "f8") {
			compute = "f32"
		}
		lhs, rhs := x.toCompute(ops[0], compute), x.toCompute(ops[1], compute)
		var r *hlo.Instruction
		switch kind {
		case cudnnForward, cudnnBiasActivation:
			r = x.Emit("convolution", compute, out.Dims, []*hlo.Instruction{lhs, rhs}, convAttrs(in)...)
		case cudnnBackwardInput:
			r, err = x.convBackwardInput(lhs, rhs, out.Dims, compute)
		case cudnnBackwardFilter:
			r, err = x.convBackwardFilter(lhs, rhs, out.Dims, compute)
		}
		if err != nil {
			return err
		}
		if cfg.scale != 1 {
			r = x.Binary("multiply", r, x.ScalarLike(r, cfg.scale))
		}
		if kind == cudnnBiasActivation {
			if r, err = x.biasActivation(r, ops[2:], cfg); err != nil {
				return err
			}
		}
		r = x.Convert(r, out.Elem)
		if in.Shape.IsTuple {
			ws := in.Shape.Tuple[1]
			z := x.Broadcast(x.Constant(ws.Elem, "0"), ws.Dims, nil)
			x.Emit("tuple", "", nil, []*hlo.Instruction{r, z}).Shape = in.Shape
			return nil
		}
		x.Finish(r)
		return nil
	})
}

// toCompute converts a to the compute type unless it is of it.
func (x *rewriter) toCompute(a *hlo.Instruction, elem string) *hlo.Instruction {
	if a.Shape.Elem == elem {
		return a
	}
	return x.Convert(a, elem)
}

// convAttrs are the call's attributes a convolution has.
func convAttrs(in *hlo.Instruction) []string {
	var attrs []string
	for _, k := range []string{"window", "dim_labels", "feature_group_count", "batch_group_count"} {
		if v, ok := in.Attr(k); ok {
			attrs = append(attrs, k, v)
		}
	}
	return attrs
}

// biasActivation is activation(r + side_input_scale * side + bias), the
// bias broadcast along the output's feature dim.
func (x *rewriter) biasActivation(r *hlo.Instruction, extra []*hlo.Instruction, cfg cudnnConfig) (*hlo.Instruction, error) {
	labels, _ := x.At.Attr("dim_labels")
	d, err := hlo.ParseDimLabels(labels)
	if err != nil {
		return nil, x.Errorf("%v", err)
	}
	if len(d.OutSpatial) != len(r.Shape.Dims)-2 {
		return nil, x.Errorf("dim_labels %s does not fit the result %s", labels, r.Shape)
	}
	bias := extra[0]
	features := r.Shape.Dims[d.OutFeature]
	if len(bias.Shape.Dims) != 1 || bias.Shape.Dims[0] != features {
		return nil, x.Errorf("the bias %s is not one value per output feature (%d)", bias.Shape, features)
	}
	if len(extra) == 2 && cfg.sideScale != 0 {
		side := extra[1]
		if !hlo.EqualDims(side.Shape.Dims, r.Shape.Dims) {
			return nil, x.Errorf("the side input %s is not of the result's shape %v", side.Shape, r.Shape.Dims)
		}
		s := x.toCompute(side, r.Shape.Elem)
		if cfg.sideScale != 1 {
			s = x.Binary("multiply", s, x.ScalarLike(s, cfg.sideScale))
		}
		r = x.Binary("add", r, s)
	}
	r = x.Binary("add", r, x.Broadcast(x.toCompute(bias, r.Shape.Elem), r.Shape.Dims, []int64{int64(d.OutFeature)}))
	unary := func(op string, a *hlo.Instruction) *hlo.Instruction {
		return x.Emit(op, a.Shape.Elem, a.Shape.Dims, []*hlo.Instruction{a})
	}
	positive := func(a *hlo.Instruction) *hlo.Instruction {
		return x.Emit("compare", "pred", a.Shape.Dims, []*hlo.Instruction{a, x.ScalarLike(a, 0)}, "direction", "GT")
	}
	switch cfg.activation {
	case "":
	case "Sigmoid":
		r = unary("logistic", r)
	case "Relu":
		r = x.Binary("maximum", r, x.ScalarLike(r, 0))
	case "Relu6":
		r = x.Emit("clamp", r.Shape.Elem, r.Shape.Dims, []*hlo.Instruction{x.ScalarLike(r, 0), r, x.ScalarLike(r, 6)})
	case "Tanh":
		r = unary("tanh", r)
	case "Elu":
		r = x.Emit("select", r.Shape.Elem, r.Shape.Dims, []*hlo.Instruction{positive(r), r, unary("exponential-minus-one", r)})
	case "LeakyRelu":
		scaled := x.Binary("multiply", r, x.ScalarLike(r, cfg.leakyAlpha))
		r = x.Emit("select", r.Shape.Elem, r.Shape.Dims, []*hlo.Instruction{positive(r), r, scaled})
	}
	return r, nil
}

// forwardGeometry reads the forward convolution a backward call describes:
// its dimension numbers and window, refusing what the transposes below do
// not cover (groups, base dilation).
func (x *rewriter) forwardGeometry() (hlo.ConvDims, hlo.Window, string, error) {
	labels, _ := x.At.Attr("dim_labels")
	d, err := hlo.ParseDimLabels(labels)
	if err != nil {
		return d, hlo.Window{}, "", x.Errorf("%v", err)
	}
	wv, _ := x.At.Attr("window")
	w, err := hlo.ParseWindow(wv, len(d.LhsSpatial))
	if err != nil {
		return d, w, "", x.Errorf("%v", err)
	}
	if hlo.AttrIntOr(x.At, "feature_group_count", 1) != 1 || hlo.AttrIntOr(x.At, "batch_group_count", 1) != 1 {
		return d, w, "", x.Errorf("a grouped cuDNN backward convolution is not supported")
	}
	for i := range w.Size {
		if w.LhsDil[i] != 1 || w.RhsRev != nil && w.RhsRev[i] {
			return d, w, "", x.Errorf("a cuDNN backward convolution with base dilation or a reversed kernel is not supported")
		}
	}
	return d, w, labels, nil
}

// backwardGeometry is forwardGeometry for a backward call of operands a
// and b and result dims res, all of the convolution's rank: also the
// forward's input and kernel labels (io) and its output labels.
func (x *rewriter) backwardGeometry(a, b *hlo.Instruction, res []int64) (hlo.ConvDims, hlo.Window, []string, string, error) {
	d, win, labels, err := x.forwardGeometry()
	if err != nil {
		return d, win, nil, "", err
	}
	parts := strings.Split(labels, "->")
	n := len(d.LhsSpatial)
	if len(res) != n+2 || len(a.Shape.Dims) != n+2 || len(b.Shape.Dims) != n+2 {
		return d, win, nil, "", x.Errorf("dim_labels %s does not fit %s and %s", labels, a.Shape, b.Shape)
	}
	return d, win, strings.Split(parts[0], "_"), parts[1], nil
}

// relabel maps the letters of a dim_labels part (digits stay).
func relabel(s string, m map[byte]byte) string {
	b := []byte(s)
	for i, c := range b {
		if r, ok := m[c]; ok {
			b[i] = r
		}
	}
	return string(b)
}

// windowText prints a window.
func windowText(size, stride, lo, hi, lhsDil, rhsDil []int64) string {
	join := func(v []int64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatInt(x, 10)
		}
		return strings.Join(s, "x")
	}
	pads := make([]string, len(lo))
	for i := range lo {
		pads[i] = fmt.Sprintf("%d_%d", lo[i], hi[i])
	}
	return fmt.Sprintf("{size=%s stride=%s pad=%s lhs_dilate=%s rhs_dilate=%s}",
		join(size), join(stride), strings.Join(pads, "x"), join(lhsDil), join(rhsDil))
}

// convBackwardInput is dx for y = conv(x, w): dy dilated by the strides,
// convolved with w reversed in space and its feature roles swapped.
// Forward, output o sees input o*s - lo + k*r through tap k; so
// dx[i] = sum over k of dy'[i + lo - k*r] w[k] on dy' = dy dilated by s,
// which is a stride-1 convolution of dy' padded (K-1)*r - lo before with
// the reversed kernel.
func (x *rewriter) convBackwardInput(dy, w *hlo.Instruction, dxDims []int64, elem string) (*hlo.Instruction, error) {
	d, win, io, out, err := x.backwardGeometry(dy, w, dxDims)
	if err != nil {
		return nil, err
	}
	n := len(d.LhsSpatial)
	lo, hi, ones := make([]int64, n), make([]int64, n), make([]int64, n)
	var rev []int64
	for j := range n {
		I, O, K := dxDims[d.LhsSpatial[j]], dy.Shape.Dims[d.OutSpatial[j]], w.Shape.Dims[d.RhsSpatial[j]]
		s, r := win.Stride[j], win.RhsDil[j]
		if K != win.Size[j] {
			return nil, x.Errorf("the filter's spatial dim %d is %d, the window's %d", j, K, win.Size[j])
		}
		lo[j] = (K-1)*r - win.PadLo[j]
		hi[j] = I + win.PadLo[j] - (O-1)*s - 1
		ones[j] = 1
		rev = append(rev, int64(d.RhsSpatial[j]))
	}
	wr := x.Emit("reverse", w.Shape.Elem, w.Shape.Dims, []*hlo.Instruction{w}, "dimensions", hlo.IntsText(rev))
	dl := out + "_" + relabel(io[1], map[byte]byte{'i': 'o', 'o': 'i'}) + "->" + io[0]
	return x.Emit("convolution", elem, dxDims, []*hlo.Instruction{dy, wr},
		"window", windowText(win.Size, ones, lo, hi, win.Stride, win.RhsDil), "dim_labels", dl), nil
}

// convBackwardFilter is dw for y = conv(x, w): x and dy convolved with the
// batch contracted, dy's spatial extent as the window, the forward strides
// as its dilation and the forward dilations as its strides:
// dw[k] = sum over b, o of x[b, o*s - lo + k*r] dy[b, o].
func (x *rewriter) convBackwardFilter(xIn, dy *hlo.Instruction, dwDims []int64, elem string) (*hlo.Instruction, error) {
	d, win, io, out, err := x.backwardGeometry(xIn, dy, dwDims)
	if err != nil {
		return nil, err
	}
	n := len(d.LhsSpatial)
	size, lo, hi, ones := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for j := range n {
		I, O, K := xIn.Shape.Dims[d.LhsSpatial[j]], dy.Shape.Dims[d.OutSpatial[j]], dwDims[d.RhsSpatial[j]]
		s, r := win.Stride[j], win.RhsDil[j]
		if K != win.Size[j] {
			return nil, x.Errorf("the filter's spatial dim %d is %d, the window's %d", j, K, win.Size[j])
		}
		size[j], lo[j], ones[j] = O, win.PadLo[j], 1
		hi[j] = (K-1)*r + (O-1)*s + 1 - I - win.PadLo[j]
	}
	dl := relabel(io[0], map[byte]byte{'b': 'f', 'f': 'b'}) + "_" + relabel(out, map[byte]byte{'b': 'i', 'f': 'o'}) +
		"->" + relabel(io[1], map[byte]byte{'i': 'b', 'o': 'f'})
	return x.Emit("convolution", elem, dwDims, []*hlo.Instruction{xIn, dy},
		"window", windowText(size, win.RhsDil, lo, hi, ones, win.Stride), "dim_labels", dl), nil
}
