package cli

import (
	"os"
	"runtime/debug"

	"github.com/pulse-sim/pulse/internal/host"
)

// setMemoryLimit gives the Go collector a soft limit of three quarters of
// the host's memory unless GOMEMLIMIT sets one. A functional simulation and
// --check's evaluator each hold gigabytes for a model like MobileNet-v2;
// the collector's default target (twice the live heap) would take a 10 GB
// live set to 20 GB and the host into its out-of-memory killer, where
// collecting more often keeps it well inside.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if total := host.Memory(); total > 0 {
		debug.SetMemoryLimit(total / 4 * 3)
	}
}
