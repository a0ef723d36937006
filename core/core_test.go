package core_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/conformance"
	"github.com/pulse-sim/pulse/ref"
	"github.com/stretchr/testify/require"
)

func both(t *testing.T, chipName string, prog *exe.Program) (*ref.Machine, error, *core.Model, error) {
	t.Helper()
	chip, err := config.Load(chipName, nil)
	require.NoError(t, err)
	rm, err := ref.New(chip, prog)
	require.NoError(t, err)
	rerr := rm.Run(ref.Options{MaxSteps: 10_000_000})
	cm, err := core.New(chip, prog, core.Options{MaxCycles: 50_000_000})
	require.NoError(t, err)
	cerr := cm.Run()
	return rm, rerr, cm, cerr
}

// TestDifferentialConformance: every conformance program ends in the same
// state on the timing model as on the functional executor, byte for byte,
// or fails the same way.
func TestDifferentialConformance(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	for _, c := range cases {
		if c.Name == "fault_steps.s" || c.Name == "fault_queue.s" {
			continue // the executor's step and queue guards; the timing model has --max-cycles and real queues
		}
		t.Run(c.Name, func(t *testing.T) {
			prog, err := c.Assemble()
			require.NoError(t, err)
			rm, rerr, cm, cerr := both(t, c.Chip, prog)
			if rerr != nil {
				require.Error(t, cerr, "ref failed with %v", rerr)
				var rd, cd *ref.Deadlock
				if errors.As(rerr, &rd) {
					require.ErrorAs(t, cerr, &cd)
				} else {
					require.Equal(t, rerr.Error(), cerr.Error())
				}
				return
			}
			require.NoError(t, cerr)
			require.Empty(t, ref.Diff(rm, cm.Arch))
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			require.Equal(t, rm.Retired, cm.Retired())
			require.Greater(t, cm.Cycles(), int64(0))
		})
	}
}

func TestDifferentialExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/kernels/*.s")
	for _, f := range files {
		if filepath.Base(f) == "gemm4096.s" {
			continue // 6.9e10 MACs: a timing-only kernel (TestGEMM4096 in chip/)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			prog, err := asm.Assemble(f, src, asm.Options{})
			require.NoError(t, err)
			chip := "teach16" // or the kernel's "; chip: NAME" line
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(line, "; chip: "); ok {
					chip = strings.TrimSpace(rest)
				}
			}
			rm, rerr, cm, cerr := both(t, chip, prog)
			require.NoError(t, rerr)
			require.NoError(t, cerr)
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			// Every moment of every unit is attributed to exactly one state.
			for _, u := range cm.Units {
				require.Equal(t, cm.End(), u.Accounting().Total(), "%s", u.Name)
			}
		})
	}
}

func TestMaxCycles(t *testing.T) {
	prog, err := asm.Assemble("spin.s", []byte("l: jmp l\n"), asm.Options{})
	require.NoError(t, err)
	chip, _ := config.Load("teach16", nil)
	m, err := core.New(chip, prog, core.Options{MaxCycles: 1000})
	require.NoError(t, err)
	err = m.Run()
	var mc *core.MaxCyclesError
	require.ErrorAs(t, err, &mc)
	require.Contains(t, err.Error(), "max-cycles")
}

// TestDifferentialBankedHBM: with the bank-level DRAM model the timing
// changes and the values do not.
func TestDifferentialBankedHBM(t *testing.T) {
	for _, f := range []string{"gemm256.s", "softmax.s", "vadd.s"} {
		t.Run(f, func(t *testing.T) {
			path := "../examples/kernels/" + f
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			prog, err := asm.Assemble(path, src, asm.Options{})
			require.NoError(t, err)
			name := "teach16"
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(line, "; chip: "); ok {
					name = strings.TrimSpace(rest)
				}
			}
			chip, err := config.Load(name, []string{"hbm.model=banked"})
			require.NoError(t, err)
			rm, err := ref.New(chip, prog)
			require.NoError(t, err)
			require.NoError(t, rm.Run(ref.Options{}))
			cm, err := core.New(chip, prog, core.Options{})
			require.NoError(t, err)
			require.NoError(t, cm.Run())
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			require.Greater(t, cm.HBM.Stats().Accesses, int64(0))
		})
	}
}
