package hlo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCorpusVerifies: the shapes written in every real dump agree with the
// shapes the verifier infers.
func TestCorpusVerifies(t *testing.T) {
	for _, f := range corpusFiles(t) {
		if strings.Contains(f, "TRUNCATED") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			m, err := Parse(f, string(src))
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
		{"ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT r = f32[6] reduce(a, a), dimensions={1}, to_apply=nothere\n}\n", "to_apply=nothere names no computation"},
		{"ENTRY e {\n a = f32[2] parameter(1)\n ROOT b = f32[2] negate(a)\n}\n", "has 1 parameters but no parameter(0)"},
	}
	for _, c := range cases {
		m, err := Parse("v.hlo", c.src)
		require.NoError(t, err, c.src)
		err = Verify("v.hlo", m)
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.msg)
	}
	// Shapes left to inference are filled in.
	m, err := Parse("v.hlo", "ENTRY e {\n a = f32[2,3] parameter(0)\n ROOT b = negate(a)\n}\n")
	require.NoError(t, err)
	require.NoError(t, Verify("v.hlo", m))
	require.Equal(t, "f32[2,3]", m.Entry.Root.Shape.String())
}
