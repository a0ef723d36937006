package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/sim"
	"github.com/stretchr/testify/require"
)

// hbm2 is one channel of R2's HBM2_2400Mbps preset (hardware.md 2.2):
// tCK 833 ps, 128-bit channel, BL4 (2 clocks on the bus) = 64 B per access.
func hbm2(channels, refi int) BankedConfig {
	return BankedConfig{Channels: channels, BankGroups: 4, BanksPerGroup: 4, Rows: 16384, Columns: 64, AccessBytes: 64,
		TCK: 833, CL: 17, CWL: 6, RCD: 17, RP: 17, RAS: 40, CCDS: 2, CCDL: 4, RRDS: 5, RRDL: 5, FAW: 19,
		WTRS: 8, WTRL: 10, RTP: 6, WR: 19, RFC: 313, REFI: refi, BL: 2, Window: 32}
}

type counter struct {
	n    int
	last sim.Time
}

func (c *counter) Complete(t sim.Time) { c.n++; c.last = max(c.last, t) }

// stream issues reads of 64 B at the given addresses, keeping at most
// outstanding in flight, and returns the time the last one completes.
func stream(t *testing.T, cfg BankedConfig, addrs []int64, outstanding int) (sim.Time, *Banked) {
	var e sim.Engine
	b := NewBanked(&e, cfg)
	f := &feeder{b: b, addrs: addrs, e: &e}
	for i := 0; i < outstanding && f.next < len(addrs); i++ {
		f.issue(0)
	}
	e.Run(-1)
	require.Equal(t, len(addrs), f.done)
	return f.last, b
}

type feeder struct {
	b     *Banked
	e     *sim.Engine
	addrs []int64
	next  int
	done  int
	last  sim.Time
}

func (f *feeder) issue(now sim.Time) {
	f.b.Request(now, f.addrs[f.next], 64, false, f)
	f.next++
}

func (f *feeder) Complete(t sim.Time) {
	f.done++
	f.last = max(f.last, t)
	if f.next < len(f.addrs) {
		f.issue(t)
	}
}

// 1. One read from idle: activate, tRCD, read, tCL, burst.
func TestSingleReadLatency(t *testing.T) {
	cfg := hbm2(1, 0)
	end, b := stream(t, cfg, []int64{0x12340}, 1)
	require.Equal(t, sim.Time(cfg.RCD+cfg.CL+cfg.BL)*cfg.TCK, end)
	require.Equal(t, 0.0, b.Stats().RowHitRate())
}

func seq(n int) []int64 {
	a := make([]int64, n)
	for i := range a {
		a[i] = int64(i) * 64
	}
	return a
}

func channelPeak(cfg BankedConfig) float64 { // bytes per picosecond, one channel
	return float64(cfg.AccessBytes) / float64(sim.Time(cfg.BL)*cfg.TCK)
}

// 2. Sequential streaming reads keep one channel's data bus at least 90% busy.
func TestSequentialStreaming(t *testing.T) {
	cfg := hbm2(1, 0)
	const n = 8192
	end, b := stream(t, cfg, seq(n), 64)
	frac := float64(n*64) / float64(end) / channelPeak(cfg)
	t.Logf("sequential reads: %.1f%% of channel peak, row-hit rate %.3f", 100*frac, b.Stats().RowHitRate())
	require.GreaterOrEqual(t, frac, 0.90)
	require.Greater(t, b.Stats().RowHitRate(), 0.95)
}

// 3. Random 64-byte reads are bound by activations: one per access, at most
// one per tRRD_S, four per tFAW, and each bank once per tRC = tRAS + tRP;
// each access also needs three commands on a one-command-per-clock bus.
func TestRandomReadsActivationBound(t *testing.T) {
	cfg := hbm2(1, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 4000
	addrs := make([]int64, n)
	for i := range addrs {
		addrs[i] = rng.Int64N(1<<30) &^ 63
	}
	end, b := stream(t, cfg, addrs, 64)
	banks := float64(cfg.BankGroups * cfg.BanksPerGroup)
	cyclesPerAct := max(float64(cfg.RRDS), float64(cfg.FAW)/4, float64(cfg.RAS+cfg.RP)/banks, 3)
	bound := float64(cfg.AccessBytes) / (cyclesPerAct * float64(cfg.TCK)) // bytes per ps
	got := float64(n*64) / float64(end)
	t.Logf("random reads: %.1f%% of the activation bound (%.2f cycles per activate), row-hit rate %.3f",
		100*got/bound, cyclesPerAct, b.Stats().RowHitRate())
	require.LessOrEqual(t, got, bound*1.001)
	require.GreaterOrEqual(t, got, bound*0.80)
	require.Less(t, b.Stats().RowHitRate(), 0.05)
}

// 4. Refresh takes the fraction of time it should: tRFC every tREFI.
func TestRefreshCost(t *testing.T) {
	const n = 60000 // spans several refresh intervals
	off, _ := stream(t, hbm2(1, 0), seq(n), 64)
	on, b := stream(t, hbm2(1, 4682), seq(n), 64)
	cfg := hbm2(1, 4682)
	want := float64(cfg.RFC) / float64(cfg.REFI)
	lost := 1 - float64(off)/float64(on)
	t.Logf("refresh: %.2f%% of the time lost (tRFC/tREFI = %.2f%%), %d refreshes", 100*lost, 100*want, b.Stats().Refreshes)
	require.Greater(t, b.Stats().Refreshes, int64(0))
	require.InDelta(t, want, lost, 0.02)
}

// Channels work in parallel: sequential streaming over 8 channels reaches 8x.
func TestChannelsInParallel(t *testing.T) {
	cfg := hbm2(8, 0)
	const n = 32768
	end, _ := stream(t, cfg, seq(n), 512)
	frac := float64(n*64) / float64(end) / (8 * channelPeak(cfg))
	t.Logf("8 channels: %.1f%% of peak", 100*frac)
	require.GreaterOrEqual(t, frac, 0.90)
}

func TestWritesComplete(t *testing.T) {
	var e sim.Engine
	b := NewBanked(&e, hbm2(2, 0))
	c := &counter{}
	b.Request(0, 0, 4096, true, c)
	b.Request(0, 8192, 4096, false, c)
	e.Run(-1)
	require.Equal(t, 2, c.n)
	require.Equal(t, int64(4096), b.Stats().BytesWritten)
	require.InDelta(t, 2*64/(2*833e-12), b.PeakBytesPerSecond(), 1, "two channels of 64 B per 2 clocks")
}

// A DRAMSim3-style mapping decodes the fields it names, least significant
// last: rorabgbachco puts the column in bits [10:6], the channel in
// [13:11], the bank in [15:14], the bank group in [17:16], the row above.
func TestAddressMapping(t *testing.T) {
	cfg := hbm2(8, 0)
	cfg.Columns = 32
	cfg.Mapping = []Field{{"co", 5}, {"ch", 3}, {"ba", 2}, {"bg", 2}, {"ra", 0}, {"ro", 14}}
	var e sim.Engine
	b := NewBanked(&e, cfg)
	addr := int64(0b101<<11 | 0b10<<14 | 0b11<<16 | 77<<18 | 9<<6)
	ch, bg, bk, row := b.decode(addr / 64)
	require.Equal(t, []int{5, 3, 2, 77}, []int{ch, bg, bk, row})
}

// With a write buffer, writes wait until it is full (or no read waits),
// then drain together; Accepts reports when a queue is full.
func TestWriteBufferDrainsWhenFull(t *testing.T) {
	cfg := hbm2(1, 0)
	cfg.WriteQueue, cfg.ReadQueue = 4, 2
	var e sim.Engine
	b := NewBanked(&e, cfg)
	c := &counter{}
	b.Request(0, 0, 64, false, c)     // a read keeps the writes waiting
	b.Request(0, 1<<20, 64, false, c) // another, in another row
	require.False(t, b.Accepts(0, false), "two reads fill a read queue of 2")
	for i := int64(0); i < 3; i++ {
		b.Request(0, 64*(i+1), 64, true, c)
	}
	require.True(t, b.Accepts(0, true))
	e.Run(-1)
	require.Equal(t, 5, c.n, "with no read left, the 3 writes drain though the buffer is not full")
	// A full buffer refuses more writes until it drains.
	for i := int64(0); i < 4; i++ {
		b.Request(e.Now(), 64*i, 64, true, c)
	}
	require.False(t, b.Accepts(0, true))
	e.Run(-1)
	require.True(t, b.Accepts(0, true))
	require.Equal(t, 9, c.n)
}

// With per-bank command queues a read leaves the read queue when it moves
// into its bank's queue, one a clock: the read queue has room again a clock
// after it filled, although nothing has been served yet.
func TestBankQueuesFreeTheReadQueue(t *testing.T) {
	cfg := hbm2(1, 0)
	cfg.ReadQueue, cfg.BankQueue = 4, 8
	var e sim.Engine
	b := NewBanked(&e, cfg)
	var c counter
	for i := range 4 {
		require.True(t, b.Accepts(int64(i)*64, false))
		b.Request(0, int64(i)*64, 64, false, &c)
	}
	require.False(t, b.Accepts(256, false), "the read queue is full")
	e.Run(cfg.TCK) // the clock at 0 moves one read into its bank queue
	require.True(t, b.Accepts(256, false))
	require.Zero(t, c.n, "nothing is served within a clock")
	e.Run(-1)
	require.Equal(t, 4, c.n)

	// Without bank queues the read queue holds its reads until they are served.
	cfg.BankQueue = 0
	e = sim.Engine{}
	b = NewBanked(&e, cfg)
	for i := range 4 {
		b.Request(0, int64(i)*64, 64, false, &c)
	}
	e.Run(cfg.TCK)
	require.False(t, b.Accepts(256, false))
}

// The round-robin scheduler serves every bank queue: reads to 16 banks in
// one row each all complete, each needing its activate.
func TestBankQueuesServeEveryBank(t *testing.T) {
	cfg := hbm2(1, 0)
	cfg.BankQueue, cfg.Mapping = 2, []Field{{"co", 6}, {"bg", 2}, {"ba", 2}, {"ro", 14}}
	var addrs []int64
	for bank := range 16 {
		for col := range 3 {
			addrs = append(addrs, int64(bank)<<12|int64(col)<<6)
		}
	}
	end, b := stream(t, cfg, addrs, len(addrs))
	require.Equal(t, int64(len(addrs)), b.Stats().Accesses)
	require.Equal(t, int64(len(addrs)-16), b.Stats().RowHits)
	// 48 column commands at one per two clocks at least.
	require.GreaterOrEqual(t, end, sim.Time(48*2)*cfg.TCK)
}
