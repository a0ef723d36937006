package ref_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/internal/conformance"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/ref"
	"github.com/stretchr/testify/require"
)

// TestConformance runs the ISA conformance suite on the functional executor.
func TestConformance(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	used := map[isa.Op]bool{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			prog, err := c.Assemble()
			require.NoError(t, err)
			for _, in := range prog.Code {
				used[in.Op] = true
			}
			chip, err := config.Load(c.Chip, c.Sets)
			require.NoError(t, err)
			m, err := ref.New(chip, prog)
			require.NoError(t, err)
			err = m.Run(ref.Options{MaxSteps: 10_000_000})
			switch {
			case c.Fault != "":
				require.Error(t, err, "expected a fault containing %q", c.Fault)
				require.Contains(t, err.Error(), c.Fault)
				var f *ref.Fault
				var s *ref.StepLimit
				require.True(t, errors.As(err, &f) || errors.As(err, &s), "want a *Fault or *StepLimit, got %T", err)
				if f != nil {
					// Faults are precise: they carry the source position.
					require.True(t, strings.HasPrefix(err.Error(), c.Name+":"), "fault without a position: %v", err)
				}
				return
			case c.WantDeadlock:
				var d *ref.Deadlock
				require.ErrorAs(t, err, &d)
				require.Contains(t, err.Error(), c.Deadlock)
				return
			}
			require.NoError(t, err)
			for r, want := range c.Regs {
				require.Equal(t, want, m.Regs[r], "r%d", r)
			}
			for s, want := range c.Sems {
				require.Equal(t, want, m.Sems[s], "s%d", s)
			}
			for name, want := range c.Tensors {
				got, sym, err := m.ReadTensor(name)
				require.NoError(t, err)
				require.Len(t, got, len(want), "tensor %s", name)
				for i := range want {
					require.True(t, conformance.Match(sym.DType, got[i], want[i]), "tensor %s[%d] = %v, want %v (all: %v)", name, i, got[i], want[i], got)
				}
			}
		})
	}
	for op := range isa.Table {
		if !used[isa.Op(op)] {
			t.Errorf("no conformance case executes %s", isa.Table[op].Mnemonic)
		}
	}
}
