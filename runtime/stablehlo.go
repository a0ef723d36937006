package runtime

import (
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// StableHLORunner runs a StableHLO test module's entry on the client's
// chip (compiled, simulated, its outputs read back), for
// stablehlo.TestFile: `pulse stablehlo test --sim CHIP`.
func (c *Client) StableHLORunner() stablehlo.Runner {
	return func(r *stablehlo.Result) ([]*eval.Value, error) {
		if err := verify.Verify(r.File, r.Module); err != nil {
			return nil, err
		}
		x, err := c.Compile(r.File, r.Module)
		if err != nil {
			return nil, err
		}
		res, err := c.Execute(x, nil, ExecOptions{})
		if err != nil {
			return nil, err
		}
		return res.Outputs, nil
	}
}
