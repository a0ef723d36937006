package lowering_test

import (
	"fmt"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/stretchr/testify/require"
)

// TestIdentityCustomCalls: the annotation custom calls are their operand on
// both chips (hlo.IsIdentityTarget); a move to the host is a copy kernel
// through the host link; one that is not an annotation stays a positioned
// refusal.
func TestIdentityCustomCalls(t *testing.T) {
	for _, target := range []string{"Sharding", "SPMDFullToShardShape", "ShardBarrierFrom", "ShardBarrierTo", "MoveToHost",
		"LayoutConstraint", "AssumeGatherIndicesInBound", "PinToDevice", "annotate_device_placement"} {
		src := fmt.Sprintf(`HloModule m
ENTRY e {
  p = f32[8,3] parameter(0)
  c = f32[8,3] custom-call(p), custom_call_target=%q, custom_call_has_side_effect=true
  ROOT n = f32[8,3] negate(c)
}`, target)
		for _, chip := range chips {
			t.Run(target+"/"+chip, func(t *testing.T) { runChecked(t, chip, src) })
		}
	}
	comp, err := compileErr(t, "teach16", `HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  h = f32[16] custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT d = f32[16] custom-call(h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
}`)
	require.NoError(t, err)
	require.Empty(t, comp.NotModelled, "the move to the host is a kernel; a placement on the device moves nothing")
	var copies []string
	for _, k := range comp.Kernels {
		if k.Kind == "copy" {
			copies = append(copies, fmt.Sprintf("%s %d", k.Name, k.Bytes))
		}
	}
	require.Equal(t, []string{"h 64"}, copies)
	// A manually sharded region's shape changes are not identities: on
	// one device they were taken as the operand under another shape.
	manual := `HloModule m
ENTRY e {
  a = f32[8,8] parameter(0)
  c = f32[1,8] custom-call(a), custom_call_target="SPMDFullToShardShape", sharding={manual}
  ROOT r = f32[8,8] custom-call(c), custom_call_target="SPMDShardToFullShape", sharding={devices=[8,1]<=[8]}
}`
	_, err = compileErr(t, "teach16", manual)
	require.ErrorContains(t, err, `t.hlo:4:3: c: custom-call: cannot lower: "SPMDFullToShardShape" changes f32[8,8] into f32[1,8]: a manually sharded region`)
	m, err := hlo.Parse("t.hlo", manual)
	require.NoError(t, err)
	args, err := eval.RandomArgs(m, 1)
	require.NoError(t, err)
	_, err = (&eval.Evaluator{File: "t.hlo", M: m}).Run(args)
	require.ErrorContains(t, err, `t.hlo:4:3: c: custom-call: "SPMDFullToShardShape" changes f32[8,8] into f32[1,8]: a manually sharded region`)

	_, err = compileErr(t, "teach16", `HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  ROOT c = f32[16] custom-call(p), custom_call_target="my_kernel"
}`)
	require.ErrorContains(t, err, `t.hlo:4:3: c: custom-call: cannot lower: custom-call target "my_kernel" has no Pulse lowering`)
}
