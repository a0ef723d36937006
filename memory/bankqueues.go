package memory

import "github.com/pulse-sim/pulse/sim"

// The controller with per-bank command queues (BankQueue > 0), organised as
// DRAMSim3's (src/controller.cc, src/command_queue.cc, PER_BANK):
//
//   - Requests wait in the channel's read queue (ReadQueue deep, what
//     Accepts counts) or its write buffer (WriteQueue).
//   - Every clock one of them moves into its bank's command queue (BankQueue
//     deep): the oldest whose bank queue has room, from the write buffer
//     while it drains, otherwise from the read queue. A moved request no
//     longer counts against the read queue, so a stream that fills one bank
//     queue keeps flowing into the others.
//   - The write buffer starts draining when it is full, or when it holds
//     more than 8 writes and every bank queue is empty; it drains as many
//     writes as it held then. Unlike DRAMSim3, whose last few writes can
//     wait for ever, it also drains when nothing else is left to do.
//   - Every clock the scheduler looks at the bank queues round-robin,
//     starting after the last one that issued, and in each takes the first
//     command that may issue now: a column command to the open row, an
//     activate for a closed bank, or a precharge, which only the head of the
//     queue may ask for and only when no later request of the queue hits the
//     open row or the row has served RowHitCap hits (4 when unset).
//   - HBM has separate row and column command buses: a second command issues
//     in the same clock when one is a column command and the other not.
//   - A refresh, when due, goes first: open banks are precharged, then every
//     bank of the channel refreshes for RFC.
//
// The device timing (colReady, actReady, preReady) is the same as the
// window scheduler's.

// queued reports whether any bank queue holds a request.
func (c *channel) queued() bool {
	for _, q := range c.bq {
		if len(q) > 0 {
			return true
		}
	}
	return false
}

// stepQueues is step for the per-bank command queues.
func (c *channel) stepQueues(now sim.Time) (sim.Time, bool) {
	b := c.b
	next := sim.Time(-1)
	soon := func(t sim.Time) { next = earliest(next, t) }
	issued := false
	if b.cfg.REFI > 0 && now >= c.refreshDue {
		issued = c.refresh(now, soon)
	} else {
		if b.cfg.REFI > 0 {
			soon(c.refreshDue)
		}
		if col, ok := c.issueQueued(now, soon, -1); ok {
			issued = true
			// The other command bus may carry a second command this clock.
			c.issueQueued(now, soon, col)
		}
	}
	// A command issued, or a request to move: look again next clock (an
	// issue returns before scanning every queue, so soon has not seen them).
	moved := c.moveOne(now)
	if issued || moved {
		soon(now + b.cfg.TCK)
	}
	if t := c.nextMove(now); t >= 0 {
		soon(t)
	}
	return next, issued
}

// refresh precharges the next open bank or starts the refresh once all are
// closed; it reports whether it issued a command.
func (c *channel) refresh(now sim.Time, soon func(sim.Time)) bool {
	pending := false
	for i := range c.banks {
		if c.banks[i].open {
			if t := c.preReady(i); t <= now {
				c.precharge(i, now)
				return true
			} else {
				soon(t)
				pending = true
			}
		}
	}
	if pending {
		return false
	}
	if now < c.blocked {
		soon(c.blocked)
		return false
	}
	soon(c.startRefresh(now))
	return true
}

// issueQueued issues the first ready command of the bank queues, round-robin
// after the last queue that issued. want is -1 for any command, 1 for a
// column command only, 0 for a row command only (the second command of a
// clock). It returns 1 or 0 for what it issued.
func (c *channel) issueQueued(now sim.Time, soon func(sim.Time), want int) (int, bool) {
	n := len(c.bq)
	for k := 1; k <= n; k++ {
		qi := (c.rr + k) % n
		q := c.bq[qi]
		bk := &c.banks[qi]
		for j, a := range q {
			var ready sim.Time
			col := 0
			switch {
			case bk.open && bk.row == a.row:
				ready, col = c.colReady(a), 1
			case bk.open:
				if j > 0 || c.hitPending(q, bk.row) && bk.hits < c.hitCap() {
					continue
				}
				ready = c.preReady(qi)
			default:
				ready = c.actReady(a)
			}
			if ready > now {
				soon(ready)
				continue
			}
			if want >= 0 && col != want {
				// DRAMSim3 looks once more and issues only a command of the
				// other kind.
				return 0, false
			}
			c.rr = qi
			switch {
			case col == 1:
				c.bq[qi] = append(q[:j], q[j+1:]...)
				c.issueColumn(a, now)
			case bk.open:
				c.precharge(qi, now)
			default:
				c.activate(a, now)
			}
			return col, true
		}
	}
	return 0, false
}

// hitCap is the row hits after which the head of a bank queue may close the
// row (DRAMSim3's fixed 4 unless RowHitCap says otherwise).
func (c *channel) hitCap() int {
	if c.b.cfg.RowHitCap > 0 {
		return c.b.cfg.RowHitCap
	}
	return 4
}

// hitPending reports whether a request of q hits row.
func (c *channel) hitPending(q []*access, row int) bool {
	for _, a := range q {
		if a.row == row {
			return true
		}
	}
	return false
}

// source is the transaction queue requests move from now: the write buffer
// while it drains, else the read queue.
func (c *channel) source() *[]*access {
	b := c.b
	if b.cfg.WriteQueue > 0 && c.drainLeft == 0 && len(c.writes) > 0 &&
		(len(c.writes) >= b.cfg.WriteQueue || (len(c.writes) > 8 || len(c.queue) == 0) && !c.queued()) {
		c.drainLeft = len(c.writes)
	}
	if c.drainLeft > 0 {
		return &c.writes
	}
	return &c.queue
}

// depth is how many of src's oldest requests the controller holds: its
// queue's size (ReadQueue, WriteQueue, else Window). DMA engines of a chip
// run do not ask Accepts, so more may wait behind them, outside.
func (c *channel) depth(src *[]*access) int {
	cfg := &c.b.cfg
	n := cfg.ReadQueue
	if src == &c.writes {
		n = cfg.WriteQueue
	}
	if n == 0 {
		n = cfg.Window
	}
	if n == 0 || n > len(*src) {
		n = len(*src)
	}
	return n
}

// moveOne moves the oldest arrived request whose bank queue has room from
// the current source into it; it reports whether one moved.
func (c *channel) moveOne(now sim.Time) bool {
	src := c.source()
	for i, a := range (*src)[:c.depth(src)] {
		if a.arrive > now || len(c.bq[a.bank]) >= c.b.cfg.BankQueue {
			continue
		}
		*src = append((*src)[:i], (*src)[i+1:]...)
		c.bq[a.bank] = append(c.bq[a.bank], a)
		switch {
		case a.write && c.drainLeft > 0:
			c.drainLeft--
		case !a.write:
			c.reads--
		}
		return true
	}
	return false
}

// nextMove is when a request could move next: the next clock when one that
// has arrived finds room, else the earliest arrival of one that would (-1:
// none).
func (c *channel) nextMove(now sim.Time) sim.Time {
	next := sim.Time(-1)
	src := c.source()
	for _, a := range (*src)[:c.depth(src)] {
		if len(c.bq[a.bank]) >= c.b.cfg.BankQueue {
			continue
		}
		next = earliest(next, max(a.arrive, now+c.b.cfg.TCK))
	}
	return next
}
