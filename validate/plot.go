package validate

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pulse-sim/pulse/traces"
)

// Scatter draws predicted against measured time, both axes logarithmic,
// a series per table, with the diagonal (exact) and the 2x bounds.
func (rep *Report) Scatter() (*plot.Plot, error) {
	if len(rep.Rows) == 0 {
		return nil, fmt.Errorf("no rows to plot")
	}
	lo, hi := math.Inf(1), 0.0
	by := map[string]plotter.XYs{}
	for _, r := range rep.Rows {
		by[r.Source] = append(by[r.Source], plotter.XY{X: r.MeasuredUs, Y: r.PredictedUs})
		lo = min(lo, r.MeasuredUs, r.PredictedUs)
		hi = max(hi, r.MeasuredUs, r.PredictedUs)
	}
	lo, hi = lo/2, hi*2
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("Pulse against measured: %d rows, MAPE %.1f%%, %d off by more than 2x", rep.Overall.Rows, 100*rep.Overall.MAPE, rep.Overall.Off2x)
	pl.X.Label.Text = "measured (us)"
	pl.Y.Label.Text = "predicted by Pulse (us)"
	for _, r := range rep.Rows {
		if r.HostUs > 0 {
			pl.Y.Label.Text = "predicted by Pulse (us, with the host overhead the table holds)"
			break
		}
	}
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = lo, hi, lo, hi
	pl.Add(plotter.NewGrid())
	for i, f := range []float64{1, 2, 0.5} {
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * f}, {X: hi, Y: hi * f}})
		if err != nil {
			return nil, err
		}
		l.Color = color.RGBA{R: 120, G: 120, B: 120, A: 255}
		if i > 0 {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		} else {
			pl.Legend.Add("predicted = measured (dashed: 2x off)", l)
		}
		pl.Add(l)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	palette := []color.RGBA{{B: 180, A: 255}, {R: 200, A: 255}, {G: 140, A: 255}, {R: 160, B: 160, A: 255}, {R: 200, G: 120, A: 255}}
	for i, n := range names {
		sc, err := plotter.NewScatter(by[n])
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(2)
		sc.GlyphStyle.Color = palette[i%len(palette)]
		pl.Add(sc)
		pl.Legend.Add(fmt.Sprintf("%s (%d)", n, len(by[n])), sc)
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	return pl, nil
}

// SaveScatter writes Scatter to path, in the format its extension names.
func (rep *Report) SaveScatter(path string) error {
	if err := traces.CheckChartPath(path); err != nil {
		return err
	}
	pl, err := rep.Scatter()
	if err != nil {
		return err
	}
	return pl.Save(8*vg.Inch, 7*vg.Inch, path)
}
