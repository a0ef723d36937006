package sim

// HookPos says what happened.
type HookPos uint8

const (
	// HookInstStart: a unit started an instruction.
	HookInstStart HookPos = iota
	// HookInstEnd: an instruction completed.
	HookInstEnd
	// HookStall: a unit began a stall (Reason says why).
	HookStall
)

// HookCtx describes one observation. It is passed by pointer and reused, so
// observing allocates nothing.
type HookCtx struct {
	Pos    HookPos
	Now    Time
	Unit   int    // the component's index in its chip
	PC     int    // instruction, or -1
	Start  Time   // for HookInstEnd: when the instruction started
	Reason string // for HookStall
}

// Hook observes a component.
type Hook interface {
	Func(ctx *HookCtx)
}

// Hookable is embedded by components that accept hooks. With no hook
// attached, a component checks Hooked() and builds no context at all.
type Hookable struct {
	hooks []Hook
}

// AcceptHook attaches an observer.
func (h *Hookable) AcceptHook(k Hook) { h.hooks = append(h.hooks, k) }

// Hooked reports whether any observer is attached.
func (h *Hookable) Hooked() bool { return len(h.hooks) > 0 }

// InvokeHook calls every observer.
func (h *Hookable) InvokeHook(ctx *HookCtx) {
	for _, k := range h.hooks {
		k.Func(ctx)
	}
}
