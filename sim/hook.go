package sim

// HookPos says what happened.
type HookPos uint8

const (
	// HookInstStart: a unit started an instruction.
	HookInstStart HookPos = iota
	// HookInstEnd: an instruction completed.
	HookInstEnd
	// HookState: the unit spent [Start, Now) in state Reason ("busy" or a
	// stall reason the component names), on behalf of instruction PC (-1:
	// none). A component reports every moment of its run exactly once, in
	// time order, so the spans of one unit add up to the run's length.
	HookState
	// HookDispatch: the sequencer put instruction PC into the queue of unit
	// Unit (Depth: the queue's length after it).
	HookDispatch
	// HookDequeue: unit Unit took instruction PC off its queue to start it
	// (Depth: the queue's length after it).
	HookDequeue
	// HookTransfer: a memory channel (Unit) moved Bytes over its data bus
	// in [Start, Now); Write says which way.
	HookTransfer
	numHookPos
)

// HookCtx describes one observation. It is passed by pointer and reused, so
// observing allocates nothing.
type HookCtx struct {
	Pos    HookPos
	Now    Time
	Unit   int    // the component's index in its chip (-1: the sequencer)
	PC     int    // instruction, or -1
	Start  Time   // for HookInstEnd, HookState, HookTransfer: when it began
	Reason string // for HookState
	Depth  int    // for HookDispatch, HookDequeue
	Bytes  int64  // for HookTransfer
	Write  bool   // for HookTransfer
	// Bases are the base-register values of the instruction's tiles
	// (HookInstStart), so observers can place its operands in memory.
	Bases [3]int64
}

// Hook observes a component.
type Hook interface {
	Func(ctx *HookCtx)
}

// HookFilter is implemented by hooks that observe only some positions: the
// component then builds no context for the others (a hook without it sees
// everything).
type HookFilter interface {
	Wants(p HookPos) bool
}

// Hookable is embedded by components that accept hooks. With no hook
// attached, a component checks Hooked() and builds no context at all.
type Hookable struct {
	hooks []Hook
	ctx   *HookCtx
	want  uint32 // bit p: some hook wants position p
}

// AcceptHook attaches an observer.
func (h *Hookable) AcceptHook(k Hook) {
	h.hooks = append(h.hooks, k)
	if h.ctx == nil {
		h.ctx = new(HookCtx)
	}
	f, ok := k.(HookFilter)
	for p := HookPos(0); p < numHookPos; p++ {
		if !ok || f.Wants(p) {
			h.want |= 1 << p
		}
	}
}

// Wants reports whether any observer wants position p.
func (h *Hookable) Wants(p HookPos) bool { return h.want&(1<<p) != 0 }

// HookCtx is the component's reusable context, to fill before InvokeHook
// (nil until an observer is attached: unobserved components carry none).
func (h *Hookable) HookCtx() *HookCtx { return h.ctx }

// Hooked reports whether any observer is attached.
func (h *Hookable) Hooked() bool { return len(h.hooks) > 0 }

// InvokeHook calls every observer (those that filter, when they want ctx.Pos).
func (h *Hookable) InvokeHook(ctx *HookCtx) {
	for _, k := range h.hooks {
		if f, ok := k.(HookFilter); ok && !f.Wants(ctx.Pos) {
			continue
		}
		k.Func(ctx)
	}
}
