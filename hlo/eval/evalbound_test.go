package eval

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/stretchr/testify/require"
)

// TestEvalLowerBound: the bound never exceeds what the evaluator holds, and
// names the instruction where a module's largest value is computed.
func TestEvalLowerBound(t *testing.T) {
	for _, src := range []string{
		"HloModule m\nENTRY e {\n a = f32[1000,1000] parameter(0)\n b = f32[1000,1000] negate(a)\n c = f32[1000,1000] exponential(b)\n ROOT d = f32[1000,1000] add(b, c)\n}\n",
		"HloModule m\nENTRY e {\n a = f32[100,100] parameter(0)\n r = f32[10000] reshape(a)\n t = (f32[10000], f32[100,100]) tuple(r, a)\n ROOT g = f32[10000] get-tuple-element(t), index=0\n}\n",
		"HloModule m\nENTRY e {\n a = f32[300,400] parameter(0)\n b = f32[400,300] transpose(a), dimensions={1,0}\n ROOT d = f32[300,300] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
	} {
		m, err := hlo.Parse("t.hlo", src)
		require.NoError(t, err)
		require.NoError(t, verify.Verify("t.hlo", m))
		bound, at := EvalLowerBound(m)
		require.NotNil(t, at)
		args, err := RandomArgs(m, 1)
		require.NoError(t, err)
		e := &Evaluator{File: "t.hlo", M: m}
		_, err = e.Run(args)
		require.NoError(t, err)
		require.LessOrEqual(t, bound, e.PeakLiveElements(), src)
		require.Positive(t, bound)
	}
	m, err := hlo.Parse("t.hlo", "HloModule m\nENTRY e {\n a = f32[10] parameter(0)\n ROOT b = f32[100000,100000] broadcast(a), dimensions={1}\n}\n")
	require.NoError(t, err)
	bound, at := EvalLowerBound(m)
	require.Equal(t, int64(1e10), bound-5)
	require.Equal(t, "b", at.Name)
}
