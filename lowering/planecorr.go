package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/lowering/legalize"
)

// Plane correlations: the per-plane convolutions legalize makes of a
// depthwise convolution's weight gradient over NCHW activations
// (legalize/expanddwgrad.go). Each of the R groups is one image plane of
// x correlated with the same plane of dy: out[r, p] = sum over q of
// xpad[r, p + q*d] * dy[r, q], for the few kernel positions p.
//
// The kernel walks the planes in tiles of TR. Each tile's planes of x land
// in the interior of a buffer whose border was zeroed once (the padding,
// as a streamed pad places its operand: padstream.go), and its planes of
// dy beside them; then, per kernel position, one vmul of the shifted
// window by dy and one row sum into that position's column of the
// tile's result, in chunks of planes whose products fit the vector
// registers. Each plane of x and dy crosses HBM once, and the result
// (T values a plane) once; the buffers rotate through planeSets sets so
// that the next tiles load while the vector unit works.

// planeSets is how many buffer sets the planes rotate through.
const planeSets = 3

// planeCorrelationFits reports whether the chip's SRAM holds the buffer
// sets of at least one plane: the geometries legalize may hand the kernel.
func planeCorrelationFits(sramBytes int64) func(legalize.PlaneGeometry) bool {
	return func(g legalize.PlaneGeometry) bool {
		_, ok := planeTileRows(g, sramBytes)
		return ok
	}
}

// planePadded is a plane's padded dims: what the kernel positions reach.
func planePadded(g legalize.PlaneGeometry) (hp, wp int64) {
	hp = max(g.X[0]+g.PadLo[0], g.P[0]-1+(g.Dy[0]-1)*g.Dil[0]+1)
	wp = max(g.X[1]+g.PadLo[1], g.P[1]-1+(g.Dy[1]-1)*g.Dil[1]+1)
	return hp, wp
}

// planeTileRows is the planes of a tile: as many as a set's share of SRAM
// holds (at most 2 MiB a set, as a streamed pad's), cut so that a walk
// has a few tiles to overlap.
func planeTileRows(g legalize.PlaneGeometry, sramBytes int64) (int64, bool) {
	// The walk's registers step through x, dy and the result from their
	// bases: each must lie within a register's reach.
	if g.R*max(g.X[0]*g.X[1], g.Dy[0]*g.Dy[1], g.P[0]*g.P[1])*4 >= registerReach {
		return 0, false
	}
	hp, wp := planePadded(g)
	perRow := (hp*wp + g.Dy[0]*g.Dy[1] + g.P[0]*g.P[1]) * 4
	budget := min(sramBytes/(2*planeSets), 2<<20)
	tr := budget / perRow
	if tr < 1 {
		return 0, false
	}
	return min(tr, max((g.R+3)/4, 1), g.R), true
}

// planeCorrelation lowers the fusion in (body, root) when it is one plane
// correlation, or returns false with nothing emitted. The body is the
// convolution of two fusion parameters (or same-shaped views of them),
// its result the fusion's or viewed as it.
func (c *compiler) planeCorrelation(in *hlo.Instruction, body []*hlo.Instruction, root *hlo.Instruction) (bool, error) {
	if in.Shape == nil || in.Shape.IsTuple {
		return false, nil
	}
	if root == nil {
		root = body[len(body)-1]
	}
	byName := map[string]*hlo.Instruction{}
	for _, b := range body {
		byName[b.Name] = b
	}
	conv := root
	for conv != nil && (conv.Opcode == hlo.OpReshape || conv.Opcode == hlo.OpBitcast) && len(conv.Operands) == 1 {
		conv = byName[conv.Operands[0].Name]
	}
	if conv == nil || conv.Opcode != hlo.OpConvolution || len(conv.Operands) != 2 || conv.Shape.Elems() != in.Shape.Elems() {
		return false, nil
	}
	// source: the fusion operand an operand of the convolution views.
	source := func(name string) (*value, *hlo.Shape) {
		b := byName[name]
		if b == nil {
			return nil, nil
		}
		s := b.Shape
		for (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast) && len(b.Operands) == 1 {
			b = byName[b.Operands[0].Name]
			if b == nil {
				return nil, nil
			}
		}
		if b.Opcode != hlo.OpParameter || int(b.ParamNumber) >= len(in.Operands) {
			return nil, nil
		}
		v := c.bufs[in.Operands[b.ParamNumber].Name]
		if v == nil || v.tuple != nil || v.empty || v.shape == nil || v.shape.Elems() != s.Elems() {
			return nil, nil
		}
		return v, s
	}
	xv, xs := source(conv.Operands[0].Name)
	yv, ys := source(conv.Operands[1].Name)
	if xv == nil || yv == nil {
		return false, nil
	}
	g, ok := legalize.PlaneCorrelationOf(conv, xs, ys)
	if !ok || xv.dt.Size() != 4 || yv.dt.Size() != 4 {
		return false, nil
	}
	TR, ok := planeTileRows(g, c.chip.Memory.SRAMBytes)
	if !ok {
		return false, nil
	}
	out, err := c.alloc(in, in.Shape, "")
	if err != nil {
		return true, err
	}
	c.bufs[in.Name] = out
	_, bytes := c.kernelCost(in, body)
	T := g.P[0] * g.P[1]
	planeX, planeY := g.X[0]*g.X[1], g.Dy[0]*g.Dy[1]
	flops := 2 * g.R * T * planeY
	c.kernelHeaderSaying(in, "output", flops, bytes, fmt.Sprintf("%d planes in tiles of %d, %d kernel positions", g.R, TR, T))
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	hp, wp := planePadded(g)
	padded := hp * wp
	// A set: the padded planes of x, the planes of dy, the results.
	xOff, yOff := int64(0), align64(TR*padded*4)
	partOff := yOff + align64(TR*planeY*4)
	setBytes := align64(partOff + TR*T*4)
	// The products: in the vector registers a chunk of planes at a time,
	// or in SRAM past the sets where not even one plane's fit.
	chunk := TR
	tmpAt := func(rows int64) string {
		return fmt.Sprintf("sram[%d]:f32[%d,%d,%d]", planeSets*setBytes, rows, g.Dy[0], g.Dy[1])
	}
	// With registers for two chunks of planes, a chunk's dy is read from
	// SRAM once into them for all the kernel positions.
	dyReg := int64(-1)
	if vb := c.chip.Memory.VRegBytes; vb >= 2*planeY*4 {
		chunk = min(TR, vb/(2*planeY*4))
		dyReg = chunk * planeY * 4
		tmpAt = func(rows int64) string { return fmt.Sprintf("vreg[0]:f32[%d,%d,%d]", rows, g.Dy[0], g.Dy[1]) }
	} else if vb >= planeY*4 {
		chunk = min(TR, vb/(planeY*4))
		tmpAt = func(rows int64) string { return fmt.Sprintf("vreg[0]:f32[%d,%d,%d]", rows, g.Dy[0], g.Dy[1]) }
	} else if planeSets*setBytes+TR*planeY*4 > c.chip.Memory.SRAMBytes {
		return true, c.fail(in, "internal error: a plane correlation's products do not fit SRAM")
	}
	inner := g.PadLo[0]*wp + g.PadLo[1] // x's first element in a padded plane
	loadEng := 0
	storeEng := min(1, c.chip.DMA.Engines-1)

	emit("semset  s1, 0")
	emit("semset  s2, %d", planeSets)
	emit("semset  s3, 0")
	for s := int64(0); s < planeSets; s++ {
		emit("vfill   sram[%d]:f32[%d], 0", s*setBytes+xOff, TR*padded)
	}
	emit("barrier")
	// Loads run lookahead tiles ahead of the vector unit in program order:
	// the sequencer dispatches in order, and a tile's vector instructions
	// fill the vector unit's queue, so a load placed after them would be
	// issued only when they drain.
	const lookahead = planeSets - 1
	emit("li      r2, 0")
	emit("li      r3, 0")
	emit("li      r4, 0")
	emit("li      r5, 0")
	emit("li      r30, 0")
	rotate := func(reg string) {
		emit("addi    %s, %s, %d", reg, reg, setBytes)
		emit("seqi    r29, %s, %d", reg, planeSets*setBytes)
		emit("muli    r29, r29, %d", planeSets*setBytes)
		emit("sub     %s, %s, r29", reg, reg)
	}
	load := func(n int64) {
		emit("dma     sram[r5+%d]:f32[%d,%d,%d]{%d,%d,1}, hbm[r2+%s]:f32[%d,%d,%d] @%d wait s2 signal s1",
			xOff+inner*4, n, g.X[0], g.X[1], padded, wp, xv.tensor, n, g.X[0], g.X[1], loadEng)
		emit("dma     sram[r5+%d]:f32[%d], hbm[r3+%s]:f32[%d] @%d signal s1", yOff, n*planeY, yv.tensor, n*planeY, loadEng)
		emit("addi    r2, r2, %d", n*planeX*4)
		emit("addi    r3, r3, %d", n*planeY*4)
		rotate("r5")
	}
	compute := func(n int64) {
		first := true
		for r0 := int64(0); r0 < n; r0 += chunk {
			rows := min(chunk, n-r0)
			dy := fmt.Sprintf("sram[r30+%d]:f32[%d,%d,%d]", yOff+r0*planeY*4, rows, g.Dy[0], g.Dy[1])
			if dyReg >= 0 {
				wait := ""
				if first {
					wait, first = " wait s1:2", false
				}
				reg := fmt.Sprintf("vreg[%d]:f32[%d,%d,%d]", dyReg, rows, g.Dy[0], g.Dy[1])
				emit("vcopy   %s, %s%s", reg, dy, wait)
				dy = reg
			}
			for i := int64(0); i < g.P[0]; i++ {
				for j := int64(0); j < g.P[1]; j++ {
					k := i*g.P[1] + j
					win := fmt.Sprintf("sram[r30+%d]:f32[%d,%d,%d]{%d,%d,%d}", xOff+(r0*padded+i*wp+j)*4, rows, g.Dy[0], g.Dy[1],
						padded, g.Dil[0]*wp, g.Dil[1])
					wait := ""
					if first {
						wait, first = " wait s1:2", false
					}
					emit("vmul    %s, %s, %s%s", tmpAt(rows), win, dy, wait)
					sig := ""
					if r0+rows == n && k == T-1 {
						sig = " signal s3"
					}
					sum := fmt.Sprintf("sram[r30+%d]:f32[%d,1]{%d,1}", partOff+(r0*T+k)*4, rows, T)
					emit("vrsum   %s, %s%s", sum, flatTile(tmpAt(rows), rows, planeY), sig)
				}
			}
		}
		emit("dma     hbm[r4+%s]:f32[%d], sram[r30+%d]:f32[%d] @%d wait s3 signal s2", out.tensor, n*T, partOff, n*T, storeEng)
		emit("addi    r4, r4, %d", n*T*4)
		rotate("r30")
	}
	var tiles []int64
	for r := int64(0); r < g.R; r += TR {
		tiles = append(tiles, min(TR, g.R-r))
	}
	full := g.R / TR
	for t := 0; t < min(lookahead, len(tiles)); t++ {
		load(tiles[t])
	}
	steady := max(full-lookahead, 0) // tile t loads tile t+lookahead, both whole
	if steady > 1 {
		c.nlabel++
		label := fmt.Sprintf("k%d_planes", c.nlabel)
		emit("li      r1, %d", steady)
		fmt.Fprintf(&c.out, "%s:\n", label)
		load(TR)
		compute(TR)
		emit("loop    r1, %s", label)
	} else if steady == 1 {
		load(TR)
		compute(TR)
	}
	for t := int(steady); t < len(tiles); t++ {
		if t+lookahead < len(tiles) {
			load(tiles[t+lookahead])
		}
		compute(tiles[t])
	}
	emit("barrier")
	return true, nil
}

// flatTile is tile t (a space, a base and f32[rows,...]) seen as
// f32[rows, cols].
func flatTile(t string, rows, cols int64) string {
	i := len(t)
	for i > 0 && t[i-1] != ':' {
		i--
	}
	return fmt.Sprintf("%sf32[%d,%d]", t[:i], rows, cols)
}
