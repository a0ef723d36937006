package legalize

import "github.com/pulse-sim/pulse/hlo"

// RemoveDeadCode drops the instructions no result depends on, as XLA's
// HloDCE does before a TPU compiles a module (hlo.RemoveDead: effects and
// their calls, parameters and control predecessors stay): a dump taken
// before XLA's passes (torch_xla's, for one) still holds values the
// program computes and never reads, such as the gradient of a training
// step's input images (MobileNet-v2's: a transposed convolution over 462
// MB, 17M cycles of a 184M-cycle step, read by nothing).
func RemoveDeadCode(m *hlo.Module) error {
	hlo.RemoveDead(m, nil)
	return nil
}
