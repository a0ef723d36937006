package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/pulse-sim/pulse/sweep"
	"golang.org/x/perf/benchmath"
)

// Thresholds are the regressions a comparison tolerates, as fractions:
// a simulated metric by name (cycles, energy_joules, ...) or a host metric
// (wall, parse, compile, sim, allocs, alloc_bytes). Simulated metrics not
// listed are reported, not gated, except cycles (default 0: any increase
// fails); host metrics are gated only when listed, and only when the
// change is statistically significant.
type Thresholds map[string]float64

// ParseThreshold reads "cycles=0.5%" or "wall=0.1".
func ParseThreshold(s string, t Thresholds) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("--threshold %q: want METRIC=PERCENT%%", s)
	}
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("--threshold %q: %q is not a non-negative number or percentage", s, v)
	}
	if pct {
		f /= 100
	}
	t[k] = f
	return nil
}

var hostMetrics = map[string]func(Host) []float64{
	"wall":        func(h Host) []float64 { return h.WallSeconds },
	"parse":       func(h Host) []float64 { return h.ParseSeconds },
	"compile":     func(h Host) []float64 { return h.CompileSeconds },
	"sim":         func(h Host) []float64 { return h.SimSeconds },
	"allocs":      func(h Host) []float64 { return h.Allocs },
	"alloc_bytes": func(h Host) []float64 { return h.AllocBytes },
}

// Change is one metric of one entry that moved.
type Change struct {
	Entry      string  `json:"entry"`
	Metric     string  `json:"metric"`
	Old        float64 `json:"old"`
	New        float64 `json:"new"`
	Delta      float64 `json:"delta"`      // (new - old) / old; +Inf from 0
	Regression bool    `json:"regression"` // worse, beyond its threshold
	// Host metrics: medians, confidence, p-value; Significant is false
	// when benchstat would print "~".
	Host        bool    `json:"host,omitempty"`
	OldRange    string  `json:"old_range,omitempty"`
	NewRange    string  `json:"new_range,omitempty"`
	P           float64 `json:"p,omitempty"`
	N1          int     `json:"n_old,omitempty"` // repetitions
	N2          int     `json:"n_new,omitempty"`
	Significant bool    `json:"significant,omitempty"`
	// HolmAlpha is the level a gated host metric's p-value was held to:
	// 0.05 divided among the family of gated comparisons (Holm).
	HolmAlpha float64 `json:"holm_alpha,omitempty"`
	// GateP is a gated host metric's p-value against the old samples
	// scaled by 1 + its threshold; gateWorse: new's median is beyond them.
	GateP     float64 `json:"gate_p,omitempty"`
	gateWorse bool
	Text      string `json:"text,omitempty"` // benchstat's delta: "+3.20%" or "~"
}

// KernelChange is a kernel whose cycles moved, appeared or disappeared.
type KernelChange struct {
	Entry     string `json:"entry"`
	Kernel    string `json:"kernel"`
	OldCycles int64  `json:"old_cycles"`
	NewCycles int64  `json:"new_cycles"`
	Status    string `json:"status"` // changed, new, gone
}

// Comparison is `pulse bench compare`'s result.
type Comparison struct {
	Suite       string         `json:"suite"`
	Old, New    Provenance     `json:"-"`
	Changes     []Change       `json:"changes"`
	Kernels     []KernelChange `json:"kernels"`
	Added       []string       `json:"added_entries,omitempty"`
	Removed     []string       `json:"removed_entries,omitempty"`
	StatusMoves []string       `json:"status_changes,omitempty"`
	Regressions int            `json:"regressions"`
	// Silicon is the error against measured silicon of the entries that
	// have a measurement (the silicon suite), when any do.
	Silicon *SiliconChange `json:"silicon,omitempty"`
	// HostFamily is how many gated host comparisons were tested together.
	HostFamily int `json:"host_family,omitempty"`
}

// SiliconChange is the mean absolute percentage error against silicon of
// the entries measured in both results (ok in both): a rise of more than
// the "mape" threshold (default DefaultMAPEThreshold, a fraction) is a
// regression. An entry with a measurement is judged by it: its cycles may
// move (a model's change does) without a regression of their own unless a
// "cycles" threshold is given.
type SiliconChange struct {
	Entries    int     `json:"entries"`
	OldMAPE    float64 `json:"old_mape"`
	NewMAPE    float64 `json:"new_mape"`
	Regression bool    `json:"regression"`
}

// DefaultMAPEThreshold is the rise of the silicon MAPE a comparison
// tolerates: 2 points.
const DefaultMAPEThreshold = 0.02

// Compare compares two results of one suite.
func Compare(old, new *Results, th Thresholds) (*Comparison, error) {
	if old.Suite != new.Suite {
		return nil, fmt.Errorf("results of different suites (%s and %s): compare runs of one suite", old.Suite, new.Suite)
	}
	for k := range th {
		if k == "cycles" || k == "mape" || hostMetrics[k] != nil {
			continue
		}
		known := false
		for _, e := range append(old.Entries, new.Entries...) {
			if _, ok := e.Sim[k]; ok {
				known = true
				break
			}
		}
		if !known {
			return nil, fmt.Errorf("--threshold %s: not a metric of these results (cycles, energy_joules, ...; wall, compile, sim, allocs, alloc_bytes)", k)
		}
	}
	c := &Comparison{Suite: new.Suite, Old: old.Provenance, New: new.Provenance}
	byName := map[string]*Result{}
	for _, e := range old.Entries {
		byName[e.Name] = e
	}
	inNew := map[string]bool{}
	for _, n := range new.Entries {
		inNew[n.Name] = true
		o := byName[n.Name]
		if o == nil {
			c.Added = append(c.Added, n.Name)
			continue
		}
		if o.Status != n.Status {
			c.StatusMoves = append(c.StatusMoves, fmt.Sprintf("%s: %s -> %s %s", n.Name, o.Status, n.Status, firstLine(n.Error)))
			if n.Status == "failed" {
				c.Regressions++
			}
			continue
		}
		if n.Status != "ok" {
			continue
		}
		if o.MeasuredUs > 0 && n.MeasuredUs > 0 {
			if c.Silicon == nil {
				c.Silicon = &SiliconChange{}
			}
			c.Silicon.Entries++
			c.Silicon.OldMAPE += math.Abs(o.SiliconError)
			c.Silicon.NewMAPE += math.Abs(n.SiliconError)
		}
		c.compareSim(o, n, th)
		c.compareKernels(o, n)
		c.compareHost(o, n, th)
	}
	for _, e := range old.Entries {
		if !inNew[e.Name] {
			c.Removed = append(c.Removed, e.Name)
		}
	}
	c.gateHost(th)
	if s := c.Silicon; s != nil {
		s.OldMAPE /= float64(s.Entries)
		s.NewMAPE /= float64(s.Entries)
		limit, ok := th["mape"]
		if !ok {
			limit = DefaultMAPEThreshold
		}
		if s.NewMAPE-s.OldMAPE > limit {
			s.Regression = true
			c.Regressions++
		}
	}
	for _, ch := range c.Changes {
		if ch.Regression {
			c.Regressions++
		}
	}
	return c, nil
}

// gateHost decides the gated host metrics' regressions over the whole
// family of comparisons at once (Holm's step-down procedure): each Mann-
// Whitney test is at alpha 0.05 on its own, so across a suite's hundred
// entries about five would "regress" by chance alone (an A/A run of the
// quick suite, --count 6, flagged layernorm at +12.7%, p=0.015). Holm keeps
// the chance of any false regression in the family at 0.05. Each test is
// of new against old slowed by the threshold (GateP): the minimum effect
// that matters, tested rather than read off two noisy medians.
func (c *Comparison) gateHost(th Thresholds) {
	var family []int
	for i, ch := range c.Changes {
		if _, gated := th[ch.Metric]; ch.Host && gated {
			family = append(family, i)
		}
	}
	sort.SliceStable(family, func(a, b int) bool { return c.Changes[family[a]].GateP < c.Changes[family[b]].GateP })
	m := len(family)
	c.HostFamily = m
	rejecting := true
	for rank, i := range family {
		ch := &c.Changes[i]
		level := hostAlpha / float64(m-rank)
		ch.HolmAlpha = level
		if rejecting && ch.GateP > level {
			rejecting = false // every larger p is kept too
		}
		ch.Regression = rejecting && ch.gateWorse
	}
}

// fewestReps is the fewest repetitions a side among gated comparisons.
func (c *Comparison) fewestReps() int {
	n := 0
	for _, ch := range c.Changes {
		if ch.HolmAlpha > 0 && (n == 0 || min(ch.N1, ch.N2) < n) {
			n = min(ch.N1, ch.N2)
		}
	}
	return n
}

// minMannWhitneyP is the smallest two-sided p-value a Mann-Whitney U test
// of samples of n1 and n2 can give: complete separation, 2 / C(n1+n2, n1).
func minMannWhitneyP(n1, n2 int) float64 {
	lc := 0.0
	for i := 1; i <= n1; i++ {
		lc += math.Log(float64(n2+i)) - math.Log(float64(i))
	}
	return math.Min(1, 2*math.Exp(-lc))
}

// hostAlpha is the family-wise error rate of the host gate.
const hostAlpha = 0.05

func (c *Comparison) compareSim(o, n *Result, th Thresholds) {
	keys := map[string]bool{}
	for k := range o.Sim {
		keys[k] = true
	}
	for k := range n.Sim {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		return metricOrder(names[i]) < metricOrder(names[j]) || metricOrder(names[i]) == metricOrder(names[j]) && names[i] < names[j]
	})
	for _, k := range names {
		ov, nv := o.Sim[k], n.Sim[k]
		if ov == nv {
			continue
		}
		ch := Change{Entry: n.Name, Metric: k, Old: ov, New: nv, Delta: delta(ov, nv)}
		limit, gated := th[k]
		if k == "cycles" && !gated && n.MeasuredUs == 0 {
			limit, gated = 0, true // a measured entry is judged by its error (SiliconChange)
		}
		worse := ch.Delta > 0
		if sweep.Maximized(k) {
			worse = ch.Delta < 0
		}
		ch.Regression = gated && worse && math.Abs(ch.Delta) > limit
		c.Changes = append(c.Changes, ch)
	}
}

// metricOrder puts the headline metrics first.
func metricOrder(k string) int {
	switch k {
	case "cycles":
		return 0
	case "seconds":
		return 1
	case "energy_joules":
		return 2
	case "mxu_mac_utilization":
		return 3
	}
	if strings.HasPrefix(k, "util.") {
		return 5
	}
	return 4
}

func delta(o, n float64) float64 {
	if o == 0 {
		if n == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (n - o) / math.Abs(o)
}

func (c *Comparison) compareKernels(o, n *Result) {
	type agg struct {
		cycles int64
		seen   bool
	}
	sum := func(ks []Kernel) (map[string]*agg, []string) {
		m := map[string]*agg{}
		var order []string
		for _, k := range ks {
			a := m[k.Name]
			if a == nil {
				a = &agg{}
				m[k.Name] = a
				order = append(order, k.Name)
			}
			a.cycles += k.Cycles
		}
		return m, order
	}
	om, oorder := sum(o.Kernels)
	nm, norder := sum(n.Kernels)
	for _, name := range norder {
		b := nm[name]
		a := om[name]
		switch {
		case a == nil:
			c.Kernels = append(c.Kernels, KernelChange{Entry: n.Name, Kernel: name, NewCycles: b.cycles, Status: "new"})
		case a.cycles != b.cycles:
			c.Kernels = append(c.Kernels, KernelChange{Entry: n.Name, Kernel: name, OldCycles: a.cycles, NewCycles: b.cycles, Status: "changed"})
		}
	}
	for _, name := range oorder {
		if nm[name] == nil {
			c.Kernels = append(c.Kernels, KernelChange{Entry: n.Name, Kernel: name, OldCycles: om[name].cycles, Status: "gone"})
		}
	}
}

// compareHost compares each host metric's repetitions as benchstat does:
// medians with 95% confidence intervals, a Mann-Whitney U test, "~" when
// the difference is not significant at alpha 0.05.
func (c *Comparison) compareHost(o, n *Result, th Thresholds) {
	for _, k := range []string{"wall", "parse", "compile", "sim", "allocs", "alloc_bytes"} {
		ov, nv := hostMetrics[k](o.Host), hostMetrics[k](n.Host)
		if len(ov) == 0 || len(nv) == 0 {
			continue
		}
		thr := benchmath.DefaultThresholds
		s1 := benchmath.NewSample(append([]float64(nil), ov...), &thr)
		s2 := benchmath.NewSample(append([]float64(nil), nv...), &thr)
		a := benchmath.AssumeNothing
		m1, m2 := a.Summary(s1, 0.95), a.Summary(s2, 0.95)
		cmp := a.Compare(s1, s2)
		ch := Change{Entry: n.Name, Metric: k, Old: m1.Center, New: m2.Center, Delta: delta(m1.Center, m2.Center), Host: true,
			OldRange: m1.PctRangeString(), NewRange: m2.PctRangeString(), P: cmp.P, Significant: cmp.P <= cmp.Alpha,
			Text: cmp.FormatDelta(m1.Center, m2.Center), N1: len(ov), N2: len(nv)}
		if limit, gated := th[k]; gated {
			// The gate asks whether new is slower than old by more than
			// the threshold, not merely slower: the test compares new
			// with old scaled by 1 + threshold (a minimum effect), so
			// that noise around a small real change is not a regression.
			scaled := make([]float64, len(ov))
			for i, v := range ov {
				scaled[i] = v * (1 + limit)
			}
			ss := benchmath.NewSample(scaled, &thr)
			ch.GateP = a.Compare(ss, benchmath.NewSample(append([]float64(nil), nv...), &thr)).P
			ch.gateWorse = m2.Center > a.Summary(ss, 0.95).Center
		}
		c.Changes = append(c.Changes, ch) // gated by gateHost, over the family
	}
}

// Write writes the comparison as a table, markdown (for a pull-request
// comment) or JSON.
func (c *Comparison) Write(w io.Writer, format string) error {
	switch format {
	case "json":
		b, _ := json.MarshalIndent(c, "", "  ")
		_, err := w.Write(append(b, '\n'))
		return err
	case "table", "markdown":
	default:
		return fmt.Errorf("--format %q: table, markdown or json", format)
	}
	md := format == "markdown"
	var sim, host [][]string
	few := 0   // host comparisons with too few repetitions for a test
	units := 0 // per-unit utilization changes (in JSON, not the table)
	for _, ch := range c.Changes {
		mark := ""
		if ch.Regression {
			mark = "REGRESSION"
		}
		if ch.Host {
			if ch.N1 < 4 || ch.N2 < 4 {
				few++
				continue
			}
			// The table shows wall time and allocations, and any other
			// host metric that moved significantly (all are in JSON).
			if ch.Metric != "wall" && ch.Metric != "allocs" && !ch.Significant && !ch.Regression {
				continue
			}
			host = append(host, []string{ch.Entry, ch.Metric, hostNum(ch.Metric, ch.Old) + " ±" + ch.OldRange, hostNum(ch.Metric, ch.New) + " ±" + ch.NewRange, ch.Text, fmt.Sprintf("p=%.3f", ch.P), mark})
			continue
		}
		if strings.HasPrefix(ch.Metric, "util.") && !ch.Regression {
			units++
			continue
		}
		sim = append(sim, []string{ch.Entry, ch.Metric, num(ch.Old), num(ch.New), pctText(ch.Delta), mark})
	}
	head := func(title string) {
		if md {
			fmt.Fprintf(w, "\n#### %s\n\n", title)
		} else {
			fmt.Fprintf(w, "\n%s\n", title)
		}
	}
	fmt.Fprintf(w, "suite %s: %s -> %s\n", c.Suite, revLabel(c.Old), revLabel(c.New))
	if sc := c.Silicon; sc != nil {
		mark := ""
		if sc.Regression {
			mark = " REGRESSION"
		}
		fmt.Fprintf(w, "error against silicon: MAPE %.1f%% -> %.1f%% (%+.1f points) over %d measured entries%s\n",
			100*sc.OldMAPE, 100*sc.NewMAPE, 100*(sc.NewMAPE-sc.OldMAPE), sc.Entries, mark)
	}
	if len(sim) == 0 {
		fmt.Fprintln(w, "simulated metrics: no change (they are deterministic: identical results)")
	} else {
		head("Simulated metrics (exact; every change listed)")
		if err := table(w, md, []string{"entry", "metric", "old", "new", "delta", ""}, sim); err != nil {
			return err
		}
		if units > 0 {
			fmt.Fprintf(w, "(and %d per-unit utilization changes: --format json lists them)\n", units)
		}
	}
	if len(c.Kernels) > 0 {
		head("Kernels whose cycles moved")
		var rows [][]string
		for _, k := range c.Kernels {
			d := ""
			if k.Status == "changed" {
				d = pctText(delta(float64(k.OldCycles), float64(k.NewCycles)))
			}
			rows = append(rows, []string{k.Entry, k.Kernel, strconv.FormatInt(k.OldCycles, 10), strconv.FormatInt(k.NewCycles, 10), d, k.Status})
		}
		if err := table(w, md, []string{"entry", "kernel", "old cycles", "new cycles", "delta", "status"}, rows); err != nil {
			return err
		}
	}
	if few > 0 {
		fmt.Fprintf(w, "\nhost metrics: %d comparisons have fewer than 4 repetitions a side, too few for a significance test: run with --count 6 or more\n", few)
	}
	if len(host) > 0 {
		head("Host metrics (medians ± 95% confidence; ~ means no significant difference, Mann-Whitney U at alpha 0.05)")
		if err := table(w, md, []string{"entry", "metric", "old", "new", "delta", "", ""}, host); err != nil {
			return err
		}
		if c.HostFamily > 0 {
			fmt.Fprintf(w, "gated host metrics: %d comparisons tested together (Holm): a regression is new slower than old plus its threshold, at p <= 0.05/%d for the smallest p\n", c.HostFamily, c.HostFamily)
			if n := c.fewestReps(); n > 0 && minMannWhitneyP(n, n) > hostAlpha/float64(c.HostFamily) {
				fmt.Fprintf(w, "with %d repetitions a side no comparison can reach that level (the smallest p is %.2g): run with a larger --count to gate host time\n", n, minMannWhitneyP(n, n))
			}
		}
	}
	for _, s := range c.StatusMoves {
		fmt.Fprintf(w, "status: %s\n", s)
	}
	if len(c.Added) > 0 {
		fmt.Fprintf(w, "entries only in the new results: %s\n", strings.Join(c.Added, ", "))
	}
	if len(c.Removed) > 0 {
		fmt.Fprintf(w, "entries only in the old results: %s\n", strings.Join(c.Removed, ", "))
	}
	if c.Regressions > 0 {
		fmt.Fprintf(w, "\n%d regressions beyond their thresholds\n", c.Regressions)
	} else {
		fmt.Fprintln(w, "\nno regressions beyond their thresholds")
	}
	return nil
}

func table(w io.Writer, md bool, head []string, rows [][]string) error {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return nil
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	h := make([]any, len(head))
	for i, s := range head {
		h[i] = s
	}
	t.Header(h...)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func hostNum(metric string, v float64) string {
	switch metric {
	case "allocs", "alloc_bytes":
		return num(math.Round(v))
	}
	return strconv.FormatFloat(v*1000, 'f', 2, 64) + " ms"
}

func pctText(d float64) string {
	if math.IsInf(d, 0) {
		return "new"
	}
	return fmt.Sprintf("%+.2f%%", 100*d)
}

func revLabel(p Provenance) string {
	r := p.Revision
	if len(r) > 12 {
		r = r[:12]
	}
	if r == "" {
		r = p.PulseVersion
	}
	if p.Modified {
		r += "+modified"
	}
	return r + " (" + p.Date.Format("2006-01-02 15:04") + ")"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Gate is Pulse's own regression gate: any difference in the simulated
// metrics or kernels of two results (not only regressions: every change to
// timing or code generation must show in its own diff) is an error whose
// text is the comparison table.
func Gate(baseline, got *Results) error {
	c, err := Compare(baseline, got, Thresholds{})
	if err != nil {
		return err
	}
	sim := 0
	for _, ch := range c.Changes {
		if !ch.Host {
			sim++
		}
	}
	if sim == 0 && len(c.Kernels) == 0 && len(c.Added) == 0 && len(c.Removed) == 0 && len(c.StatusMoves) == 0 {
		return nil
	}
	var b strings.Builder
	c.Changes = slicesDeleteHost(c.Changes)
	if err := c.Write(&b, "table"); err != nil {
		return err
	}
	return fmt.Errorf("the simulated metrics differ from the baseline (%d metrics, %d kernels, %d entries added, %d removed, %d changed status):\n%s",
		sim, len(c.Kernels), len(c.Added), len(c.Removed), len(c.StatusMoves), b.String())
}

func slicesDeleteHost(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if !c.Host {
			out = append(out, c)
		}
	}
	return out
}
