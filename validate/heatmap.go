package validate

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/pulse-sim/pulse/traces"
)

// Heat maps of the error over a table's shape grid: a cell per (M, N), its
// colour the mean error over the table's K values there (blue where Pulse
// is fast, red where it is slow, white exact; grey where the table has no
// such shape), each cell labelled with the error in percent.

// errorGrid is one table's mean error per (M, N).
type errorGrid struct {
	ms, ns []int64
	z      [][]float64 // [n index][m index], NaN where no row
}

func (g *errorGrid) Dims() (c, r int)   { return len(g.ns), len(g.ms) }
func (g *errorGrid) Z(c, r int) float64 { return g.z[c][r] }
func (g *errorGrid) X(c int) float64    { return float64(c) }
func (g *errorGrid) Y(r int) float64    { return float64(r) }

func gridOf(rows []Row) *errorGrid {
	ms, ns := map[int64]bool{}, map[int64]bool{}
	sum, cnt := map[[2]int64]float64{}, map[[2]int64]int{}
	for _, r := range rows {
		ms[r.M], ns[r.N] = true, true
		sum[[2]int64{r.M, r.N}] += r.Error
		cnt[[2]int64{r.M, r.N}]++
	}
	g := &errorGrid{}
	for m := range ms {
		g.ms = append(g.ms, m)
	}
	for n := range ns {
		g.ns = append(g.ns, n)
	}
	sort.Slice(g.ms, func(i, j int) bool { return g.ms[i] < g.ms[j] })
	sort.Slice(g.ns, func(i, j int) bool { return g.ns[i] < g.ns[j] })
	g.z = make([][]float64, len(g.ns))
	for c, n := range g.ns {
		g.z[c] = make([]float64, len(g.ms))
		for r, m := range g.ms {
			g.z[c][r] = math.NaN()
			if k := cnt[[2]int64{m, n}]; k > 0 {
				g.z[c][r] = 100 * sum[[2]int64{m, n}] / float64(k)
			}
		}
	}
	return g
}

// HeatMapPaths names the heat maps SaveHeatMaps writes beside a chart at
// path, one per table: out.png gives out-heat-TABLE.png.
func HeatMapPaths(path string, tables []string) []string {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	var out []string
	for _, t := range tables {
		stem := strings.TrimSuffix(filepath.Base(t), filepath.Ext(t))
		out = append(out, fmt.Sprintf("%s-heat-%s%s", base, stem, ext))
	}
	return out
}

// Tables lists the report's tables in the order of their first row.
func (rep *Report) Tables() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		if !seen[r.Source] {
			seen[r.Source] = true
			out = append(out, r.Source)
		}
	}
	return out
}

// HeatMap draws table's error grid.
func (rep *Report) HeatMap(table string) (*plot.Plot, error) {
	var rows []Row
	for _, r := range rep.Rows {
		if r.Source == table {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows of %s", table)
	}
	g := gridOf(rows)
	worst := 1.0
	for _, col := range g.z {
		for _, v := range col {
			if !math.IsNaN(v) {
				worst = max(worst, math.Abs(v))
			}
		}
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(-worst)
	pal.SetMax(worst)
	hm := plotter.NewHeatMap(g, pal.Palette(255))
	hm.Min, hm.Max = -worst, worst
	hm.NaN = plotter.DefaultGridLineStyle.Color
	pl := plot.New()
	stem := filepath.Base(table)
	pl.Title.Text = fmt.Sprintf("%s: error by M and N, mean over K (%%; blue: Pulse fast, red: slow)", stem)
	pl.X.Label.Text = "N"
	pl.Y.Label.Text = "M"
	pl.Add(hm)
	var xt, yt []plot.Tick
	for c, n := range g.ns {
		xt = append(xt, plot.Tick{Value: float64(c), Label: fmt.Sprint(n)})
	}
	for r, m := range g.ms {
		yt = append(yt, plot.Tick{Value: float64(r), Label: fmt.Sprint(m)})
	}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	var labels plotter.XYLabels
	for c := range g.ns {
		for r := range g.ms {
			if v := g.z[c][r]; !math.IsNaN(v) {
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(r)})
				labels.Labels = append(labels.Labels, fmt.Sprintf("%+.0f", v))
			}
		}
	}
	if len(labels.XYs) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign, l.TextStyle[i].YAlign = -0.5, -0.5
		}
		pl.Add(l)
	}
	return pl, nil
}

// SaveHeatMaps writes a heat map per table beside the chart at path
// (HeatMapPaths).
func (rep *Report) SaveHeatMaps(path string) error {
	tables := rep.Tables()
	for i, p := range HeatMapPaths(path, tables) {
		if err := traces.CheckChartPath(p); err != nil {
			return err
		}
		pl, err := rep.HeatMap(tables[i])
		if err != nil {
			return err
		}
		if err := pl.Save(8*vg.Inch, 7*vg.Inch, p); err != nil {
			return err
		}
	}
	return nil
}
