package expand

import (
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"strings"
)

// XLA's TopkRewriter turns a sort-and-slice into custom-call(x),
// custom_call_target="TopK" (the GPU backend's TopkSpecializer names it
// "__gpu$TopK"): (values, indices) of the k largest elements
// of each row (the last dim), k the result's last dim, ordered by the
// comparator computation when one is given (called_computations: a compare
// of its two parameters, GT for the largest, LT for the smallest).

// IsTopKCall reports whether in is that custom call.
func IsTopKCall(in *hlo.Instruction) bool {
	t, _ := in.Attr("custom_call_target")
	t = strings.Trim(t, `"`)
	return in.Opcode == hlo.OpCustomCall && (t == "TopK" || t == "__gpu$TopK")
}

// TopKOfCall is the topk instruction a TopK custom call stands for.
func TopKOfCall(m *hlo.Module, in *hlo.Instruction) (*hlo.Instruction, error) {
	s := in.Shape
	if s == nil || !s.IsTuple || len(s.Tuple) != 2 || len(s.Tuple[0].Dims) == 0 || len(in.Operands) != 1 {
		return nil, fmt.Errorf("a TopK call takes one array and returns (values, indices)")
	}
	largest := "true"
	if names, ok := in.Attr("called_computations"); ok {
		name := strings.TrimPrefix(strings.TrimSpace(strings.Trim(names, "{}")), "%")
		c := m.Computation(name)
		if c == nil || c.Root == nil || c.Root.Opcode != hlo.OpCompare {
			return nil, fmt.Errorf("the TopK comparator %s is not a compare of its parameters", names)
		}
		switch d, _ := c.Root.Attr("direction"); d {
		case "GT":
		case "LT":
			largest = "false"
		default:
			return nil, fmt.Errorf("the TopK comparator compares with %s, not GT or LT", d)
		}
	}
	k := s.Tuple[0].Dims[len(s.Tuple[0].Dims)-1]
	cp := *in
	cp.Opcode = "topk"
	cp.Attrs = []hlo.Attr{{Pos: in.Pos, Key: "k", Value: fmt.Sprint(k)}, {Pos: in.Pos, Key: "largest", Value: largest}}
	return &cp, nil
}

// TopKCallsAsTopK rewrites TopK custom calls as topk instructions.
func TopKCallsAsTopK(m *hlo.Module) error {
	return rewriteEach(m, "custom-call", func(x *rewriter, ops []*hlo.Instruction) error {
		if !IsTopKCall(x.At) {
			x.Out = append(x.Out, x.At)
			return nil
		}
		t, err := TopKOfCall(m, x.At)
		if err != nil {
			return x.Errorf("%v", err)
		}
		x.Out = append(x.Out, t)
		return nil
	})
}
