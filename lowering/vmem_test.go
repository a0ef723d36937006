package lowering_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// vmemLoop is a decode-style loop: small state carried through a body of
// several kernels, its state also the program's result.
const vmemLoop = `HloModule m

cond {
  s = (s32[], f32[4,64], f32[4,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4,64], f32[4,64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[4,64] get-tuple-element(s), index=1
  w = f32[4,64] get-tuple-element(s), index=2
  t = f32[4,64] tanh(h)
  z = f32[] constant(0)
  sum = f32[4] reduce(t, z), dimensions={1}, to_apply=add
  b = f32[4,64] broadcast(sum), dimensions={0}
  m = f32[4,64] multiply(b, w)
  h2 = f32[4,64] add(m, t)
  ROOT r = (s32[], f32[4,64], f32[4,64]) tuple(j, h2, w)
}

add {
  a = f32[] parameter(0)
  c = f32[] parameter(1)
  ROOT s = f32[] add(a, c)
}

ENTRY e {
  h0 = f32[4,64] parameter(0)
  w0 = f32[4,64] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4,64], f32[4,64]) tuple(zero, h0, w0)
  loop = (s32[], f32[4,64], f32[4,64]) while(init), condition=cond, body=body
  ROOT out = f32[4,64] get-tuple-element(loop), index=1
}
`

// TestVMEMArrays: on a chip with a VMEM arena (vmem.go) the small arrays
// that pass between kernels live in SRAM, named v_..., the kernels move
// them on chip, and the results still end in HBM (a loop state that is a
// result through an evict copy); values as the evaluator's with no race.
// teach16's scratchpad keeps every array in HBM.
func TestVMEMArrays(t *testing.T) {
	resident := regexp.MustCompile(`(?m)^\.tensor (v_\S+) sram `)
	withArena := map[string]int64{}
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			x, r := compileRunChecked(t, chip, nil, vmemLoop)
			asm := x.Compiled.Asm
			names := resident.FindAllStringSubmatch(asm, -1)
			for _, o := range x.Compiled.Outputs {
				require.True(t, strings.HasPrefix(o.Tensor, "t_"), "result %s is in HBM", o.Tensor)
			}
			require.NotRegexp(t, `hbm\[[^]]*v_`, asm, "a VMEM tensor is addressed in the sram space")
			if chip == "teach16" {
				require.Empty(t, names, "teach16 has no arena")
				return
			}
			require.NotEmpty(t, names)
			require.Contains(t, asm, "/evict", "the loop state moves to HBM after the loop")
			// The weights the body reads whole and hands on unchanged
			// are copied into VMEM once (hoistsToVMEM): no kernel of
			// the loop reads them from HBM.
			loop := asm[strings.Index(asm, "; ==== while"):]
			require.NotContains(t, loop, "t_w0", "the loop reads its invariant weights from VMEM")
			withArena[chip] = r.Report.Cycles
		})
	}
	// The same program with every array in HBM (a chip of 4 MiB SRAM has
	// no arena) is slower: each kernel waits for HBM twice.
	_, r := compileRunChecked(t, "tpuv4core", []string{"memory.sram_bytes=4194304"}, vmemLoop)
	require.Less(t, withArena["tpuv4core"]*3/2, r.Report.Cycles, "VMEM arrays save HBM latencies")
}

// TestPadIntoVMEM: a pad whose result is in VMEM fills it where it lies
// (a vector fill of the sram tensor) and copies the operand over the
// fill, where through HBM a filled SRAM buffer is copied out; the values
// are the evaluator's either way.
func TestPadIntoVMEM(t *testing.T) {
	const src = `ENTRY e {
  x = f32[4,16,16,32] parameter(0)
  z = f32[] constant(0)
  p = f32[4,18,18,32] pad(x, z), padding=0_0x1_1x1_1x0_0
  ROOT s = f32[4,18,18,32] multiply(p, p)
}`
	for _, chip := range []string{"tpuv4core", "teach16"} {
		t.Run(chip, func(t *testing.T) {
			x, _ := compileRunChecked(t, chip, nil, src)
			inPlace := regexp.MustCompile(`vfill +sram\[v_\S*p\S*\]`).MatchString(x.Compiled.Asm)
			require.Equal(t, chip == "tpuv4core", inPlace, "the pad filled in VMEM")
		})
	}
}

// TestDirectResultsInVMEM: a loop kernel whose result is in VMEM writes it
// where it lies, one op (whole tiles) or a chain (chunks through the
// registers), and a dot's epilogue likewise: no tile of theirs is stored
// by DMA into a VMEM tensor; a loop kernel reads its VMEM operands where
// they lie too, and a dot streams its lhs from VMEM. The values are the evaluator's with the race detector
// watching, in place (a result over its dying operand) too.
func TestDirectResultsInVMEM(t *testing.T) {
	const src = `HloModule m
chain {
  a = f32[256,512] parameter(0)
  b = f32[256,512] parameter(1)
  m = f32[256,512] multiply(a, b)
  e = f32[256,512] exponential(m)
  ROOT s = f32[256,512] add(e, a)
}
ENTRY e {
  x = f32[256,512] parameter(0)
  y = f32[256,512] parameter(1)
  w = f32[512,512] parameter(2)
  one = f32[256,512] multiply(x, y)
  two = f32[256,512] fusion(one, y), kind=kLoop, calls=chain
  d = f32[256,512] dot(two, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  three = f32[256,512] add(d, one)
  ROOT r = f32[256,512] negate(three)
}`
	x, _ := compileRunChecked(t, "tpuv4core", nil, src)
	asm := x.Compiled.Asm
	require.Regexp(t, `(?m)^\.tensor v_\S*one\S* sram `, asm, "one is in VMEM")
	require.Regexp(t, `(?m)^\.tensor v_\S*two\S* sram `, asm, "two is in VMEM")
	require.NotRegexp(t, `dma +sram\[(r[0-9]+\+)?v_[^]]*\]:[^,]*, sram\[`, asm, "no SRAM tile is stored into a VMEM tensor")
	require.Regexp(t, `(?m)^ +vmul +sram\[(r[0-9]+\+)?v_\S*one`, asm, "one written where it lies")
	// And the loop kernels read one and d where they lie, and the dot
	// streams two from VMEM.
	require.NotRegexp(t, `dma +sram\[[^]]*\]:[^,]*, sram\[(r[0-9]+\+)?v_(one|d|two)\b`, asm, "no VMEM operand is copied into SRAM")
	require.Regexp(t, `(?m)^ +vadd +\S+, sram\[(r[0-9]+\+)?v_d\b`, asm, "three reads d where it lies")
	require.Regexp(t, `(?m)^ +mxu\.mma? +acc\[[0-9]+\]:\S+, sram\[(r[0-9]+\+)?v_two\+`, asm, "the dot streams two where it lies")
}
