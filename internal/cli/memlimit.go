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

// evalOverhead is what an evaluation holds beyond its budgeted values: the
// parsed module, output buffers, the collector's working room.
const evalOverhead = 256 << 20

// limitMemoryTo lowers the collector's soft limit to a budget of values
// plus evalOverhead, unless GOMEMLIMIT or a lower limit is set: with the
// default target of twice the live heap, an evaluation within a 2 GiB
// budget reached 3.5 GB of resident memory (XLA's
// memory_space_propagation_test.cc:606, 1.6 GB of live values); the
// collector now works harder instead, and the process stays near what
// --max-memory promises.
func limitMemoryTo(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" || budget <= 0 {
		return
	}
	if want := budget + evalOverhead; want < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(want)
	}
}
