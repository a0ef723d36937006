package memory

import (
	"github.com/pulse-sim/pulse/sim"
)

// BankedConfig describes a DRAM device: organization and JEDEC timings in
// clock cycles of TCK (see ../shared/reference/hardware.md section 2).
type BankedConfig struct {
	Channels      int // independent channels (each with its own command and data bus)
	BankGroups    int
	BanksPerGroup int
	Rows          int
	Columns       int // column accesses per row
	AccessBytes   int // bytes per column access (bus width x burst length)
	TCK           sim.Time
	CL, CWL       int // read and write latency
	RCD, RP, RAS  int // activate to column, precharge, activate to precharge
	CCDS, CCDL    int // column to column, other / same bank group
	RRDS, RRDL    int // activate to activate, other / same bank group
	FAW           int // four-activate window
	WTRS, WTRL    int // write data end to read, other / same bank group
	RTP, WR       int // read to precharge, write data end to precharge
	RFC, REFI     int // refresh cycle time and interval (0 REFI: no refresh)
	BL            int // cycles the data bus is busy per access
	Window        int // requests the scheduler considers (controller queue)

	// The controller (zero values: Pulse's defaults).
	Mapping    []Field // address fields from the least significant up; nil: the hashed mapping below
	ReadQueue  int     // reads a channel holds (Accepts says when it is full; 0: no limit)
	WriteQueue int     // writes a channel buffers; they are drained together once it is full (0: scheduled with the reads)
	BankQueue  int     // accesses per bank the scheduler considers, oldest first (0: no per-bank limit)
	RowHitCap  int     // row hits in a row after which an older access to another row of the bank goes first (0: no cap)
}

// Field is one field of an address mapping: ro, ra, bg, ba, ch or co, and
// its width in bits.
type Field struct {
	Name string
	Bits int
}

// Banked is the bank-level DRAM model. Each channel has a controller that
// keeps a queue of column accesses and issues one command per clock, first
// ready, first come first served (FR-FCFS): the oldest access whose row is
// open and whose column command may issue now; otherwise the oldest access
// gets the precharge or activate it needs. Rows stay open (open-page policy).
// Every channel refreshes all its banks every REFI cycles for RFC cycles,
// staggered across channels.
//
// Address mapping, from the least significant digit of line = addr /
// AccessBytes: bank group, channel, column, bank, row. Consecutive accesses
// alternate bank groups (so column commands are spaced by CCDS, not CCDL),
// spread over every channel, and stay in one row of each bank for Columns
// accesses. The channel digit is XORed (digit-wise sum modulo Channels) with
// every higher base-Channels digit of line / BankGroups, as memory
// controllers hash addresses, so that strided access (a matrix column, a tile
// of a wide row-major matrix) spreads over the channels too.
type Banked struct {
	sim.Hookable
	cfg   BankedConfig
	eng   *sim.Engine
	ch    []*channel
	stats HBMStats
}

type request struct {
	done Done
	left int
	last sim.Time
}

type access struct {
	c       *channel
	arrive  sim.Time
	bank    int // index bg*BanksPerGroup + bank
	bg, row int
	write   bool
	missed  bool // needed an activate
	req     *request
	end     sim.Time
}

type bank struct {
	hits      int // column commands to the open row since it opened
	open      bool
	row       int
	actAt     sim.Time
	readyAct  sim.Time // earliest activate (precharge done, refresh done)
	lastRd    sim.Time
	lastWrEnd sim.Time
}

type channel struct {
	b          *Banked
	idx        int
	queue      []*access // reads, and writes when there is no write buffer
	writes     []*access // the write buffer (WriteQueue > 0)
	draining   bool      // the write buffer is being drained: only writes are scheduled
	reads      int       // reads in the queue
	perBank    []int     // scratch: accesses seen per bank in a scheduling pass
	vis        []bool    // scratch: the window's visible accesses
	banks      []bank
	lastAct    sim.Time
	lastActBG  []sim.Time
	faw        [4]sim.Time
	fawNext    int
	lastCol    sim.Time
	lastColBG  []sim.Time
	lastWrEnd  sim.Time
	lastRdEnd  sim.Time // the end of the last read's data on the bus
	lastWrBG   []sim.Time
	busFree    sim.Time
	refreshDue sim.Time
	blocked    sim.Time    // no command before (refresh)
	bq         [][]*access // per-bank command queues (BankQueue > 0; bankqueues.go)
	rr         int         // the bank queue that issued last
	drainLeft  int         // writes the write buffer still drains (bankqueues.go)
	tickAt     sim.Time    // a tick is scheduled for this time (or -1)
}

const never = -(1 << 60)

// readToWrite is the idle data-bus time between a read's data and a
// write's, in clocks: the rank-to-rank switch time DRAMSim3 uses for the
// read-to-write turnaround (tRTRS, 2 clocks by default; JEDEC calls for a
// bubble of about that much for the write preamble).
const readToWrite = 2

// NewBanked builds the model.
func NewBanked(e *sim.Engine, cfg BankedConfig) *Banked {
	b := &Banked{cfg: cfg, eng: e}
	nb := cfg.BankGroups * cfg.BanksPerGroup
	for i := 0; i < cfg.Channels; i++ {
		c := &channel{b: b, idx: i, banks: make([]bank, nb), perBank: make([]int, nb), lastActBG: make([]sim.Time, cfg.BankGroups),
			lastColBG: make([]sim.Time, cfg.BankGroups), lastWrBG: make([]sim.Time, cfg.BankGroups),
			lastAct: never, lastCol: never, lastWrEnd: never, lastRdEnd: never, tickAt: -1}
		for j := range c.lastActBG {
			c.lastActBG[j], c.lastColBG[j], c.lastWrBG[j] = never, never, never
		}
		for j := range c.faw {
			c.faw[j] = never
		}
		for j := range c.banks {
			c.banks[j].lastRd, c.banks[j].lastWrEnd = never, never
		}
		if cfg.BankQueue > 0 {
			c.bq = make([][]*access, nb)
			c.rr = nb - 1
		}
		switch {
		case cfg.REFI > 0 && cfg.BankQueue > 0:
			// DRAMSim3 refreshes every channel at once, every REFI.
			c.refreshDue = cfg.TCK * sim.Time(cfg.REFI)
		case cfg.REFI > 0:
			c.refreshDue = cfg.TCK * sim.Time(cfg.REFI) * sim.Time(i+1) / sim.Time(cfg.Channels)
		}
		b.ch = append(b.ch, c)
	}
	return b
}

func (b *Banked) cyc(n int) sim.Time { return sim.Time(n) * b.cfg.TCK }

// TCK is the DRAM clock period.
func (b *Banked) TCK() sim.Time { return b.cfg.TCK }

// PeakBytesPerSecond implements HBM: every channel's data bus always busy.
func (b *Banked) PeakBytesPerSecond() float64 {
	return float64(b.cfg.Channels) * float64(b.cfg.AccessBytes) / (float64(b.cyc(b.cfg.BL)) * 1e-12)
}

// Stats implements HBM.
func (b *Banked) Stats() HBMStats { return b.stats }

// Channels implements HBM.
func (b *Banked) Channels() int { return len(b.ch) }

// decode maps a line (addr / AccessBytes) to its channel, bank group, bank and row.
func (b *Banked) decode(line int64) (ch, bg, bk, row int) {
	c := b.cfg
	if c.Mapping != nil {
		for _, f := range c.Mapping {
			v := int(line & (1<<f.Bits - 1))
			line >>= f.Bits
			switch f.Name {
			case "ch":
				ch = v
			case "bg":
				bg = v
			case "ba":
				bk = v
			case "ro":
				row = v
			}
		}
		row += int(line) // bits above the mapping (beyond the device) wrap into the row
		row %= c.Rows
		return
	}
	bg = int(line % int64(c.BankGroups))
	line /= int64(c.BankGroups)
	nc := int64(c.Channels)
	ch = int(line % nc)
	for x := line / nc; nc > 1 && x > 0; x /= nc {
		ch = (ch + int(x%nc)) % c.Channels
	}
	line /= nc
	line /= int64(c.Columns)
	bk = int(line % int64(c.BanksPerGroup))
	line /= int64(c.BanksPerGroup)
	row = int(line % int64(c.Rows))
	return
}

// Request implements HBM.
func (b *Banked) Request(t sim.Time, addr, n int64, write bool, done Done) {
	ab := int64(b.cfg.AccessBytes)
	first, last := addr/ab, (addr+n-1)/ab
	r := &request{done: done, left: int(last - first + 1)}
	b.stats.Requests++
	if write {
		b.stats.BytesWritten += n
	} else {
		b.stats.BytesRead += n
	}
	for line := first; line <= last; line++ {
		ch, bg, bk, row := b.decode(line)
		c := b.ch[ch]
		a := &access{c: c, arrive: t, bank: bg*b.cfg.BanksPerGroup + bk, bg: bg, row: row, write: write, req: r}
		switch {
		case write && b.cfg.WriteQueue > 0:
			c.writes = append(c.writes, a)
		default:
			c.queue = append(c.queue, a)
			if !write {
				c.reads++
			}
		}
		c.kick(max(t, b.eng.Now()))
	}
}

// Accepts reports whether the controller of the channel addr maps to has
// room for one more access of that kind (ReadQueue, WriteQueue): a driver
// that issues as fast as the controller accepts asks first.
func (b *Banked) Accepts(addr int64, write bool) bool {
	ch, _, _, _ := b.decode(addr / int64(b.cfg.AccessBytes))
	c := b.ch[ch]
	if write {
		return b.cfg.WriteQueue == 0 || len(c.writes) < b.cfg.WriteQueue
	}
	return b.cfg.ReadQueue == 0 || c.reads < b.cfg.ReadQueue
}

// kick makes sure the channel ticks at the first clock edge at or after t.
func (c *channel) kick(t sim.Time) {
	tck := c.b.cfg.TCK
	t = (t + tck - 1) / tck * tck
	if c.tickAt >= 0 && c.tickAt <= t {
		return
	}
	c.tickAt = t
	c.b.eng.Schedule(t, c)
}

// Handle is a channel tick.
func (c *channel) Handle(now sim.Time) {
	if now != c.tickAt {
		return // superseded by an earlier tick
	}
	c.tickAt = -1
	next, issued := c.step(now)
	if issued {
		next = max(next, now+c.b.cfg.TCK) // one command per clock
	}
	if next >= 0 {
		c.kick(next)
	}
}

func (c *channel) colReady(a *access) sim.Time {
	b := c.b
	bk := &c.banks[a.bank]
	t := max(bk.actAt+b.cyc(b.cfg.RCD), c.lastCol+b.cyc(b.cfg.CCDS), c.lastColBG[a.bg]+b.cyc(b.cfg.CCDL), c.blocked)
	if a.write {
		// Turning the data bus from reads to writes leaves it idle for
		// readToWrite clocks.
		t = max(t, c.busFree-b.cyc(b.cfg.CWL), c.lastRdEnd+b.cyc(readToWrite-b.cfg.CWL))
	} else {
		t = max(t, c.busFree-b.cyc(b.cfg.CL), c.lastWrEnd+b.cyc(b.cfg.WTRS), c.lastWrBG[a.bg]+b.cyc(b.cfg.WTRL))
	}
	return t
}

func (c *channel) actReady(a *access) sim.Time {
	b := c.b
	return max(c.banks[a.bank].readyAct, c.lastAct+b.cyc(b.cfg.RRDS), c.lastActBG[a.bg]+b.cyc(b.cfg.RRDL),
		c.faw[c.fawNext]+b.cyc(b.cfg.FAW), c.blocked)
}

func (c *channel) preReady(i int) sim.Time {
	b := c.b
	bk := &c.banks[i]
	return max(bk.actAt+b.cyc(b.cfg.RAS), bk.lastRd+b.cyc(b.cfg.RTP), bk.lastWrEnd+b.cyc(b.cfg.WR), c.blocked)
}

// step issues at most one command at now and returns when to look again
// (-1: nothing to do until a request arrives).
func (c *channel) step(now sim.Time) (sim.Time, bool) {
	b := c.b
	next := sim.Time(-1)
	soon := func(t sim.Time) { next = earliest(next, t) }
	// Refreshes that fell due while the channel was idle happened then; they
	// leave every row closed and the last one may still be in progress.
	for b.cfg.REFI > 0 && c.idle() && now >= c.refreshDue {
		for i := range c.banks {
			c.banks[i].open = false
		}
		end := c.refreshDue + b.cyc(b.cfg.RFC)
		c.blocked = max(c.blocked, end)
		for i := range c.banks {
			c.banks[i].readyAct = max(c.banks[i].readyAct, end)
		}
		c.refreshDue += b.cyc(b.cfg.REFI)
		b.stats.Refreshes++
	}
	if c.idle() {
		return -1, false // asleep until a request arrives
	}
	if b.cfg.BankQueue > 0 {
		return c.stepQueues(now)
	}
	// The write buffer drains once full, or when no read waits; while it
	// drains only writes are scheduled.
	if b.cfg.WriteQueue > 0 {
		switch {
		case c.draining && len(c.writes) == 0:
			c.draining = false
		case !c.draining && (len(c.writes) >= b.cfg.WriteQueue || c.reads == 0 && len(c.writes) > 0):
			c.draining = true
		}
	}
	cands := c.queue
	if c.draining {
		cands = c.writes
	}
	// Refresh: precharge every bank, then refresh them all.
	if b.cfg.REFI > 0 && now >= c.refreshDue {
		for i := range c.banks {
			if c.banks[i].open {
				if t := c.preReady(i); t <= now {
					c.precharge(i, now)
					return now, true
				} else {
					soon(t)
				}
			}
		}
		if next >= 0 {
			return next, false
		}
		if now < c.blocked {
			return c.blocked, false
		}
		return c.startRefresh(now), true
	}
	if b.cfg.REFI > 0 {
		soon(c.refreshDue)
	}
	window := min(len(cands), b.cfg.Window)
	visible := c.visible(cands, window)
	// First ready: the oldest row hit whose column command can issue now
	// (unless its bank has served RowHitCap hits in a row while an older
	// access waits for another row).
	for i := 0; i < window; i++ {
		a := cands[i]
		if !visible[i] {
			continue
		}
		if a.arrive > now {
			soon(a.arrive)
			continue
		}
		bk := &c.banks[a.bank]
		if bk.open && bk.row == a.row && !c.capped(cands, window, visible, a.bank) {
			if t := c.colReady(a); t <= now {
				c.column(cands, i, now)
				return now, true
			} else {
				soon(t)
			}
		}
	}
	// First come: the oldest access gets the precharge or activate it needs,
	// unless its bank's open row still serves an older access in the window.
	for i := 0; i < window; i++ {
		a := cands[i]
		if !visible[i] || a.arrive > now {
			continue
		}
		bk := &c.banks[a.bank]
		switch {
		case bk.open && bk.row == a.row:
			continue // waiting for its column command
		case bk.open:
			if c.rowWanted(cands, a.bank, bk.row, i) && !c.capped(cands, window, visible, a.bank) {
				continue
			}
			if t := c.preReady(a.bank); t <= now {
				c.precharge(a.bank, now)
				return now, true
			} else {
				soon(t)
			}
		default:
			if t := c.actReady(a); t <= now {
				c.activate(a, now)
				return now, true
			} else {
				soon(t)
			}
		}
	}
	return next, false
}

// earliest is the earlier of next and t, next < 0 standing for none yet.
func earliest(next, t sim.Time) sim.Time {
	if next < 0 || t < next {
		return t
	}
	return next
}

// startRefresh refreshes every bank of the channel from now (all closed);
// it returns when the refresh ends.
func (c *channel) startRefresh(now sim.Time) sim.Time {
	b := c.b
	end := now + b.cyc(b.cfg.RFC)
	c.blocked = end
	for i := range c.banks {
		c.banks[i].readyAct = max(c.banks[i].readyAct, end)
	}
	c.refreshDue += b.cyc(b.cfg.REFI)
	b.stats.Refreshes++
	return end
}

// idle reports whether the channel has no access waiting.
func (c *channel) idle() bool { return len(c.queue) == 0 && len(c.writes) == 0 && !c.queued() }

// visible marks the accesses of the window the scheduler considers: with
// BankQueue, only the oldest BankQueue of each bank (a per-bank command
// queue).
func (c *channel) visible(cands []*access, window int) []bool {
	v := c.vis[:0]
	for i := 0; i < window; i++ {
		v = append(v, true)
	}
	c.vis = v
	if q := c.b.cfg.BankQueue; q > 0 {
		clear(c.perBank)
		for i := 0; i < window; i++ {
			b := cands[i].bank
			if c.perBank[b]++; c.perBank[b] > q {
				v[i] = false
			}
		}
	}
	return v
}

// capped reports whether bank has served RowHitCap hits to its open row
// while a visible access waits for another row of it.
func (c *channel) capped(cands []*access, window int, visible []bool, bank int) bool {
	b := &c.banks[bank]
	if c.b.cfg.RowHitCap == 0 || !b.open || b.hits < c.b.cfg.RowHitCap {
		return false
	}
	for i := 0; i < window; i++ {
		if a := cands[i]; visible[i] && a.bank == bank && a.row != b.row {
			return true
		}
	}
	return false
}

// rowWanted reports whether an access older than position limit hits row in bank.
func (c *channel) rowWanted(cands []*access, bank, row, limit int) bool {
	for i := 0; i < limit; i++ {
		if a := cands[i]; a.bank == bank && a.row == row {
			return true
		}
	}
	return false
}

func (c *channel) precharge(i int, now sim.Time) {
	bk := &c.banks[i]
	bk.open = false
	bk.readyAct = max(bk.readyAct, now+c.b.cyc(c.b.cfg.RP))
}

func (c *channel) activate(a *access, now sim.Time) {
	bk := &c.banks[a.bank]
	bk.open, bk.row, bk.actAt, bk.hits = true, a.row, now, 0
	c.lastAct = now
	c.lastActBG[a.bg] = now
	c.faw[c.fawNext] = now
	c.fawNext = (c.fawNext + 1) % 4
	a.missed = true
}

func (c *channel) column(cands []*access, i int, now sim.Time) {
	a := cands[i]
	if c.draining {
		c.writes = append(c.writes[:i], c.writes[i+1:]...)
	} else {
		c.queue = append(c.queue[:i], c.queue[i+1:]...)
		if !a.write {
			c.reads--
		}
	}
	c.issueColumn(a, now)
}

// issueColumn issues a's column command at now: the data moves CL (or CWL)
// later for BL clocks.
func (c *channel) issueColumn(a *access, now sim.Time) {
	b := c.b
	bk := &c.banks[a.bank]
	bk.hits++
	c.lastCol, c.lastColBG[a.bg] = now, now
	if a.write {
		a.end = now + b.cyc(b.cfg.CWL+b.cfg.BL)
		bk.lastWrEnd, c.lastWrEnd, c.lastWrBG[a.bg] = a.end, a.end, a.end
	} else {
		a.end = now + b.cyc(b.cfg.CL+b.cfg.BL)
		bk.lastRd = now
		c.lastRdEnd = a.end
	}
	c.busFree = a.end
	if b.Wants(sim.HookTransfer) {
		x := b.HookCtx()
		*x = sim.HookCtx{Pos: sim.HookTransfer, Start: a.end - b.cyc(b.cfg.BL), Now: a.end, Unit: c.idx, PC: -1,
			Bytes: int64(b.cfg.AccessBytes), Write: a.write}
		b.InvokeHook(x)
	}
	b.stats.Accesses++
	if !a.missed {
		b.stats.RowHits++
	}
	b.eng.Schedule(a.end, a)
}

// Handle is the end of an access's data transfer.
func (a *access) Handle(now sim.Time) {
	r := a.req
	r.left--
	r.last = max(r.last, now)
	if r.left == 0 {
		r.done.Complete(r.last)
	}
}
