package fusion_test

import (
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// peakBytes replays an order: a value is live from its instruction to its
// last reader (the root's to the end).
func peakBytes(c *hlo.Computation) int64 {
	last := map[string]int{}
	for i, in := range c.Instructions {
		for _, o := range in.Operands {
			last[o.Name] = i
		}
	}
	last[c.Root.Name] = len(c.Instructions)
	var live, peak int64
	size := map[string]int64{}
	for i, in := range c.Instructions {
		size[in.Name] = in.Shape.Bytes()
		live += size[in.Name]
		peak = max(peak, live)
		for name, l := range last {
			if l == i {
				live -= size[name]
			}
		}
		if _, used := last[in.Name]; !used {
			live -= size[in.Name]
		}
	}
	return peak
}

// A backward pass printed as PyTorch/XLA prints it: every layer's
// activation gradient g_i first, every weight gradient w_i (a reduction
// of g_i with the activation a_i) at the end, with two custom calls whose
// order must hold.
func backwardModule(layers int) string {
	var b strings.Builder
	b.WriteString("add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n")
	b.WriteString("  p = f32[4096] parameter(0)\n  z = f32[] constant(0)\n")
	prev := "p"
	for i := range layers {
		fmt.Fprintf(&b, "  a%d = f32[4096] tanh(%s)\n", i, prev)
		prev = fmt.Sprintf("a%d", i)
	}
	b.WriteString("  s0 = f32[4096] custom-call(p), custom_call_target=\"MoveToHost\"\n")
	prev = "s0"
	for i := layers - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "  g%d = f32[4096] multiply(%s, a%d)\n", i, prev, i)
		prev = fmt.Sprintf("g%d", i)
	}
	var ws []string
	for i := range layers {
		fmt.Fprintf(&b, "  m%d = f32[4096] multiply(g%d, a%d)\n  w%d = f32[] reduce(m%d, z), dimensions={0}, to_apply=add\n", i, i, i, i, i)
		ws = append(ws, fmt.Sprintf("w%d", i))
	}
	b.WriteString("  s1 = f32[4096] custom-call(p), custom_call_target=\"MoveToDevice\"\n")
	fmt.Fprintf(&b, "  ROOT t = (%s, f32[4096], f32[4096]) tuple(%s, %s, s1)\n}\n", strings.TrimSuffix(strings.Repeat("f32[], ", layers), ", "), strings.Join(ws, ", "), prev)
	return b.String()
}
