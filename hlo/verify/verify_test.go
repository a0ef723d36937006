package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

// TestCorpusVerifies: the shapes written in every real dump agree with the
// shapes the verifier infers.
func TestCorpusVerifies(t *testing.T) {
	for _, f := range corpus.HLOFiles(t) {
		if strings.Contains(f, "TRUNCATED") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := hlo.Parse(f, string(src))
			require.NoError(t, err)
			require.NoError(t, Verify(f, m))
		})
	}
}

func TestVerifyErrors(t *testing.T) {
	cases := []struct{ src, msg string }{
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT b = f32[2,3] add(a, c)\n}\n", "3:27: b: operand c is not defined before it"},
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n b = f32[3] parameter(1)\n ROOT c = f32[2,3] add(a, b)\n}\n", "c: add: operand 1 is f32[3], operand 0 is f32[2,3]"},
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n b = f32[3,4] parameter(1)\n ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n", "d: dot produces f32[2,4], but the instruction says f32[2,5]"},
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT t = f32[2,3] transpose(a), dimensions={1,0}\n}\n", "t: transpose produces f32[3,2]"},
		// XLA's hlo_verifier_test.cc:181: a call's operand is not its callee's parameter.
		{"c {\n ROOT p = (s32[], f32[4]) parameter(0)\n}\nENTRY e {\n p0 = (f32[4], s32[]) parameter(0)\n ROOT r = (s32[], f32[4]) call(p0), to_apply=c\n}\n", "r: call: operand 0 is (f32[4], s32[]), and c's parameter 0 is (s32[], f32[4])"},
		// XLA's scatter_simplifier_test.cc:268: update_window_dims out of order.
		{"u {\n a = f32[] parameter(0)\n ROOT b = f32[] parameter(1)\n}\nENTRY e {\n o = f32[3,2] parameter(0)\n i = s32[1,1] parameter(1)\n up = f32[1,2,2] parameter(2)\n ROOT s = f32[3,2] scatter(o, i, up), to_apply=u, update_window_dims={2,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1\n}\n", "s: scatter: update_window_dims=[2 1]: must be sorted"},
		{"ENTRY e {\n ROOT f = c64[0] fft(), fft_type=FFT, fft_length={0}\n}\n", "f: fft takes 1 operands, has 0"},
		// XLA's hlo_verifier_test.cc MapOperandComputationMismatch.
		{"c {\n p = f32[] parameter(0)\n one = f32[] constant(1)\n ROOT a = f32[] add(p, one)\n}\nENTRY e {\n x = f64[] parameter(0)\n ROOT m = f32[] map(x), dimensions={}, to_apply=c\n}\n", "m: map: operand 0 is f64[], and c's parameter 0 is f32[] (want f64[])"},
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT r = f32[6] reduce(a, a), dimensions={1}, to_apply=nothere\n}\n", "to_apply=nothere names no computation"},
		{"ENTRY e {\n a = f32[2] parameter(1)\n ROOT b = f32[2] negate(a)\n}\n", "has 1 parameters but no parameter(0)"},
		{"ENTRY e {\n x = f32[1,5,2] parameter(0)\n k = f32[3,2,4] parameter(1)\n ROOT c = f32[1,4,4] convolution(x, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f\n}\n",
			"4:2: c: convolution produces f32[1,3,4], but the instruction says f32[1,4,4]"},
		{"ENTRY e {\n x = f32[1,5,2] parameter(0)\n k = f32[3,3,4] parameter(1)\n ROOT c = f32[1,3,4] convolution(x, k), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f\n}\n",
			"input features 2 are not kernel input features 3"},
		{"ENTRY e {\n m = f32[3,3] parameter(0)\n i = s32[4] parameter(1)\n ROOT g = f32[4,2] gather(m, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n}\n",
			"g: gather produces f32[4,3], but the instruction says f32[4,2]"},
		{"ENTRY e {\n m = f32[3,3] parameter(0)\n i = s32[4] parameter(1)\n ROOT g = f32[4,3] gather(m, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}\n}\n",
			"slice size 4 out of range of dimension 1"},
		{"add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\nENTRY e {\n x = f32[4,6] parameter(0)\n z = f32[] constant(0)\n ROOT r = f32[2,6] reduce-window(x, z), window={size=2x2 stride=2x1}, to_apply=add\n}\n",
			"r: reduce-window produces f32[2,5], but the instruction says f32[2,6]"},
		{"ENTRY e {\n x = f32[2,3] parameter(0)\n s = f32[2] parameter(1)\n ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1\n}\n",
			"b: batch-norm-training: operand 1 is f32[2], want one value per feature: f32[3]"},
		{"f {\n x = f32[] parameter(0)\n ROOT c = f32[] call(x), to_apply=g\n}\ng {\n y = f32[] parameter(0)\n ROOT d = f32[] call(y), to_apply=f\n}\nENTRY e {\n a = f32[] parameter(0)\n ROOT r = f32[] call(a), to_apply=f\n}\n",
			"v.hlo:7:2: d: computation f calls itself (computations form a cycle)"},
		// Not HLO: a template's placeholder opcode and literals, a
		// literal out of its type's range or of the wrong length.
		{"ENTRY e {\n a = f32[2] parameter(0)\n ROOT b = f32[2] $0(a)\n}\n", "3:2: b: unknown opcode \"$0\""},
		{"ENTRY e {\n ROOT c = s32[] constant({{LOOP_BOUND}})\n}\n", "2:2: c: constant: bad literal value \"LOOP_BOUND\" for s32"},
		{"ENTRY e {\n ROOT c = f64[] constant(1.8e308)\n}\n", "c: constant: bad literal value \"1.8e308\" for f64"},
		{"ENTRY e {\n ROOT c = f32[3] constant({1, 2})\n}\n", "c: constant: the literal has 2 values for f32[3]"},
		{"ENTRY e {\n ROOT c = c64[2] constant({(1, 2), (3)})\n}\n", "c: constant: the literal has 1 values for c64[2]"},
		// Issue 44, 3: integers out of their type's range wrapped (s8 300
		// evaluated to 44); XLA's parser refuses them, as here.
		{"ENTRY e {\n ROOT c = s8[2] constant({300, -300})\n}\n", "2:2: c: constant: 300 is out of range for s8 (-128..127)"},
		{"ENTRY e {\n ROOT c = s8[2] constant({1, -129})\n}\n", "c: constant: -129 is out of range for s8 (-128..127)"},
		{"ENTRY e {\n ROOT c = s32[] constant(99999999999999999999)\n}\n", "c: constant: 99999999999999999999 is out of range for s32"},
		{"ENTRY e {\n ROOT c = s64[] constant(9223372036854775808)\n}\n", "c: constant: 9223372036854775808 is out of range for s64"},
		{"ENTRY e {\n ROOT c = u64[] constant(18446744073709551616)\n}\n", "c: constant: 18446744073709551616 is out of range for u64"},
		{"ENTRY e {\n ROOT c = u8[] constant(-1)\n}\n", "c: constant: -1 is out of range for u8 (0..255)"},
		{"ENTRY e {\n ROOT c = u8[] constant(256)\n}\n", "c: constant: 256 is out of range for u8"},
		{"ENTRY e {\n ROOT c = u8[] constant(1.5)\n}\n", "c: constant: 1.5 is not an integer, as u8 needs"},
		{"ENTRY e {\n ROOT c = s4[] constant(8)\n}\n", "c: constant: 8 is out of range for s4 (-8..7)"},
		{"ENTRY e {\n ROOT c = s32[] constant(inf)\n}\n", "c: constant: inf is not a value of s32"},
		{"ENTRY e {\n ROOT c = pred[] constant(2)\n}\n", "c: constant: 2 is out of range for pred (0..1)"},
	}
	for _, c := range cases {
		m, err := hlo.Parse("v.hlo", c.src)
		require.NoError(t, err, c.src)
		err = Verify("v.hlo", m)
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.msg)
	}
	// Shapes left to inference are filled in.
	m, err := hlo.Parse("v.hlo", "ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT b = negate(a)\n}\n")
	require.NoError(t, err)
	require.NoError(t, Verify("v.hlo", m))
	require.Equal(t, "f32[2,3]", m.Entry.Root.Shape.String())
}
