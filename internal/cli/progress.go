package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows long work: a bar with an ETA when w is a terminal, a
// plain line every interval otherwise (logs, CI, Slurm output files).
type progress struct {
	w        io.Writer
	what     string
	total    int
	bar      *progressbar.ProgressBar
	start    time.Time
	last     time.Time
	interval time.Duration
	// quietEnd: a plain-line run says it finished only if it said
	// something before (a short simulation prints no progress at all).
	quietEnd bool
	printed  bool
	// done and when it last grew: an ETA from the average pace is a guess
	// that holds only while work keeps finishing at that pace.
	lastDone    int
	lastAdvance time.Time
	// now is the clock (tests set it).
	now func() time.Time
}

func newProgress(w io.Writer, what string, total int) *progress {
	p := &progress{w: w, what: what, total: total, start: time.Now(), interval: 10 * time.Second, now: time.Now}
	p.last, p.lastAdvance = p.start, p.start
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// The bar's own prediction assumes a steady pace; the ETA is
		// ours (eta), in its description.
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(false), progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return p
}

// eta is the time left at the average pace so far, or "unknown" when that
// pace is known not to hold: nothing done yet, or nothing finished (or, for
// a position, no further instruction reached) for longer than the whole
// estimate. A loop that never ends, or a sweep point that runs far longer
// than the others, showed "ETA 9s" for minutes.
func (p *progress) eta(done int, now time.Time) string {
	if done >= p.total {
		return "0s"
	}
	if done <= 0 {
		return "unknown"
	}
	el := now.Sub(p.start)
	est := time.Duration(float64(el) / float64(done) * float64(p.total-done))
	if stalled := now.Sub(p.lastAdvance); stalled > est && stalled > time.Second {
		return fmt.Sprintf("unknown (no progress for %s)", stalled.Round(time.Second))
	}
	return est.Round(time.Second).String()
}

// set reports done of total finished; note is added to the line (failures).
func (p *progress) set(done int, note string) {
	now := p.now()
	if done > p.lastDone {
		p.lastDone, p.lastAdvance = done, now
	}
	if p.bar != nil {
		desc := p.what
		if note != "" {
			desc += " (" + note + ")"
		}
		if now.Sub(p.last) >= time.Second {
			p.last = now
			p.bar.Describe(desc + ", ETA " + p.eta(done, now))
		}
		p.bar.Set(done)
		return
	}
	if now.Sub(p.last) < p.interval && (done < p.total || p.quietEnd && !p.printed) {
		return
	}
	p.last, p.printed = now, true
	el := now.Sub(p.start)
	if note != "" {
		note = ", " + note
	}
	fmt.Fprintf(p.w, "%s: %d/%d done%s, %s elapsed, ETA %s\n", p.what, done, p.total, note, el.Round(time.Second), p.eta(done, now))
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// newRunProgress is a progress for one long computation (a simulation, an
// evaluation) whose total is a position, not a count of items: on a
// terminal a bar with an ETA, otherwise a line every 10 s while it runs.
func newRunProgress(w io.Writer, what string, total int) *progress {
	p := newProgress(w, what, total)
	p.quietEnd = true
	return p
}
