package bench

import (
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"
)

// RoofGoal is the roof fraction every dot form should reach (issue 40's
// bar): entries below it are counted and listed.
const RoofGoal = 0.6

// ChipRoof summarizes the roof fractions of one chip's entries.
type ChipRoof struct {
	Chip     string
	Entries  int
	GeoMean  float64
	Min      float64
	MinEntry string
	Below    []string // entries under RoofGoal
}

// RoofSummary summarizes, per chip in order of first appearance, the
// roof_fraction of the results' ok entries that have one.
func RoofSummary(r *Results) []ChipRoof {
	var out []ChipRoof
	at := map[string]int{}
	logs := map[string]float64{}
	for _, e := range r.Entries {
		f, ok := e.Sim["roof_fraction"]
		if e.Status != "ok" || !ok {
			continue
		}
		i, seen := at[e.Chip]
		if !seen {
			i = len(out)
			at[e.Chip] = i
			out = append(out, ChipRoof{Chip: e.Chip, Min: math.Inf(1)})
		}
		c := &out[i]
		c.Entries++
		logs[e.Chip] += math.Log(max(f, 1e-9))
		if f < c.Min {
			c.Min, c.MinEntry = f, e.Name
		}
		if f < RoofGoal {
			c.Below = append(c.Below, e.Name)
		}
	}
	for i := range out {
		out[i].GeoMean = math.Exp(logs[out[i].Chip] / float64(out[i].Entries))
	}
	return out
}

// WriteRoofSummary writes RoofSummary as lines, one per chip (nothing when
// no entry has a roof fraction), and the error against silicon of the
// measured entries, per chip, when any are.
func WriteRoofSummary(w io.Writer, r *Results) {
	for _, c := range RoofSummary(r) {
		fmt.Fprintf(w, "%s: roof fraction geometric mean %.3f over %d entries, lowest %.3f (%s), %d below %.2f\n",
			c.Chip, c.GeoMean, c.Entries, c.Min, c.MinEntry, len(c.Below), RoofGoal)
	}
	var chips []string
	sum, n := map[string]float64{}, map[string]int{}
	for _, e := range r.Entries {
		if e.Status != "ok" || e.MeasuredUs <= 0 {
			continue
		}
		if n[e.Chip] == 0 {
			chips = append(chips, e.Chip)
		}
		sum[e.Chip] += math.Abs(e.SiliconError)
		n[e.Chip]++
	}
	total, all := 0.0, 0
	for _, c := range chips {
		fmt.Fprintf(w, "%s: error against silicon: MAPE %.1f%% over %d measured entries\n", c, 100*sum[c]/float64(n[c]), n[c])
		total += sum[c]
		all += n[c]
	}
	if len(chips) > 1 {
		fmt.Fprintf(w, "all chips: error against silicon: MAPE %.1f%% over %d measured entries\n", 100*total/float64(all), all)
	}
}

// WriteRoofTable writes the entries' roof fractions as a table: a row per
// workload, a column per chip (markdown when md).
func WriteRoofTable(w io.Writer, r *Results, md bool) error {
	var chips, works []string
	frac := map[[2]string]string{}
	for _, e := range r.Entries {
		f, ok := e.Sim["roof_fraction"]
		if e.Status != "ok" || !ok {
			continue
		}
		work := strings.TrimSuffix(path.Base(e.Workload), ".hlo")
		if !slices.Contains(chips, e.Chip) {
			chips = append(chips, e.Chip)
		}
		if !slices.Contains(works, work) {
			works = append(works, work)
		}
		frac[[2]string{work, e.Chip}] = fmt.Sprintf("%.2f", f)
	}
	var rows [][]string
	for _, wk := range works {
		row := []string{wk}
		for _, c := range chips {
			v := frac[[2]string{wk, c}]
			if v == "" {
				v = "-"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return table(w, md, append([]string{"workload"}, chips...), rows)
}
