package lowering_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegisterChains: on a chip with a vector register file, a loop
// fusion's chain of vector instructions runs chunk by chunk through the
// registers (the intermediates never touch SRAM's banks), the walk loads
// two tiles ahead, and the values are the evaluator's. A threefry-like
// chain of 20 integer ops over 1M elements runs well under half the cycles
// it takes from SRAM to SRAM on the same chip without registers.
func TestRegisterChains(t *testing.T) {
	const chain = `HloModule m
ENTRY e {
  x = u32[1048576] parameter(0)
  y = u32[1048576] parameter(1)
  k = u32[] parameter(2)
  kb = u32[1048576] broadcast(k), dimensions={}
  c13 = u32[] constant(13)
  s13 = u32[1048576] broadcast(c13), dimensions={}
  c19 = u32[] constant(19)
  s19 = u32[1048576] broadcast(c19), dimensions={}
  a1 = u32[1048576] add(x, y)
  l1 = u32[1048576] shift-left(y, s13)
  r1 = u32[1048576] shift-right-logical(y, s19)
  o1 = u32[1048576] or(l1, r1)
  x1 = u32[1048576] xor(a1, o1)
  a2 = u32[1048576] add(a1, x1)
  l2 = u32[1048576] shift-left(x1, s19)
  r2 = u32[1048576] shift-right-logical(x1, s13)
  o2 = u32[1048576] or(l2, r2)
  x2 = u32[1048576] xor(a2, o2)
  a3 = u32[1048576] add(a2, x2)
  l3 = u32[1048576] shift-left(x2, s13)
  r3 = u32[1048576] shift-right-logical(x2, s19)
  o3 = u32[1048576] or(l3, r3)
  x3 = u32[1048576] xor(a3, o3)
  ROOT out = u32[1048576] add(x3, kb)
}`
	comp := compileFor(t, "tpuv4core", chain)
	require.Contains(t, comp.Asm, "vreg[")
	require.Regexp(t, `wait    s0, \d+`, comp.Asm) // the walk's own loads, issued ahead
	require.LessOrEqual(t, firstTileRows(t, comp.Asm), 1048576/4, "at least four tiles")
	withRegs := runChecked(t, "tpuv4core", chain)
	noRegs := runCheckedWith(t, "tpuv4core", []string{"memory.vreg_bytes=0"}, chain)
	require.Less(t, 2*withRegs.Report.Cycles, noRegs.Report.Cycles, "with registers %d cycles, from SRAM %d", withRegs.Report.Cycles, noRegs.Report.Cycles)

	// Rows of a 2-D fusion, a row broadcast, a select on a compare and
	// f32 arithmetic; and a chain with a second result (multi-output).
	const rows = `HloModule m
ENTRY e {
  x = f32[512,768] parameter(0)
  g = f32[768] parameter(1)
  gb = f32[512,768] broadcast(g), dimensions={1}
  m = f32[512,768] multiply(x, gb)
  z = f32[] constant(0)
  zb = f32[512,768] broadcast(z), dimensions={}
  p = pred[512,768] compare(m, zb), direction=GT
  e = f32[512,768] exponential(m)
  s = f32[512,768] select(p, m, e)
  ROOT t = f32[512,768] tanh(s)
}`
	asm := compileFor(t, "tpuv4core", rows).Asm
	require.Contains(t, asm, "vreg[")
	// The row broadcast of g is read through a view of stride 0 along the
	// rows, not expanded by a vbcast a chunk.
	require.Regexp(t, `vmul +vreg\[\d+\]:f32\[\d+,768\], sram\[[^\]]+\]:f32\[\d+,768\], sram\[\d+\]:f32\[\d+,768\]\{0,1\}`, asm)
	require.NotContains(t, asm, "vbcast")
	runChecked(t, "tpuv4core", rows)
	runChecked(t, "tpuv4", rows)
	runChecked(t, "teach16", rows) // no registers: whole-tile instructions
}
