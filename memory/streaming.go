package memory

import "github.com/pulse-sim/pulse/sim"

// Streaming is what the "streaming" HBM model charges on top of the ideal
// bus for the DRAM behind it: the two costs a real controller cannot hide
// on a long stream, in the closed form the banked model's own timings give
// them. A channel refreshes for tRFC of every tREFI, and a controller that
// batches writes turns its data bus from reads to writes and back once a
// batch, idle for a read-to-write bubble and a write-to-read delay each
// time. The banked model simulates both, bank by bank, 20-50x slower; on a
// stream they come to the same bandwidth (TestStreamingMatchesBanked).
type Streaming struct {
	// RefreshFraction is the share of time a channel is refreshing,
	// tRFC / tREFI: the bus moves bytes 1/(1 - it) slower.
	RefreshFraction float64
	// WriteTurnaround is the extra bus time of a write among reads, as a
	// fraction of its transfer: a batch's two turnarounds over its data.
	WriteTurnaround float64
	// MixWindow: a write is among reads when a read started on the bus
	// this recently (a batch of reads and one of writes on a channel).
	MixWindow sim.Time
}

// StreamingFrom derives the streaming costs from a banked configuration:
// the refresh share tRFC/tREFI; a write batch of the controller's write
// queue (or, with none, of its scheduling window, which takes reads and
// writes alike); each batch turning the bus twice, readToWrite clocks one
// way and tWTR_S + CL the other (a read's column command waits tWTR_S
// after the last write's data, and its data CL after that).
func StreamingFrom(cfg BankedConfig) Streaming {
	var s Streaming
	if cfg.REFI > 0 {
		s.RefreshFraction = float64(cfg.RFC) / float64(cfg.REFI)
	}
	batch := cfg.WriteQueue
	if batch <= 0 {
		batch = cfg.Window
	}
	if batch > 0 && cfg.BL > 0 {
		turn := readToWrite + cfg.CL + cfg.WTRS
		s.WriteTurnaround = float64(turn) / float64(batch*cfg.BL)
		s.MixWindow = 2 * sim.Time(batch*cfg.BL) * cfg.TCK
	}
	return s
}

// NewStreaming makes the ideal bus of bandwidthGBps and latencyNS with the
// streaming costs s charged on it. Its peak stays bandwidthGBps: what the
// costs take off shows as bandwidth achieved below the peak.
func NewStreaming(e *sim.Engine, bandwidthGBps, latencyNS float64, s Streaming) *Ideal {
	h := NewIdeal(e, bandwidthGBps, latencyNS)
	if s.RefreshFraction > 0 && s.RefreshFraction < 1 {
		h.refresh = 1 / (1 - s.RefreshFraction)
	}
	h.writeTurn, h.mixWindow = s.WriteTurnaround, s.MixWindow
	return h
}
