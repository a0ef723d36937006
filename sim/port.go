package sim

// Port is a bounded FIFO between two components. A sender that finds it full
// registers to be woken when space frees (back-pressure); a receiver that
// finds it empty registers to be woken when an item arrives.
type Port[T any] struct {
	buf       []T
	head, n   int
	onSpace   Handler
	onArrival Handler
	engine    *Engine
}

// NewPort makes a port holding at most capacity items.
func NewPort[T any](e *Engine, capacity int) *Port[T] {
	if capacity < 1 {
		capacity = 1
	}
	return &Port[T]{buf: make([]T, capacity), engine: e}
}

// Cap is the port's capacity; Len its occupancy.
func (p *Port[T]) Cap() int { return len(p.buf) }
func (p *Port[T]) Len() int { return p.n }

// Full reports whether a Send would fail.
func (p *Port[T]) Full() bool { return p.n == len(p.buf) }

// Send appends v; it returns false, changing nothing, when the port is full.
func (p *Port[T]) Send(v T) bool {
	if p.n == len(p.buf) {
		return false
	}
	p.buf[(p.head+p.n)%len(p.buf)] = v
	p.n++
	if h := p.onArrival; h != nil {
		p.onArrival = nil
		p.engine.Schedule(p.engine.Now(), h)
	}
	return true
}

// Peek returns the oldest item without removing it.
func (p *Port[T]) Peek() (T, bool) {
	var zero T
	if p.n == 0 {
		return zero, false
	}
	return p.buf[p.head], true
}

// Recv removes and returns the oldest item.
func (p *Port[T]) Recv() (T, bool) {
	var zero T
	if p.n == 0 {
		return zero, false
	}
	v := p.buf[p.head]
	p.buf[p.head] = zero
	p.head = (p.head + 1) % len(p.buf)
	p.n--
	if h := p.onSpace; h != nil {
		p.onSpace = nil
		p.engine.Schedule(p.engine.Now(), h)
	}
	return v, true
}

// At returns the i-th oldest item (0 = head).
func (p *Port[T]) At(i int) T { return p.buf[(p.head+i)%len(p.buf)] }

// NotifySpace wakes h (once) when an item is removed.
func (p *Port[T]) NotifySpace(h Handler) { p.onSpace = h }

// NotifyArrival wakes h (once) when an item arrives.
func (p *Port[T]) NotifyArrival(h Handler) { p.onArrival = h }
