package lowering_test

import "testing"

// TestCudnnConvCalls: XLA's GPU convolution custom calls
// (expand.ExpandCudnnConvs) on both chips against the evaluator: forward
// with a scale, bias and side input with an activation, and both
// backward kinds with strides and uneven padding (their kernels read
// negative padding and a dilated operand).
func TestCudnnConvCalls(t *testing.T) {
	for name, src := range map[string]string{
		"forward": `HloModule m
ENTRY e {
  x = f32[2,128,1,38] parameter(0)
  w = f32[1,5,128,16] parameter(1)
  ROOT c = (f32[2,16,1,38], u8[0]) custom-call(x, w), window={size=1x5 pad=0_0x2_2}, dim_labels=bf01_01io->bf01, custom_call_target="__cudnn$convForward", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":0.5}}
}`,
		"bias activation f16": `HloModule m
ENTRY e {
  x = f16[2,6,6,8] parameter(0)
  w = f16[8,3,3,8] parameter(1)
  b = f16[8] parameter(2)
  s = f16[2,6,6,8] parameter(3)
  ROOT c = (f16[2,6,6,8], u8[0]) custom-call(x, w, b, s), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":1,"side_input_scale":0.5}}
}`,
		"backward input": `HloModule m
ENTRY e {
  dy = f32[2,8,4,3] parameter(0)
  w = f32[8,4,3,3] parameter(1)
  ROOT dx = (f32[2,4,9,7], u8[0]) custom-call(dy, w), window={size=3x3 stride=2x2 pad=0_1x1_0}, dim_labels=bf01_oi01->bf01, custom_call_target="__cudnn$convBackwardInput", backend_config="{conv_result_scale:1}"
}`,
		"backward filter": `HloModule m
ENTRY e {
  x = f32[4,6,6,3] parameter(0)
  dy = f32[4,3,3,5] parameter(1)
  ROOT dw = (f32[3,3,3,5], u8[0]) custom-call(x, dy), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBackwardFilter", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}
}`,
	} {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				runChecked(t, chip, src)
			})
		}
	}
}

// TestCubSortCalls: XLA's GPU radix-sort custom calls
// (expand.ExpandCubSorts) on both chips against the evaluator.
func TestCubSortCalls(t *testing.T) {
	for name, src := range map[string]string{
		"pairs": `HloModule m
ENTRY e {
  k = f32[4,100] parameter(0)
  v = s32[4,100] iota(), iota_dimension=1
  ROOT r = (f32[4,100], s32[4,100], u8[64]) custom-call(k, v), custom_call_target="__cub$DeviceRadixSort", backend_config="{\"descending\": true}"
}`,
		"keys": `HloModule m
ENTRY e {
  k = s32[300] parameter(0)
  s = (s32[300], u8[0]) custom-call(k), custom_call_target="__cub$DeviceRadixSortUnassignedScratchSize"
  ROOT g = s32[300] get-tuple-element(s), index=0
}`,
	} {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				runChecked(t, chip, src)
			})
		}
	}
}
