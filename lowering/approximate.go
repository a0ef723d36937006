package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/expand"
)

// approximated lists the calls of m whose time Pulse overstates: a
// library's fused kernel that the compiler expands into the unfused ops
// that compute the same values (hlo/expand), because Pulse has no fused
// kernel of the kind yet. Transformer Engine's fused attention runs as
// blocked softmax attention whose scores pass through HBM; cuDNN's and
// a TPU's (splash attention) keep each block's scores on chip, so the
// call's cycles are an upper bound on a flash-attention kernel's.
func approximated(file string, m *hlo.Module) []NotModelled {
	var out []NotModelled
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			if !expand.IsTEFusedAttn(in) {
				continue
			}
			var bytes int64
			if in.Shape != nil && in.Shape.IsTuple && len(in.Shape.Tuple) > 0 {
				bytes = in.Shape.Tuple[0].Bytes()
			}
			out = append(out, NotModelled{Op: in.Name, Pos: in.Pos, At: fmt.Sprintf("%s:%d:%d", file, in.Pos.Line, in.Pos.Col),
				What: "fused attention run as blocked unfused attention, its scores through HBM (no flash-attention kernel yet): its cycles are an upper bound", Bytes: bytes})
		}
	}
	return out
}
