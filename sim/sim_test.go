package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type recorder struct {
	log *[]int
	id  int
}

func (r *recorder) Handle(now Time) { *r.log = append(*r.log, r.id) }

func TestOrder(t *testing.T) {
	var e Engine
	var log []int
	rs := make([]*recorder, 6)
	for i := range rs {
		rs[i] = &recorder{&log, i}
	}
	e.Schedule(30, rs[0])
	e.Schedule(10, rs[1])
	e.Schedule(10, rs[2]) // same time: scheduling order
	e.Schedule(20, rs[3])
	e.Schedule(10, rs[4])
	e.Schedule(0, rs[5])
	require.False(t, e.Run(-1))
	require.Equal(t, []int{5, 1, 2, 4, 3, 0}, log)
	require.Equal(t, Time(30), e.Now())
	require.Panics(t, func() { e.Schedule(5, rs[0]) })
}

func TestRunLimit(t *testing.T) {
	var e Engine
	var log []int
	e.Schedule(5, &recorder{&log, 1})
	e.Schedule(50, &recorder{&log, 2})
	require.True(t, e.Run(10))
	require.Equal(t, []int{1}, log)
	require.Equal(t, 1, e.Pending())
}

func TestClock(t *testing.T) {
	c := NewClockMHz("core", 1050)
	require.Equal(t, Time(952), c.Period)
	require.Equal(t, int64(2), c.Cycles(1904))
	require.Equal(t, int64(3), c.CyclesCeil(1905))
	require.Equal(t, Time(1904), c.NextEdge(1000))
	require.Equal(t, Time(1904), c.NextEdge(1904))
	require.Equal(t, Time(952*7), c.Time(7))
}

func TestPortBackPressure(t *testing.T) {
	var e Engine
	p := NewPort[int](&e, 2)
	require.True(t, p.Send(1))
	require.True(t, p.Send(2))
	require.False(t, p.Send(3))
	var log []int
	p.NotifySpace(&recorder{&log, 7})
	v, ok := p.Recv()
	require.True(t, ok)
	require.Equal(t, 1, v)
	e.Run(-1)
	require.Equal(t, []int{7}, log, "sender woken when space frees")
	require.True(t, p.Send(3))
	require.Equal(t, 2, p.At(0))
	require.Equal(t, 3, p.At(1))
	p.NotifyArrival(&recorder{&log, 8})
	p.Recv()
	p.Recv()
	p.Send(4)
	e.Run(-1)
	require.Equal(t, []int{7, 8}, log)
}

type counter struct{ n int }

func (c *counter) Func(*HookCtx) { c.n++ }

func TestHooks(t *testing.T) {
	var h Hookable
	require.False(t, h.Hooked())
	c := &counter{}
	h.AcceptHook(c)
	h.InvokeHook(&HookCtx{})
	require.True(t, h.Hooked())
	require.Equal(t, 1, c.n)
	require.True(t, h.Wants(HookState) && h.Wants(HookTransfer), "an unfiltered hook wants everything")
	require.NotNil(t, h.HookCtx())
}

type startsOnly struct{ counter }

func (startsOnly) Wants(p HookPos) bool { return p == HookInstStart }

func TestHookFilter(t *testing.T) {
	var h Hookable
	require.Nil(t, h.HookCtx(), "no context until an observer attaches")
	s := &startsOnly{}
	h.AcceptHook(s)
	require.True(t, h.Wants(HookInstStart))
	require.False(t, h.Wants(HookState))
	h.InvokeHook(&HookCtx{Pos: HookInstStart})
	h.InvokeHook(&HookCtx{Pos: HookState})
	require.Equal(t, 1, s.n)
	c := &counter{}
	h.AcceptHook(c)
	require.True(t, h.Wants(HookState))
	h.InvokeHook(&HookCtx{Pos: HookState})
	require.Equal(t, 1, s.n, "the filtering hook still sees only starts")
	require.Equal(t, 1, c.n)
}

type nop struct{}

func (nop) Handle(Time) {}

// BenchmarkScheduleStep: steady-state schedule + pop on a heap of 1000 events.
// It allocates nothing (b.ReportAllocs shows 0 allocs/op).
func BenchmarkScheduleStep(b *testing.B) {
	var e Engine
	h := &nop{}
	for i := 0; i < 1000; i++ {
		e.Schedule(Time(i), h)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Schedule(e.Now()+Time(i%977)+1, h)
		e.Step()
	}
}

func TestScheduleStepNoAlloc(t *testing.T) {
	var e Engine
	h := &nop{}
	for i := 0; i < 100; i++ {
		e.Schedule(Time(i), h)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		e.Schedule(e.Now()+7, h)
		e.Step()
	})
	require.Zero(t, allocs)
}
