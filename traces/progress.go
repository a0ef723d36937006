package traces

import (
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// Progress tells a progress bar how far a run has got: every 64
// instructions the sequencer dispatches, Report gets the farthest position
// in the program dispatched so far and the program's length. Kernels are
// laid out in the order they run, so the position walks from 0 to the end
// of a straight-line module; in a loop it waits at the loop until the loop
// ends (it never goes back).
type Progress struct {
	Report func(done, total int)

	total int
	n     int
	far   int
}

// progressEvery is how many dispatches pass between reports (a report
// costs the bar a clock read; a lowered program's tile instructions each
// take many cycles to simulate, so even small counts come seconds apart).
const progressEvery = 64

// Attach watches m's sequencer.
func (p *Progress) Attach(m *core.Model) {
	p.total = len(m.Prog.Code)
	m.Seq.AcceptHook(p)
}

// Restartable: a run begun again restarts the report (core.RestartableObserver).
func (p *Progress) Restartable() {}

// Wants selects the dispatches.
func (p *Progress) Wants(pos sim.HookPos) bool { return pos == sim.HookDispatch }

// Func counts a dispatch and reports now and then.
func (p *Progress) Func(c *sim.HookCtx) {
	p.far = max(p.far, c.PC+1)
	if p.n++; p.n%progressEvery == 0 && p.Report != nil {
		p.Report(p.far, p.total)
	}
}
