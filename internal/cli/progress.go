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
}

func newProgress(w io.Writer, what string, total int) *progress {
	p := &progress{w: w, what: what, total: total, start: time.Now(), interval: 10 * time.Second}
	p.last = p.start
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return p
}

// set reports done of total finished; note is added to the line (failures).
func (p *progress) set(done int, note string) {
	if p.bar != nil {
		if note != "" {
			p.bar.Describe(p.what + " (" + note + ")")
		}
		p.bar.Set(done)
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.interval && (done < p.total || p.quietEnd && !p.printed) {
		return
	}
	p.last, p.printed = now, true
	el := now.Sub(p.start)
	eta := "?"
	if done > 0 {
		eta = (time.Duration(float64(el) / float64(done) * float64(p.total-done))).Round(time.Second).String()
	}
	if note != "" {
		note = ", " + note
	}
	fmt.Fprintf(p.w, "%s: %d/%d done%s, %s elapsed, ETA %s\n", p.what, done, p.total, note, el.Round(time.Second), eta)
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
