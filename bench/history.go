package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// LoadHistory reads results files (or every *.json in a directory) and
// orders them by revision time (the run's date when unknown).
func LoadHistory(paths []string) ([]*Results, []string, error) {
	var files []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			m, _ := filepath.Glob(filepath.Join(p, "*.json"))
			files = append(files, m...)
			continue
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		return nil, nil, fmt.Errorf("no results files")
	}
	type item struct {
		r    *Results
		file string
	}
	var items []item
	for _, f := range files {
		r, err := ReadResults(f)
		if err != nil {
			return nil, nil, err
		}
		if len(items) > 0 && r.Suite != items[0].r.Suite {
			return nil, nil, fmt.Errorf("%s is suite %s, %s is suite %s: a history is of one suite", f, r.Suite, items[0].file, items[0].r.Suite)
		}
		items = append(items, item{r, f})
	}
	when := func(r *Results) int64 {
		if !r.Provenance.RevisionTime.IsZero() {
			return r.Provenance.RevisionTime.Unix()
		}
		return r.Provenance.Date.Unix()
	}
	sort.SliceStable(items, func(i, j int) bool { return when(items[i].r) < when(items[j].r) })
	var rs []*Results
	var names []string
	for _, it := range items {
		rs = append(rs, it.r)
		names = append(names, it.file)
	}
	return rs, names, nil
}

// Move is a change of an entry's cycles between consecutive results.
type Move struct {
	Entry    string
	From, To string // result labels
	Old, New float64
	Delta    float64
}

// WriteHistory prints each entry's cycles across the results and the
// largest moves between consecutive ones.
func WriteHistory(w io.Writer, rs []*Results, labels []string, top int) error {
	entries := entryNames(rs)
	head := []string{"entry"}
	for i, r := range rs {
		head = append(head, fmt.Sprintf("%d: %s", i+1, revLabel(r.Provenance)))
	}
	var rows [][]string
	var moves []Move
	for _, name := range entries {
		row := []string{name}
		prev, prevLabel := math.NaN(), ""
		for i, r := range rs {
			v, ok := cyclesOf(r, name)
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, num(v))
			if !math.IsNaN(prev) && v != prev {
				moves = append(moves, Move{Entry: name, From: prevLabel, To: labels[i], Old: prev, New: v, Delta: delta(prev, v)})
			}
			prev, prevLabel = v, labels[i]
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "suite %s: cycles per entry over %d results, oldest first\n", rs[0].Suite, len(rs))
	if err := table(w, false, head, rows); err != nil {
		return err
	}
	sort.SliceStable(moves, func(i, j int) bool { return math.Abs(moves[i].Delta) > math.Abs(moves[j].Delta) })
	if len(moves) > top {
		moves = moves[:top]
	}
	if len(moves) == 0 {
		fmt.Fprintln(w, "\nno entry's cycles moved")
		return nil
	}
	fmt.Fprintf(w, "\nlargest moves\n")
	var mrows [][]string
	for _, m := range moves {
		mrows = append(mrows, []string{m.Entry, m.From + " -> " + m.To, num(m.Old), num(m.New), pctText(m.Delta)})
	}
	return table(w, false, []string{"entry", "between", "old", "new", "delta"}, mrows)
}

func cyclesOf(r *Results, name string) (float64, bool) {
	for _, e := range r.Entries {
		if e.Name == name && e.Status == "ok" {
			v, ok := e.Sim["cycles"]
			return v, ok
		}
	}
	return 0, false
}

// PlotHistory draws each entry's cycles relative to its first result,
// one line per entry, over the results in order.
func PlotHistory(rs []*Results, path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg", ".pdf":
	default:
		return fmt.Errorf("--plot %s: want a .png, .svg or .pdf file", path)
	}
	p := plot.New()
	p.Title.Text = "suite " + rs[0].Suite + ": cycles relative to the first result"
	p.X.Label.Text, p.Y.Label.Text = "result (oldest first)", "cycles / first"
	for i, name := range entryNames(rs) {
		var pts plotter.XYs
		base := math.NaN()
		for j, r := range rs {
			v, ok := cyclesOf(r, name)
			if !ok {
				continue
			}
			if math.IsNaN(base) {
				base = v
			}
			pts = append(pts, plotter.XY{X: float64(j + 1), Y: v / base})
		}
		if len(pts) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, s.Color, s.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	var ticks []plot.Tick
	for j, r := range rs {
		ticks = append(ticks, plot.Tick{Value: float64(j + 1), Label: strings.SplitN(revLabel(r.Provenance), " ", 2)[0]})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p.Save(10*vg.Inch, 6*vg.Inch, path)
}

// entryNames lists the entries of a history in first-seen order.
func entryNames(rs []*Results) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, e := range r.Entries {
			if !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
	}
	return names
}
