package expand_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/expand"
)

// TestExpandBatchNorms: each batch norm's expansion verifies and evaluates
// within tolerance of the evaluator's float64 batch norm.
func TestExpandBatchNorms(t *testing.T) {
	cases := map[string]string{
		"training nchw": `HloModule m
ENTRY e {
  x = f32[4,3,5,5] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT t = (f32[4,3,5,5], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}`,
		"training nhwc, results used": `HloModule m
ENTRY e {
  x = f32[2,4,4,6] parameter(0)
  s = f32[6] parameter(1)
  o = f32[6] parameter(2)
  t = (f32[2,4,4,6], f32[6], f32[6]) batch-norm-training(x, s, o), epsilon=1e-05, feature_index=3
  y = f32[2,4,4,6] get-tuple-element(t), index=0
  v = f32[6] get-tuple-element(t), index=2
  ROOT r = (f32[2,4,4,6], f32[6]) tuple(y, v)
}`,
		"inference": `HloModule m
ENTRY e {
  x = f32[3,7,2] parameter(0)
  s = f32[7] parameter(1)
  o = f32[7] parameter(2)
  mu = f32[7] parameter(3)
  v0 = f32[7] parameter(4)
  v = f32[7] abs(v0)
  ROOT y = f32[3,7,2] batch-norm-inference(x, s, o, mu, v), epsilon=0.01, feature_index=1
}`,
		"grad": `HloModule m
ENTRY e {
  x = f32[4,3,3,3] parameter(0)
  s = f32[3] parameter(1)
  mu = f32[3] parameter(2)
  v0 = f32[3] parameter(3)
  v = f32[3] abs(v0)
  dy = f32[4,3,3,3] parameter(4)
  ROOT g = (f32[4,3,3,3], f32[3], f32[3]) batch-norm-grad(x, s, mu, v, dy), epsilon=0.001, feature_index=1
}`,
		"bf16 training": `HloModule m
ENTRY e {
  x = bf16[8,4] parameter(0)
  s = bf16[4] parameter(1)
  o = bf16[4] parameter(2)
  ROOT t = (bf16[8,4], bf16[4], bf16[4]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) { evaltest.CheckExpanded(t, name, text, expand.ExpandBatchNorms) })
	}
}
