package hlo_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/stretchr/testify/require"
)

// XLA's OpMetadata as the dumps print it (PyTorch/XLA's and MaxText's,
// from the shared corpus) and as Pulse writes it back.
func TestParseMetadata(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       hlo.Source
	}{
		{"torch_xla", `{op_type="xla__device_data" op_name="xla__device_data" source_file="/home/ubuntu/pytorch/torch/nn/modules/module.py" source_line=1158}`,
			hlo.Source{File: "/home/ubuntu/pytorch/torch/nn/modules/module.py", Line: 1158, OpName: "xla__device_data"}},
		{"maxtext", `{op_name="jit(train_step)/jit(main)/layers/self_attention/AttentionOp_0/jit(_where)/select_n" source_file="/opt/maxtext/MaxText/layers/attentions.py" source_line=211}`,
			hlo.Source{File: "/opt/maxtext/MaxText/layers/attentions.py", Line: 211, OpName: "jit(train_step)/jit(main)/layers/self_attention/AttentionOp_0/jit(_where)/select_n"}},
		{"escapes and other keys", `{op_type="Sum" op_name="a \"b\" c" source_file="x.py" source_line=7 profile_type={WINDOW}}`,
			hlo.Source{File: "x.py", Line: 7, OpName: `a "b" c`}},
		{"no file", `{op_type="Sum" op_name="x/y"}`, hlo.Source{OpName: "x/y"}},
		{"malformed", `{source_file="unterminated source_line=3}`, hlo.Source{}},
		{"bad line", `{source_file="m.py" source_line=-4}`, hlo.Source{File: "m.py"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hlo.ParseMetadata(tc.text)
			require.Equal(t, tc.want, got)
			if got.Known() {
				require.Equal(t, got, hlo.ParseMetadata(hlo.MetadataText(got)), "round trip")
			}
		})
	}
	require.Equal(t, "model.py:3", hlo.Source{File: "/a/b/model.py", Line: 3}.Short())
	require.Equal(t, "/a/b/model.py", hlo.Source{File: "/a/b/model.py"}.String())
}

// Sources finds an instruction's source by its position, which the
// compiler's passes keep on what they make of it.
func TestSources(t *testing.T) {
	m, err := hlo.Parse("s.hlo", `HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p), metadata={op_name="jit(f)/neg" source_file="f.py" source_line=9}
}
`)
	require.NoError(t, err)
	src := hlo.Sources(m)
	require.Equal(t, map[hlo.Pos]hlo.Source{m.Entry.Root.Pos: {File: "f.py", Line: 9, OpName: "jit(f)/neg"}}, src)
}
