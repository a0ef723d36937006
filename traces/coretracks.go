package traces

import (
	"fmt"

	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/sim"
)

// coreTracks numbers the tracks of every core a recorder watches: core k's
// sequencer is track base[k] and its unit i track base[k]+1+i, so core 0's
// numbering is the single-core one (the sequencer 0, unit i at i+1).
type coreTracks struct {
	models []*core.Model
	base   []int
}

// add watches m, the next core, and returns its first track.
func (c *coreTracks) add(m *core.Model) int {
	b := c.total()
	c.models, c.base = append(c.models, m), append(c.base, b)
	return b
}

// total is the number of tracks.
func (c *coreTracks) total() int {
	n := 0
	for _, m := range c.models {
		n += len(m.Units) + 1
	}
	return n
}

// at returns the core of track tr and its unit (nil: the sequencer).
func (c *coreTracks) at(tr int) (k int, u *core.Unit) {
	for k = len(c.base) - 1; k > 0 && tr < c.base[k]; k-- {
	}
	if i := tr - c.base[k]; i > 0 {
		u = c.models[k].Units[i-1]
	}
	return k, u
}

// name is the track's unit name as the report gives it ("scalar" or
// "core1.scalar" for a sequencer).
func (c *coreTracks) name(tr int) string {
	k, u := c.at(tr)
	switch {
	case u != nil:
		return u.Name
	case k > 0:
		return fmt.Sprintf("core%d.scalar", k)
	}
	return "scalar"
}

// shifted passes a core's hook events to h with their unit numbered in
// the recorder's tracks (ctx.Unit + 1 + base is the track), and only the
// positions want lets through.
type shifted struct {
	h    sim.Hook
	base int
	want func(sim.HookPos) bool
}

func (s *shifted) Func(ctx *sim.HookCtx) {
	if !s.want(ctx.Pos) {
		return
	}
	ctx.Unit += s.base
	s.h.Func(ctx)
	ctx.Unit -= s.base
}

// Wants implements sim.HookFilter.
func (s *shifted) Wants(p sim.HookPos) bool { return s.want(p) }
