package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Results is a finished (or partial) sweep read back from its directory.
type Results struct {
	Manifest *Manifest
	Rows     []*Row // in point order
}

// Load reads a results directory.
func Load(dir string) (*Results, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a sweep's results directory: %v", dir, err)
	}
	rows, err := ReadRows(dir)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Row{}
	for _, r := range rows {
		byID[r.ID] = r // a resumed point's last row wins
	}
	rows = rows[:0]
	for _, r := range byID {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
	return &Results{Manifest: m, Rows: rows}, nil
}

// Maximized reports whether a larger value of metric is better
// (utilizations, fractions, rates); smaller is better otherwise (cycles,
// seconds, bytes, energy).
func Maximized(metric string) bool {
	return strings.HasPrefix(metric, "util.") || strings.HasSuffix(metric, "utilization") ||
		strings.HasSuffix(metric, "_fraction") || strings.HasSuffix(metric, "per_second") || strings.HasSuffix(metric, "hit_rate") ||
		strings.HasSuffix(metric, "per_joule") || strings.HasSuffix(metric, "per_mm2")
}

// Value is a row's metric, or the numeric value of one of its axes.
func (r *Row) Value(name string) (float64, bool) {
	if v, ok := r.Metrics[name]; ok {
		return v, true
	}
	if s, ok := r.Axes[name]; ok {
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	return 0, false
}

// Best returns, per workload in order, the ok row with the best value of
// metric (ties: the earliest point).
func (rs *Results) Best(metric string) []*Row {
	best := map[string]*Row{}
	var order []string
	for _, r := range rs.Rows {
		if r.Status != StatusOK {
			continue
		}
		v, ok := r.Value(metric)
		if !ok {
			continue
		}
		b, seen := best[r.Workload]
		if !seen {
			order = append(order, r.Workload)
		}
		if bv, _ := b.valueOr(metric); !seen || Maximized(metric) && v > bv || !Maximized(metric) && v < bv {
			best[r.Workload] = r
		}
	}
	var out []*Row
	for _, w := range order {
		out = append(out, best[w])
	}
	return out
}

func (r *Row) valueOr(metric string) (float64, bool) {
	if r == nil {
		return 0, false
	}
	return r.Value(metric)
}

// WriteReport writes the results in a format: table (tablewriter), csv
// (results.csv's bytes), markdown or json, followed (table, markdown) by
// the best point per workload by metric.
func (rs *Results) WriteReport(w io.Writer, dir, format, metric string) error {
	cols := rs.Manifest.Columns
	if len(cols) == 0 {
		units, _ := utilKeys(rowsOf(rs.Rows))
		cols = csvColumns(rs.Manifest.Spec, units)
	}
	switch format {
	case "csv":
		b, err := os.ReadFile(filepath.Join(dir, resultsCSV))
		if err != nil {
			return fmt.Errorf("%v (the sweep has not finished: results.jsonl holds what it has)", err)
		}
		_, err = w.Write(b)
		return err
	case "json":
		b, _ := json.MarshalIndent(struct {
			*Manifest
			Rows []*Row `json:"rows"`
			Best []*Row `json:"best"`
		}{rs.Manifest, rs.Rows, rs.Best(metric)}, "", "  ")
		_, err := w.Write(append(b, '\n'))
		return err
	case "table", "markdown":
	default:
		return fmt.Errorf("--format %q: table, csv, markdown or json", format)
	}
	// The table leaves the per-unit utilizations to csv and json: one
	// column per unit makes it wider than a screen.
	var shown []string
	for _, c := range cols {
		if !strings.HasPrefix(c, "util.") || len(rs.Manifest.Spec.Metrics) > 0 {
			shown = append(shown, c)
		}
	}
	cols = shown
	records := rs.records(cols, true)
	if format == "markdown" {
		writeMarkdown(w, cols, records)
	} else {
		t := newTable(w)
		t.Header(headerOf(cols)...)
		if err := t.Bulk(records); err != nil {
			return err
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	m := rs.Manifest
	fmt.Fprintf(w, "\n%d points: %d ran, %d resumed, %d failed", m.Points, m.Ran, m.Resumed, m.Failed)
	if !m.Complete {
		fmt.Fprintf(w, "; INCOMPLETE: %d of %d points have results", len(rs.Rows), m.Points)
	}
	if m.NotModelled > 0 {
		fmt.Fprintf(w, "; %d points' cycles leave out work that is not modelled (not_modelled in results.jsonl)", m.NotModelled)
	}
	fmt.Fprintln(w)
	best := rs.Best(metric)
	if len(best) == 0 {
		return nil
	}
	dir2 := "lowest"
	if Maximized(metric) {
		dir2 = "highest"
	}
	fmt.Fprintf(w, "\nBest point per workload (%s %s):\n", dir2, metric)
	bcols := []string{"workload"}
	bcols = append(bcols, m.Axes...)
	bcols = append(bcols, metric)
	var brec [][]string
	for _, r := range best {
		rec := []string{r.Workload}
		for _, a := range m.Axes {
			rec = append(rec, r.Axes[a])
		}
		v, _ := r.Value(metric)
		brec = append(brec, append(rec, fmtMetric(v)))
	}
	if format == "markdown" {
		writeMarkdown(w, bcols, brec)
		return nil
	}
	t := newTable(w)
	t.Header(headerOf(bcols)...)
	if err := t.Bulk(brec); err != nil {
		return err
	}
	return t.Render()
}

// newTable is a table whose header shows keys as typed: tablewriter would
// otherwise upper-case them and split "mxu.rows" at the dot.
func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
}

// headerOf keeps keys as typed: tablewriter would otherwise upper-case
// them and split "mxu.rows" at the dot.
func headerOf(cols []string) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c
	}
	return out
}

// records formats rows for a table (short: 4 significant digits for
// fractions).
func (rs *Results) records(cols []string, short bool) [][]string {
	axes := map[string]bool{}
	for _, a := range rs.Manifest.Axes {
		axes[a] = true
	}
	var out [][]string
	for _, r := range rs.Rows {
		var rec []string
		for _, c := range cols {
			switch {
			case c == "workload":
				rec = append(rec, r.Workload)
			case c == "status":
				rec = append(rec, r.Status)
			case c == "error":
				rec = append(rec, firstLine(r.Error))
			case axes[c]:
				rec = append(rec, r.Axes[c])
			default:
				v, ok := r.Metrics[c]
				switch {
				case !ok:
					rec = append(rec, "")
				case short && v != math.Trunc(v):
					rec = append(rec, strconv.FormatFloat(v, 'g', 4, 64))
				default:
					rec = append(rec, fmtMetric(v))
				}
			}
		}
		out = append(out, rec)
	}
	return out
}

func writeMarkdown(w io.Writer, cols []string, rows [][]string) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	fmt.Fprintf(w, "| %s |\n|", strings.Join(cols, " | "))
	for range cols {
		fmt.Fprint(w, " --- |")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		for i := range r {
			r[i] = esc(r[i])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}
