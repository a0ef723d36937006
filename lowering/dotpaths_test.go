package lowering_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTransposedOperandForms: the dot forms real models use, with an
// operand whose contiguous dim is not the one the MXU wants, give the
// evaluator's values on every chip, through the transposed paths (no
// transpose kernel, no element-wise DMA): sizes that leave K, N and row
// tails, K long enough for the K loop, batches for the batch loop, and a
// fused epilogue.
func TestTransposedOperandForms(t *testing.T) {
	forms := []struct {
		name, src   string
		ldwt, xpose bool
	}{
		{"x.W^T", `HloModule m
ENTRY e {
  x = bf16[70,150] parameter(0)
  w = bf16[90,150] parameter(1)
  ROOT d = bf16[70,90] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, true, false},
		{"X^T.dY", `HloModule m
ENTRY e {
  x = f32[150,70] parameter(0)
  dy = f32[150,90] parameter(1)
  ROOT d = f32[70,90] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`, false, true},
		{"both transposed, bias and relu fused", `HloModule m
ENTRY e {
  a = bf16[150,70] parameter(0)
  b = bf16[90,150] parameter(1)
  c = f32[70,90] parameter(2)
  d = f32[70,90] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  s = f32[70,90] add(d, c)
  z = f32[70,90] broadcast(f32[] constant(0)), dimensions={}
  ROOT r = f32[70,90] maximum(s, z)
}`, true, true},
		{"attention Q.K^T [B,H,T,D] x [B,H,S,D]", `HloModule m
ENTRY e {
  q = bf16[2,3,40,24] parameter(0)
  k = bf16[2,3,36,24] parameter(1)
  ROOT s = f32[2,3,40,36] dot(q, k), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
}`, true, false},
		{"einsum bqhd,bkhd->bhqk", `HloModule m
ENTRY e {
  q = f32[2,40,3,24] parameter(0)
  k = f32[2,36,3,24] parameter(1)
  ROOT s = f32[2,3,40,36] dot(q, k), lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
}`, true, false},
		{"attention backward dS^T.Q [B,T,S] x [B,T,D]", `HloModule m
ENTRY e {
  ds = f32[4,40,36] parameter(0)
  q = f32[4,40,24] parameter(1)
  ROOT dk = f32[4,36,24] dot(ds, q), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, false, true},
		{"GEMV a.W^T", `HloModule m
ENTRY e {
  a = f32[4,300] parameter(0)
  w = f32[200,300] parameter(1)
  ROOT d = f32[4,200] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}`, true, false},
		{"LM head W^T.h [V,D]^T x [D,B]", `HloModule m
ENTRY e {
  w = f32[64,500] parameter(0)
  h = f32[64,4] parameter(1)
  ROOT l = f32[500,4] dot(w, h), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`, false, true},
		{"narrow N: row blocks split among the MXUs", `HloModule m
ENTRY e {
  x = f32[300,200] parameter(0)
  w = f32[200,16] parameter(1)
  ROOT d = f32[300,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, false, false},
		{"attention P.V, 40 columns, bias fused", `HloModule m
ENTRY e {
  p = bf16[4,200,96] parameter(0)
  v = bf16[4,96,40] parameter(1)
  c = f32[4,200,40] parameter(2)
  d = f32[4,200,40] dot(p, v), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT r = f32[4,200,40] add(d, c)
}`, false, false},
		{"weight gradient X^T.dY, 16 columns", `HloModule m
ENTRY e {
  x = f32[100,300] parameter(0)
  dy = f32[100,16] parameter(1)
  ROOT d = f32[300,16] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}`, false, true},
	}
	for _, chip := range []string{"teach16", "tpuv4core", "trn1nc", "tpuv4"} {
		for _, f := range forms {
			t.Run(fmt.Sprintf("%s/%s", chip, f.name), func(t *testing.T) {
				comp, err := compileErr(t, chip, f.src)
				require.NoError(t, err)
				dots := dotKernelsAsm(comp.Asm)
				if strings.Contains(dots, ".dot.") {
					// A skinny dot swapped (legalize.SwapSkinnyDots): W^T . x^T,
					// its result transposed by a kernel of its own after it.
					require.Contains(t, dots, "mxu.ldwt")
					require.Less(t, strings.Index(comp.Asm, ": dot ["), strings.Index(comp.Asm, ": transpose "))
				} else {
					require.Equal(t, f.ldwt, strings.Contains(dots, "mxu.ldwt"))
					require.Equal(t, f.xpose, strings.Contains(dots, "xpose"))
					require.NotContains(t, comp.Asm, ": transpose ", "a transpose kernel before the dot")
				}
				runChecked(t, chip, f.src)
			})
		}
	}
}

// An f32 dot's precision sets its time, not its values: on tpuv4core
// DEFAULT is one bf16 pass, HIGHEST the f32 rate (4 cycles a row), and
// both give the evaluator's f32 values.
func TestDotPrecisionTime(t *testing.T) {
	src := func(prec string) string {
		return `HloModule m
ENTRY e {
  a = f32[512,1024] parameter(0)
  b = f32[1024,512] parameter(1)
  ROOT d = f32[512,512] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}` + prec + `
}`
	}
	def := runChecked(t, "tpuv4core", src(""))
	high := runChecked(t, "tpuv4core", src(", operand_precision={highest,highest}"))
	require.Greater(t, float64(high.Report.Cycles), 1.5*float64(def.Report.Cycles), "HIGHEST %d, DEFAULT %d cycles", high.Report.Cycles, def.Report.Cycles)
	comp, err := compileErr(t, "tpuv4core", src(""))
	require.NoError(t, err)
	require.Contains(t, comp.Asm, "passes 1")
}

// A long K with few rows and columns splits K among the MXUs (each its
// own buffer sets and accumulator, the epilogue summing them) instead of
// giving each a short stream under a whole weight tile: the evaluator's
// values within tolerance, on every chip (one MXU: no split), including
// batches and a fused epilogue.
func TestSplitK(t *testing.T) {
	for _, src := range []string{`HloModule m
ENTRY e {
  a = bf16[100,3000] parameter(0)
  b = bf16[3000,70] parameter(1)
  ROOT c = f32[100,70] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}`, `HloModule m
ENTRY e {
  a = f32[3,64,2000] parameter(0)
  b = f32[3,50,2000] parameter(1)
  c = f32[3,64,50] parameter(2)
  d = f32[3,64,50] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT r = f32[3,64,50] add(d, c)
}`} {
		for _, chip := range []string{"teach16", "tpuv4core", "trn1nc"} {
			comp, err := compileErr(t, chip, src)
			require.NoError(t, err)
			if chip == "tpuv4core" {
				require.Contains(t, comp.Asm, "K split 4 ways")
			}
			runChecked(t, chip, src)
		}
	}
}

// dotKernelsAsm is the text of a program's dot kernels (from a kernel
// header naming a dot to the next kernel).
func dotKernelsAsm(asm string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(asm, "\n") {
		if strings.HasPrefix(line, "; ---- kernel") {
			in = strings.Contains(line, ": dot [")
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
