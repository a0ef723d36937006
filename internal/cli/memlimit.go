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

// limitMemoryTo sets the collector's soft limit to a budget of values,
// unless GOMEMLIMIT or a lower limit is set, so that the process stays
// within what --max-memory promises: with the default target of twice the
// live heap, an evaluation within a 2 GiB budget reached 3.5 GB of resident
// memory (XLA's memory_space_propagation_test.cc:606, 1.6 GB of live
// values), and with the budget plus evalOverhead as the limit, 2.2 GiB
// (host_offloader_test.cc:4241, 1.3 GB live and 8,192 iterations of
// small garbage); at the budget itself it stays under 2 GiB. The heap
// check (Evaluator.MaxHeapBytes) allows evalOverhead more before it stops
// the run: the collector works harder there instead. Budgets below
// 2*evalOverhead get that much, so a small one does not make the collector
// run without pause.
func limitMemoryTo(budget int64) {
	if os.Getenv("GOMEMLIMIT") != "" || budget <= 0 {
		return
	}
	if want := max(budget, 2*evalOverhead); want < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(want)
	}
}
