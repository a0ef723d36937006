package cli

import (
	"fmt"
	"io"

	"github.com/pulse-sim/pulse/chip"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
)

// raceHelp is the --race flag's help, the same for run and exec.
const raceHelp = "watch for unsynchronised accesses (a missing wait) and fail when one is seen; --race=false runs without it"

// raceFailure reports what the race detector saw: each pair of
// instructions (their units, positions and the address) on w, then an
// error, since a racy kernel's values depend on timing (docs/isa.md,
// "Synchronization") and a number Pulse prints must not.
func raceFailure(w io.Writer, r *core.Races) error {
	if r == nil || r.Count == 0 {
		return nil
	}
	for _, race := range r.Found {
		fmt.Fprintf(w, "pulse: %s\n", race)
	}
	if r.Count > len(r.Found) {
		fmt.Fprintf(w, "pulse: ... and %d more unordered accesses\n", r.Count-len(r.Found))
	}
	return fmt.Errorf("data race: %d unordered accesses; the kernel's results depend on timing (add the missing wait; --race=false runs it anyway)", r.Count)
}

// execRaces runs prog on the cycle-level model, timing only, with the race
// detector: the functional executor runs units in an order of its own, so
// a race never shows in its values; the timing model's overlap shows it.
func execRaces(c *config.Chip, prog *exe.Program, inputs []chip.Input, maxCycles int64) (*core.Races, error) {
	races := &core.Races{}
	_, err := chip.Simulate(c, prog, inputs, chip.Options{TimingOnly: true, MaxCycles: maxCycles, Observers: []core.Observer{races}})
	return races, err
}
