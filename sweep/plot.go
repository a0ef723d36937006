package sweep

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart describes a chart of a sweep's results.
type Chart struct {
	Kind     string    // line, heatmap, pareto
	Metric   string    // line, heatmap: the metric shown (default cycles)
	X        string    // line, heatmap: the axis across
	Y        string    // heatmap: the axis down
	Series   string    // line: one line per value of this axis ("" : one line)
	Pareto   [2]string // pareto: two metrics or numeric axes, each minimized or maximized (Maximized)
	Workload string    // the workload shown ("": the first)
	// Fix pins other axes to a value (key -> value); an axis neither shown
	// nor fixed is pinned to its first value, and the title says so.
	Fix map[string]string
}

// Plot draws the chart into path (.png, .svg or .pdf).
func (rs *Results) Plot(c Chart, path string) error {
	if c.Metric == "" {
		c.Metric = "cycles"
	}
	rows, title, err := rs.slice(c)
	if err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = title
	switch c.Kind {
	case "", "line":
		err = rs.line(p, c, rows)
	case "heatmap":
		err = rs.heatmap(p, c, rows)
	case "pareto":
		err = rs.pareto(p, c, rows)
	default:
		err = fmt.Errorf("--chart %q: line, heatmap or pareto", c.Kind)
	}
	if err != nil {
		return err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg", ".pdf":
	default:
		return fmt.Errorf("--plot %s: want a .png, .svg or .pdf file", path)
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}

// slice picks the workload's ok rows with every axis not shown pinned.
func (rs *Results) slice(c Chart) ([]*Row, string, error) {
	m := rs.Manifest
	shown := map[string]bool{}
	for _, a := range []string{c.X, c.Y, c.Series} {
		if a == "" {
			continue
		}
		if !contains(m.Axes, a) {
			return nil, "", fmt.Errorf("%s is not an axis of this sweep (axes: %s)", a, strings.Join(m.Axes, ", "))
		}
		shown[a] = true
	}
	if c.Kind == "pareto" {
		for _, a := range c.Pareto {
			if contains(m.Axes, a) {
				shown[a] = true
			}
		}
		// Every configuration competes on a Pareto front, but for the
		// axes pinned with Fix.
		for _, a := range m.Axes {
			if _, pinned := c.Fix[a]; !pinned {
				shown[a] = true
			}
		}
	}
	// Zipped axes move with the axis shown.
	for _, g := range m.Spec.Zip {
		any := false
		for _, k := range g {
			any = any || shown[k]
		}
		for _, k := range g {
			shown[k] = shown[k] || any
		}
	}
	wl := c.Workload
	if wl == "" && len(rs.Rows) > 0 {
		wl = rs.Rows[0].Workload
	}
	pins := map[string]string{}
	var notes []string
	for _, a := range m.Axes {
		if shown[a] {
			continue
		}
		if v, ok := c.Fix[a]; ok {
			pins[a] = v
		} else {
			for _, r := range rs.Rows {
				pins[a] = r.Axes[a]
				break
			}
		}
		notes = append(notes, a+"="+pins[a])
	}
	var rows []*Row
	for _, r := range rs.Rows {
		if r.Workload != wl || r.Status != StatusOK {
			continue
		}
		ok := true
		for k, v := range pins {
			ok = ok && r.Axes[k] == v
		}
		if ok {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, "", fmt.Errorf("no finished points of %s with %s", wl, strings.Join(notes, " "))
	}
	title := wl
	if len(notes) > 0 {
		title += " (" + strings.Join(notes, ", ") + ")"
	}
	return rows, title, nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// axisValues lists an axis's values in the rows, numerically sorted when
// they are all numbers (then numeric is true), else in first-seen order.
func axisValues(rows []*Row, axis string) (vals []string, numeric bool) {
	seen := map[string]bool{}
	numeric = true
	for _, r := range rows {
		v := r.Axes[axis]
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				numeric = false
			}
		}
	}
	if numeric {
		sort.Slice(vals, func(i, j int) bool {
			a, _ := strconv.ParseFloat(vals[i], 64)
			b, _ := strconv.ParseFloat(vals[j], 64)
			return a < b
		})
	}
	return vals, numeric
}

func (rs *Results) line(p *plot.Plot, c Chart, rows []*Row) error {
	if c.X == "" {
		return fmt.Errorf("a line chart needs --x AXIS")
	}
	xs, numeric := axisValues(rows, c.X)
	pos := func(v string) float64 {
		if numeric {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
		for i, x := range xs {
			if x == v {
				return float64(i)
			}
		}
		return 0
	}
	if numeric && geometric(xs) {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks(ticksAt(xs, pos))
	} else if !numeric {
		p.X.Tick.Marker = plot.ConstantTicks(ticksAt(xs, pos))
	}
	p.X.Label.Text, p.Y.Label.Text = c.X, c.Metric
	series := []string{""}
	if c.Series != "" {
		series, _ = axisValues(rows, c.Series)
	}
	for i, s := range series {
		var pts plotter.XYs
		for _, r := range rows {
			if c.Series != "" && r.Axes[c.Series] != s {
				continue
			}
			v, ok := r.Value(c.Metric)
			if !ok {
				return fmt.Errorf("metric %q: not in the results", c.Metric)
			}
			pts = append(pts, plotter.XY{X: pos(r.Axes[c.X]), Y: v})
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		sc.Color = l.Color
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		if c.Series != "" {
			p.Legend.Add(c.Series+"="+s, l, sc)
		}
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return nil
}

// geometric reports numeric axis values spaced by a constant factor
// above 1.5 (32, 64, 128): a log scale shows them evenly.
func geometric(xs []string) bool {
	if len(xs) < 3 {
		return false
	}
	var prev float64
	for i, s := range xs {
		f, _ := strconv.ParseFloat(s, 64)
		if f <= 0 || i > 0 && f/prev < 1.5 {
			return false
		}
		prev = f
	}
	return true
}

func ticksAt(xs []string, pos func(string) float64) []plot.Tick {
	var t []plot.Tick
	for _, x := range xs {
		t = append(t, plot.Tick{Value: pos(x), Label: x})
	}
	return t
}

// grid is a heatmap's cells (plotter.GridXYZ).
type grid struct {
	xs, ys []string
	z      [][]float64 // z[row y][col x]
}

func (g *grid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g *grid) Z(c, r int) float64 { return g.z[r][c] }
func (g *grid) X(c int) float64    { return float64(c) }
func (g *grid) Y(r int) float64    { return float64(r) }

func (rs *Results) heatmap(p *plot.Plot, c Chart, rows []*Row) error {
	if c.X == "" || c.Y == "" || c.X == c.Y {
		return fmt.Errorf("a heatmap needs two different axes: --x AXIS --y AXIS")
	}
	g := &grid{}
	g.xs, _ = axisValues(rows, c.X)
	g.ys, _ = axisValues(rows, c.Y)
	g.z = make([][]float64, len(g.ys))
	for i := range g.z {
		g.z[i] = make([]float64, len(g.xs))
		for j := range g.z[i] {
			g.z[i][j] = math.NaN()
		}
	}
	idx := func(vs []string, v string) int {
		for i, x := range vs {
			if x == v {
				return i
			}
		}
		return -1
	}
	var labels plotter.XYLabels
	for _, r := range rows {
		v, ok := r.Value(c.Metric)
		if !ok {
			return fmt.Errorf("metric %q: not in the results", c.Metric)
		}
		xi, yi := idx(g.xs, r.Axes[c.X]), idx(g.ys, r.Axes[c.Y])
		g.z[yi][xi] = v
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(xi), Y: float64(yi)})
		labels.Labels = append(labels.Labels, shortNum(v))
	}
	pal := moreland.SmoothBlueRed()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range g.z {
		for _, v := range r {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == lo {
		hi = lo + 1
	}
	pal.SetMin(lo)
	pal.SetMax(hi)
	hm := plotter.NewHeatMap(g, pal.Palette(64))
	hm.NaN = color.Gray{Y: 230}
	p.Add(hm)
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	p.Add(l)
	p.X.Label.Text, p.Y.Label.Text = c.X, c.Y
	p.Title.Text += ": " + c.Metric
	p.X.Tick.Marker = plot.ConstantTicks(indexTicks(g.xs))
	p.Y.Tick.Marker = plot.ConstantTicks(indexTicks(g.ys))
	return nil
}

func indexTicks(vs []string) []plot.Tick {
	var t []plot.Tick
	for i, v := range vs {
		t = append(t, plot.Tick{Value: float64(i), Label: v})
	}
	return t
}

// shortNum prints a cell's value in at most about six characters.
func shortNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 1, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case a >= 1 || v == 0:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// ParetoFront returns the rows no other row beats on both values (each
// minimized, or maximized per Maximized), sorted by the first value.
func ParetoFront(rows []*Row, a, b string) []*Row {
	better := func(name string, x, y float64) bool { // x at least as good as y
		if Maximized(name) {
			return x >= y
		}
		return x <= y
	}
	var front []*Row
	for _, r := range rows {
		ra, okA := r.Value(a)
		rb, okB := r.Value(b)
		if !okA || !okB {
			continue
		}
		dominated := false
		for _, q := range rows {
			qa, ok1 := q.Value(a)
			qb, ok2 := q.Value(b)
			if !ok1 || !ok2 || q == r {
				continue
			}
			if better(a, qa, ra) && better(b, qb, rb) && (qa != ra || qb != rb) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, r)
		}
	}
	sort.SliceStable(front, func(i, j int) bool {
		x, _ := front[i].Value(a)
		y, _ := front[j].Value(a)
		return x < y
	})
	return front
}

func (rs *Results) pareto(p *plot.Plot, c Chart, rows []*Row) error {
	a, b := c.Pareto[0], c.Pareto[1]
	if a == "" || b == "" || a == b {
		return fmt.Errorf("a Pareto chart needs two different metrics (or numeric axes): --pareto M1,M2")
	}
	var all plotter.XYs
	for _, r := range rows {
		x, ok1 := r.Value(a)
		y, ok2 := r.Value(b)
		if !ok1 || !ok2 {
			return fmt.Errorf("--pareto %s,%s: a point has no value of %s or %s", a, b, a, b)
		}
		all = append(all, plotter.XY{X: x, Y: y})
	}
	sc, err := plotter.NewScatter(all)
	if err != nil {
		return err
	}
	sc.Color = color.Gray{Y: 140}
	p.Add(sc)
	front := ParetoFront(rows, a, b)
	var fx plotter.XYs
	var lab plotter.XYLabels
	for _, r := range front {
		x, _ := r.Value(a)
		y, _ := r.Value(b)
		fx = append(fx, plotter.XY{X: x, Y: y})
		var parts []string
		for _, k := range rs.Manifest.Axes {
			parts = append(parts, r.Axes[k])
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: x, Y: y})
		lab.Labels = append(lab.Labels, " "+strings.Join(parts, "/"))
	}
	l, s2, err := plotter.NewLinePoints(fx)
	if err != nil {
		return err
	}
	l.Color, s2.Color = plotutil.Color(0), plotutil.Color(0)
	p.Add(l, s2)
	if len(front) <= 12 {
		if ls, err := plotter.NewLabels(lab); err == nil {
			p.Add(ls)
		}
	}
	p.Legend.Add("all points", sc)
	p.Legend.Add("Pareto front ("+strings.Join(rs.Manifest.Axes, "/")+")", l, s2)
	p.Legend.Top = true
	p.X.Label.Text, p.Y.Label.Text = a, b
	p.Add(plotter.NewGrid())
	return nil
}
