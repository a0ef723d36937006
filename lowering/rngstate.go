package lowering

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// The generator state rng draws from (expand.ExpandRngs) is one u64[2] array
// for the whole program, (key 0, counter 0) in zeroed bytes loaded with it,
// as the evaluator's starts (its key is Evaluator.Seed, 0 unless set).
// rng-get-and-update-state copies it out and advances its counter on the
// sequencer: a DMA into scalar memory, a 64-bit add of delta with the
// carry, a DMA back.

// rngGetAndUpdateState lowers rng-get-and-update-state.
func (c *compiler) rngGetAndUpdateState(in *hlo.Instruction) error {
	d, _ := in.Attr("delta")
	delta, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
	if err != nil || delta < 0 || delta > 1<<31-1 {
		return c.fail(in, "delta=%s: the counter advances by 0 to 2^31-1 blocks here", d)
	}
	if in.Shape == nil || in.Shape.IsTuple || in.Shape.Elem != hlo.U64 || in.Shape.Elems() != 2 {
		return c.fail(in, "returns u64[2], not %s", in.Shape)
	}
	if c.rngState == nil {
		st, err := c.alloc(&hlo.Instruction{Pos: in.Pos, Name: "rng_state"}, in.Shape, zeroInit)
		if err != nil {
			return err
		}
		c.rngState = st
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return err
	}
	c.bufs[in.Name] = out
	c.nlabel++
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "copy", Pos: in.Pos, Bytes: 4 * 8})
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: rng-get-and-update-state %s (%s:%d), the generator state advanced by %d\n", c.nlabel, in.Name, c.file, in.Pos.Line, delta)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	whole := func(v *value) string { return view{v: v, strides: []int64{1}}.operand([]int64{2}) }
	emit("semset  s0, 0")
	emit("dma     smem[%#x]:u64[2], %s @0 signal s0", condWord, whole(c.rngState))
	emit("wait    s0, 1")
	emit("dma     %s, smem[%#x]:u64[2] @0 signal s0", whole(out), condWord)
	emit("wait    s0, 1")
	// counter += delta, its low word first, the carry into the high one.
	emit("ld      r1, [r0+%#x]", condWord+8)
	emit("ld      r2, [r0+%#x]", condWord+12)
	emit("li      r3, %d", delta)
	emit("add     r1, r1, r3")
	emit("sltu    r4, r1, r3")
	emit("add     r2, r2, r4")
	emit("st      r1, [r0+%#x]", condWord+8)
	emit("st      r2, [r0+%#x]", condWord+12)
	emit("dma     %s, smem[%#x]:u64[1] @0 signal s0", view{v: c.rngState, strides: []int64{1}, off: 1}.operand([]int64{1}), condWord+8)
	emit("wait    s0, 1")
	emit("barrier")
	return nil
}
