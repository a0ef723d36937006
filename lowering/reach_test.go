package lowering_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// beyondReach are kernels over arrays of more than 2 GiB, the most a
// scalar register's signed 32-bit offset reaches. Generated loops had
// walked their offsets past 2^31: the last ~1,600 rows of a negate read
// the other parameter and landed elsewhere, silently (issue 44, 1).
var beyondReach = []struct {
	name, params, root string
	dmaOnly            bool // one DMA, no loop: nothing to split
}{
	{"negate", "", "ROOT r = f32[24000,24000] negate(b)", false},
	{"add", "", "ROOT r = f32[24000,24000] add(a, b)", false},
	{"broadcast", "c = f32[24000] parameter(2)", "ROOT r = f32[24000,24000] broadcast(c), dimensions={1}", false},
	{"reduce rows", "", "ROOT r = f32[24000] reduce(b, z), dimensions={1}, to_apply=sum", false},
	{"reduce columns", "", "ROOT r = f32[24000] reduce(b, z), dimensions={0}, to_apply=sum", false},
	{"reverse", "", "ROOT r = f32[24000,24000] reverse(b), dimensions={0}", true},
	// A chain of vector ops walks in chunks through the registers, its
	// tiles' loads issued ahead (a skewed walk): split into segments, it
	// had issued no loads at all and deadlocked (a 2^29-element f32 GELU).
	{"chain in chunks", "m = f32[24000,24000] multiply(a, b)\n  t = f32[24000,24000] tanh(m)", "ROOT r = f32[24000,24000] multiply(t, b)", false},
	{"dot over a long K", "l = f32[256,24000] parameter(2)", "ROOT r = f32[256,24000] dot(l, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", false},
}

func beyondReachModule(params, root string, n int) string {
	return fmt.Sprintf(`HloModule m
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[%[1]d,%[1]d] parameter(0)
  b = f32[%[1]d,%[1]d] parameter(1)
  z = f32[] constant(0)
  %[2]s
  %[3]s
}`, n, params, root)
}

// TestBeyondRegisterReach runs each kernel on 2.3 GB arrays, timing only
// (a value run is too big for CI): the timing model faults on any address
// formed from a register whose offset wrapped (conformance case
// fault_wrapped_base.s), so completing means no offset wrapped.
func TestBeyondRegisterReach(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2.3 GB arrays")
	}
	c, err := config.Load("tpuv4core", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: c}
	for _, k := range beyondReach {
		t.Run(k.name, func(t *testing.T) {
			m, err := hlo.Parse("big.hlo", beyondReachModule(k.params, k.root, 24000))
			require.NoError(t, err)
			require.NoError(t, verify.Verify("big.hlo", m))
			x, err := client.Compile("big.hlo", m)
			require.NoError(t, err)
			r, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
			require.NoError(t, err)
			require.Positive(t, r.Report.Cycles)
		})
	}
}

// TestSegmentsAtALoweredReach: the same kernels with the reach the
// compiler assumes lowered to 3 MiB, so that 4 MiB arrays take the split
// paths (segments re-based through the instructions' constants), checked
// value for value against the evaluator on both chips.
func TestSegmentsAtALoweredReach(t *testing.T) {
	if testing.Short() {
		t.Skip("value runs of 4 MiB arrays")
	}
	defer lowering.SetRegisterReach(3 << 20)()
	for _, k := range beyondReach {
		for _, chip := range chips {
			t.Run(k.name+"/"+chip, func(t *testing.T) {
				src := beyondReachModule(replaceDims(k.params), replaceDims(k.root), 1024)
				runChecked(t, chip, src)
				asm := compileFor(t, chip, src).Asm
				// A segment starts its offset registers at 0 again.
				split := strings.Count(asm, "li      r2, 0\n") >= 2 || strings.Count(asm, "_kloop:") >= 2
				require.True(t, split || k.dmaOnly, "the kernel did not take a split path:\n%s", asm)
			})
		}
	}
}

// replaceDims rewrites beyondReach's 24000 as 1024.
func replaceDims(s string) string {
	out := []byte{}
	for i := 0; i < len(s); i++ {
		if i+5 <= len(s) && s[i:i+5] == "24000" {
			out = append(out, "1024"...)
			i += 4
			continue
		}
		out = append(out, s[i])
	}
	return string(out)
}

// TestWhileTrueRefused (issue 44, 6): a loop that provably never ends is a
// compile error naming it; it ran to the 10^10-cycle limit (67-130 s).
func TestWhileTrueRefused(t *testing.T) {
	src, err := os.ReadFile("../hlo/analysis/testdata/while_true.hlo") // analysis.TestNeverEnds reads it too
	require.NoError(t, err)
	_, err = compileErr(t, "teach16", string(src))
	require.ErrorContains(t, err, "t.hlo:18:3: w: while: cannot lower: the loop never ends")
}
