package traces

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RooflinePoint is one kernel of a run: its work, its traffic and its time.
type RooflinePoint struct {
	Label   string
	FLOPs   int64
	Bytes   int64
	Seconds float64
}

// Roofline is a chip's roofline with a run's kernels on it: the compute
// roof (peak FLOP/s) and the bandwidth slope (bytes/s x intensity) on
// log-log axes, and one point per kernel at its arithmetic intensity and
// achieved FLOP/s. When the DMA engines cannot reach HBM's peak, both
// slopes are drawn and the roof follows the attainable one.
type Roofline struct {
	Title     string
	PeakFLOPs float64 // FLOP/s
	PeakBytes float64 // bytes/s of HBM
	// AttainableBytes is the bandwidth the DMA engines can reach, when
	// below PeakBytes (0: the same as PeakBytes).
	AttainableBytes float64
	Points          []RooflinePoint
	// MaxLabels labels only the kernels that took the most time (0: 12),
	// so that a module with hundreds of kernels stays readable.
	MaxLabels int
}

// Plot draws the chart. Kernels with no FLOPs or no bytes have no place on
// log axes; the title says how many were left out.
func (r *Roofline) Plot() (*plot.Plot, error) {
	if r.PeakFLOPs <= 0 || r.PeakBytes <= 0 {
		return nil, fmt.Errorf("roofline: the chip's peak FLOP/s and bytes/s must be positive")
	}
	maxLabels := r.MaxLabels
	if maxLabels <= 0 {
		maxLabels = 12
	}
	var pts []RooflinePoint
	for _, p := range r.Points {
		if p.FLOPs > 0 && p.Bytes > 0 && p.Seconds > 0 {
			pts = append(pts, p)
		}
	}
	bw := r.PeakBytes
	if r.AttainableBytes > 0 && r.AttainableBytes < bw {
		bw = r.AttainableBytes
	}
	ridge := r.PeakFLOPs / bw
	xmin, xmax := ridge/64, ridge*64
	ymin := r.PeakFLOPs / 1e4
	for _, p := range pts {
		x, y := float64(p.FLOPs)/float64(p.Bytes), float64(p.FLOPs)/p.Seconds
		xmin, xmax, ymin = min(xmin, x/2), max(xmax, x*2), min(ymin, y/2)
	}
	pl := plot.New()
	title := r.Title
	if left := len(r.Points) - len(pts); left > 0 {
		title += fmt.Sprintf(" (%d kernels without FLOPs not shown)", left)
	}
	pl.Title.Text = title
	pl.X.Label.Text = "arithmetic intensity (FLOP/byte of HBM traffic)"
	pl.Y.Label.Text = "FLOP/s"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	pl.X.Min, pl.X.Max = xmin, xmax
	pl.Y.Min, pl.Y.Max = ymin, r.PeakFLOPs*3
	pl.Add(plotter.NewGrid())

	roof, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: bw * xmin}, {X: ridge, Y: r.PeakFLOPs}, {X: xmax, Y: r.PeakFLOPs}})
	if err != nil {
		return nil, err
	}
	roof.Width = vg.Points(2)
	roof.Color = color.RGBA{R: 200, A: 255}
	pl.Add(roof)
	if bw < r.PeakBytes {
		pl.Legend.Add(fmt.Sprintf("roof: %s peak, %s attainable through the DMA engines", siUnit(r.PeakFLOPs, "FLOP/s"), siUnit(bw, "B/s")), roof)
		hbmRidge := r.PeakFLOPs / r.PeakBytes
		hbm, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: r.PeakBytes * xmin}, {X: hbmRidge, Y: r.PeakFLOPs}})
		if err != nil {
			return nil, err
		}
		hbm.Width = vg.Points(1)
		hbm.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		hbm.Color = color.RGBA{R: 120, G: 120, B: 120, A: 255}
		pl.Add(hbm)
		pl.Legend.Add(fmt.Sprintf("HBM peak %s (not reachable through the DMA engines)", siUnit(r.PeakBytes, "B/s")), hbm)
	} else {
		pl.Legend.Add(fmt.Sprintf("roof: %s peak, %s HBM", siUnit(r.PeakFLOPs, "FLOP/s"), siUnit(r.PeakBytes, "B/s")), roof)
	}

	if len(pts) > 0 {
		xys := make(plotter.XYs, len(pts))
		for i, p := range pts {
			xys[i] = plotter.XY{X: float64(p.FLOPs) / float64(p.Bytes), Y: float64(p.FLOPs) / p.Seconds}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3)
		sc.GlyphStyle.Color = color.RGBA{B: 180, A: 255}
		pl.Add(sc)
		pl.Legend.Add(fmt.Sprintf("kernels (%d)", len(pts)), sc)

		// Label the kernels that took the most time.
		order := make([]int, len(pts))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pts[b].Seconds, pts[a].Seconds) })
		var lx plotter.XYs
		var ls []string
		// In log space, a label needs about this much room; a kernel
		// too close to one already labelled keeps its dot only.
		const dx, dy = 0.45, 0.18
		for _, i := range order {
			if len(ls) == maxLabels {
				break
			}
			x, y := math.Log10(xys[i].X), math.Log10(xys[i].Y)
			free := true
			for _, q := range lx {
				if math.Abs(math.Log10(q.X)-x) < dx && math.Abs(math.Log10(q.Y)-y) < dy {
					free = false
					break
				}
			}
			if free {
				lx = append(lx, xys[i])
				ls = append(ls, shorten(pts[i].Label, 28))
			}
		}
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: lx, Labels: ls})
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Font.Size = vg.Points(7)
		}
		labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		pl.Add(labels)
	}
	pl.Legend.Top = true
	pl.Legend.Left = true
	return pl, nil
}

// Save writes the chart to path, in the format its extension names
// (.svg, .png, .pdf, .eps, .jpg, .tif).
func (r *Roofline) Save(path string) error {
	if err := CheckChartPath(path); err != nil {
		return err
	}
	pl, err := r.Plot()
	if err != nil {
		return err
	}
	return pl.Save(9*vg.Inch, 6*vg.Inch, path)
}

// CheckChartPath reports whether Save can write path's format.
func CheckChartPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png", ".pdf", ".eps", ".jpg", ".jpeg", ".tif", ".tiff":
		return nil
	}
	return fmt.Errorf("%s: unknown chart format %q (use .svg or .png)", path, filepath.Ext(path))
}

// WriteTo writes the chart in format (svg, png, ...) to w.
func (r *Roofline) WriteTo(w io.Writer, format string) error {
	pl, err := r.Plot()
	if err != nil {
		return err
	}
	wt, err := pl.WriterTo(9*vg.Inch, 6*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func siUnit(v float64, unit string) string {
	prefixes := []string{"", "K", "M", "G", "T", "P", "E"}
	i := 0
	for math.Abs(v) >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	return fmt.Sprintf("%.3g %s%s", v, prefixes[i], unit)
}
