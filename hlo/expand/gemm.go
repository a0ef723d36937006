package expand

import (
	"encoding/json"
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strconv"
	"strings"
)

// XLA's GPU backend rewrites dots into custom calls to cuBLAS whose
// meaning its backend_config spells out (GemmBackendConfig): result =
// alpha * dot(lhs, rhs) [+ beta * c], with the dot's dimension numbers.
// The evaluator computes them and the lowering expands them into the dot
// they describe, so GPU dumps run on Pulse's chips.

// gemmTargets are the cuBLAS custom-call targets read as dots.
var gemmTargets = map[string]bool{"__cublas$gemm": true, "__cublas$lt$matmul": true}

type gemmConfig struct {
	AlphaReal float64 `json:"alpha_real"`
	AlphaImag float64 `json:"alpha_imag"`
	Beta      float64 `json:"beta"`
	Dims      struct {
		LhsContracting []json.Number `json:"lhs_contracting_dimensions"`
		RhsContracting []json.Number `json:"rhs_contracting_dimensions"`
		LhsBatch       []json.Number `json:"lhs_batch_dimensions"`
		RhsBatch       []json.Number `json:"rhs_batch_dimensions"`
	} `json:"dot_dimension_numbers"`
	Epilogue string `json:"epilogue"`
}

// IsGemmCall reports whether in is a cuBLAS gemm custom call.
func IsGemmCall(in *hlo.Instruction) bool {
	if in.Opcode != hlo.OpCustomCall {
		return false
	}
	t, _ := in.Attr("custom_call_target")
	return gemmTargets[strings.Trim(t, `"`)]
}

// gemmOf reads a gemm call's backend_config: the dot attributes, alpha
// and beta. Epilogues other than DEFAULT and complex alpha are refused. A
// tuple result is (the product, a workspace): cuBLAS's scratch bytes,
// whose contents no caller may read as data; Pulse makes them zeros.
func gemmOf(in *hlo.Instruction) (attrs []string, alpha, beta float64, err error) {
	raw, ok := in.Attr("backend_config")
	if !ok {
		return nil, 0, 0, fmt.Errorf("a cuBLAS gemm call without backend_config")
	}
	if strings.HasPrefix(raw, `"`) {
		if raw, err = strconv.Unquote(raw); err != nil {
			return nil, 0, 0, fmt.Errorf("backend_config: %v", err)
		}
	}
	var wrap struct {
		Gemm *gemmConfig `json:"gemm_backend_config"`
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&wrap); err != nil || wrap.Gemm == nil {
		return nil, 0, 0, fmt.Errorf("backend_config has no gemm_backend_config")
	}
	g := wrap.Gemm
	if g.AlphaImag != 0 {
		return nil, 0, 0, fmt.Errorf("complex alpha is not supported")
	}
	if e := g.Epilogue; e != "" && e != "DEFAULT" {
		return nil, 0, 0, fmt.Errorf("cuBLAS epilogue %s is not supported (only DEFAULT)", e)
	}
	if in.Shape.IsTuple && (len(in.Shape.Tuple) != 2 || in.Shape.Tuple[0].IsTuple || in.Shape.Tuple[1].IsTuple) {
		return nil, 0, 0, fmt.Errorf("a gemm call's result is the product, or the product and a workspace")
	}
	list := func(ns []json.Number) (string, error) {
		var v []string
		for _, n := range ns {
			if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
				return "", fmt.Errorf("dimension %q is not an integer", n)
			}
			v = append(v, n.String())
		}
		return "{" + strings.Join(v, ",") + "}", nil
	}
	for _, f := range []struct {
		key string
		ns  []json.Number
	}{{"lhs_batch_dims", g.Dims.LhsBatch}, {"rhs_batch_dims", g.Dims.RhsBatch},
		{"lhs_contracting_dims", g.Dims.LhsContracting}, {"rhs_contracting_dims", g.Dims.RhsContracting}} {
		if len(f.ns) == 0 {
			continue
		}
		s, err := list(f.ns)
		if err != nil {
			return nil, 0, 0, err
		}
		attrs = append(attrs, f.key, s)
	}
	return attrs, g.AlphaReal, g.Beta, nil
}

// GemmAsDot is the dot instruction a gemm call describes (for the
// evaluator).
func GemmAsDot(in *hlo.Instruction) (*hlo.Instruction, float64, float64, error) {
	attrs, alpha, beta, err := gemmOf(in)
	if err != nil {
		return nil, 0, 0, err
	}
	d := &hlo.Instruction{Pos: in.Pos, Name: in.Name, Shape: productShape(in.Shape), Opcode: "dot", Operands: in.Operands}
	for i := 0; i+1 < len(attrs); i += 2 {
		d.Attrs = append(d.Attrs, hlo.Attr{Pos: in.Pos, Key: attrs[i], Value: attrs[i+1]})
	}
	return d, alpha, beta, nil
}

// ExpandGemmCalls replaces every cuBLAS gemm custom call by the dot it
// describes, scaled by alpha and plus beta times its third operand.
func ExpandGemmCalls(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		in := x.At
		if !IsGemmCall(in) {
			x.Out = append(x.Out, in) // another custom call: unchanged
			return nil
		}
		attrs, alpha, beta, err := gemmOf(in)
		if err != nil {
			return x.Errorf("%v", err)
		}
		if len(ops) < 2 || beta != 0 && len(ops) < 3 {
			return x.Errorf("a gemm call needs lhs and rhs (and c when beta is not 0)")
		}
		s := productShape(in.Shape)
		d := x.Emit("dot", s.Elem, s.Dims, ops[:2], attrs...)
		if alpha != 1 {
			a := x.Broadcast(x.Constant(s.Elem, strconv.FormatFloat(alpha, 'g', -1, 64)), s.Dims, nil)
			d = x.Binary("multiply", d, a)
		}
		if beta != 0 {
			c := ops[2]
			if beta != 1 {
				b := x.Broadcast(x.Constant(s.Elem, strconv.FormatFloat(beta, 'g', -1, 64)), s.Dims, nil)
				c = x.Binary("multiply", c, b)
			}
			d = x.Binary("add", d, c)
		}
		if in.Shape.IsTuple {
			ws := in.Shape.Tuple[1]
			z := x.Broadcast(x.Constant(ws.Elem, "0"), ws.Dims, nil)
			x.Emit("tuple", "", nil, []*hlo.Instruction{d, z}).Shape = in.Shape
		}
		return nil
	})
}

// productShape is a gemm call's product: its result, or the first
// element of its (product, workspace) tuple.
func productShape(s *hlo.Shape) *hlo.Shape {
	if s.IsTuple {
		return s.Tuple[0]
	}
	return s
}
