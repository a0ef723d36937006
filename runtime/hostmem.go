package runtime

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

// A value run holds every byte of HBM its program writes in the host's
// memory, once per device. A run that needs more than the host has would
// be killed for memory (or swap for hours) part way: XLA's windowed-einsum
// test module, 4 devices of 5.5 GiB each, reached 17.9 GB before it did.
// checkHostMemory refuses such a run at once, saying what it needs.

// imageBytes is the HBM a program's tensors cover (the union of their
// address ranges, which the compiler reuses), the most a value run's
// machine image holds.
func imageBytes(p *exe.Program) int64 {
	type span struct{ lo, hi int64 }
	var spans []span
	for _, s := range p.Symbols {
		if s.Space == isa.HBM {
			lo := int64(s.Addr)
			spans = append(spans, span{lo, lo + s.Elems()*int64(s.DType.Size())})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return int(min(max(a.lo-b.lo, -1), 1)) })
	var total, end int64
	for _, s := range spans {
		lo := max(s.lo, end)
		if s.hi > lo {
			total += s.hi - lo
			end = s.hi
		}
	}
	return total
}

// availableMemory is the host memory available now (Linux's
// MemAvailable), or 0 when it cannot be read.
func availableMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != "MemAvailable" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// CheckHostMemory refuses a value run of x on its devices when their
// simulated HBM would not fit the host's available memory (Execute and
// ExecuteDevices check too; a caller that builds large inputs first calls
// it before them, so that the refusal comes at once).
func CheckHostMemory(x *Executable, timingOnly bool) error {
	return checkHostMemory(x, x.Devices.N(), timingOnly, availableMemory())
}

// checkHostMemory refuses a value run of devices whose machine images
// would not fit the host's available memory. A timing-only run writes
// only the few values control flow needs and is not checked.
func checkHostMemory(x *Executable, devices int, timingOnly bool, available int64) error {
	if timingOnly || available <= 0 {
		return nil
	}
	each := imageBytes(x.Program)
	need := int64(devices) * each
	if need <= available {
		return nil
	}
	const gib = 1 << 30
	who := "the device"
	if devices > 1 {
		who = fmt.Sprintf("%d devices", devices)
	}
	return fmt.Errorf("a value run of %s needs about %.1f GiB of this host's memory for the simulated HBM (%.1f GiB a device: what the program's tensors cover), and %.1f GiB is available: run with --timing-only (which holds only what control flow reads), or on a larger host",
		who, float64(need)/gib, float64(each)/gib, float64(available)/gib)
}
