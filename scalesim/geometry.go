package scalesim

// geometry is how SCALE-Sim folds a layer onto an R x C array, and the
// demand matrices its compute modules build (scalesim/compute/
// systolic_compute_{ws,os,is}.py): for each fold, in the order fc (column
// folds) outer and fr (row folds) inner, a block of perFold rows (cycles);
// per row, one request per array row or column of each operand, its
// address or none. Nothing is materialized: elem answers for one entry.
type geometry struct {
	df                 string
	R, C               int64
	Sr, Sc, T          int64 // spatial rows, spatial columns, temporal extent
	rowFolds, colFolds int64
	perFold            int64
	layer              *Layer
	cfg                *Config
	eh, ew, window     int64
}

func newGeometry(c *Config, l *Layer) *geometry {
	g := &geometry{df: c.Dataflow, R: c.ArrayHeight, C: c.ArrayWidth, layer: l, cfg: c,
		eh: l.OfmapH(), ew: l.OfmapW(), window: l.K()}
	m, n, k := l.M(), l.N(), l.K()
	switch g.df {
	case "os":
		g.Sr, g.Sc, g.T = m, n, k
		g.perFold = g.T + g.R + g.C - 2
	case "ws":
		g.Sr, g.Sc, g.T = k, n, m
		g.perFold = 2*g.R + g.C + g.T - 2
	case "is":
		g.Sr, g.Sc, g.T = k, m, n
		g.perFold = 2*g.R + g.C + g.T - 2
	}
	g.rowFolds, g.colFolds = ceilDiv(g.Sr, g.R), ceilDiv(g.Sc, g.C)
	return g
}

func (g *geometry) folds() int64 { return g.rowFolds * g.colFolds }
func (g *geometry) rows() int64  { return g.folds() * g.perFold }

// fold splits a fold index into its row and column fold.
func (g *geometry) fold(f int64) (fr, fc int64) { return f % g.rowFolds, f / g.rowFolds }

func (g *geometry) rowUsed(fr int64) int64 { return min(g.R, g.Sr-fr*g.R) }
func (g *geometry) colUsed(fc int64) int64 { return min(g.C, g.Sc-fc*g.C) }

// foldCycles is the fold's length as the compute modules count it for
// their utilization (the demand block's rows + columns - 1).
func (g *geometry) foldCycles() int64 {
	if g.df == "os" {
		return g.T + g.R + g.C - 2
	}
	return 2*g.R + 2*g.C + g.T - 3
}

// The operands.
const (
	opIfmap = iota
	opFilter
	opOfmap
)

// width is the number of requests per row of an operand's demand.
func (g *geometry) width(op int) int64 {
	switch {
	case op == opOfmap:
		return g.C
	case g.df == "is":
		if op == opIfmap {
			return g.C
		}
		return g.R
	case op == opIfmap:
		return g.R
	}
	return g.C
}

// ifmapAddr is operand_matrix.calc_ifmap_elem_addr: output pixel p, window
// element j; -1 where the window hangs over the input's edge.
func (g *geometry) ifmapAddr(p, j int64) int64 {
	l := g.layer
	orow, ocol := p/g.ew, p%g.ew
	irow, icol := orow*l.StrideH, ocol*l.StrideW
	crow := j / (l.FilterW * l.Channels)
	k := j % (l.FilterW * l.Channels)
	ccol, cch := k/l.Channels, k%l.Channels
	if crow+irow >= l.IfmapH || ccol+icol >= l.IfmapW {
		return -1
	}
	return g.cfg.IfmapOffset + (irow*l.IfmapW*l.Channels + icol*l.Channels) + crow*l.IfmapW*l.Channels + ccol*l.Channels + cch
}

func (g *geometry) filterAddr(j, n int64) int64 { return g.cfg.FilterOffset + n*g.window + j }
func (g *geometry) ofmapAddr(p, n int64) int64  { return g.cfg.OfmapOffset + g.layer.N()*p + n }

// skewed maps row r, column c of a skewed block (column c delayed by c
// rows) to the row of the block before the skew, or -1.
func skewed(r, c, height int64) int64 {
	if t := r - c; t >= 0 && t < height {
		return t
	}
	return -1
}

// elem is the request of operand op at row r of fold f, column c: an
// address, or -1 for none.
func (g *geometry) elem(op int, f, r, c int64) int64 {
	fr, fc := g.fold(f)
	ru, cu := g.rowUsed(fr), g.colUsed(fc)
	R, T := g.R, g.T
	switch g.df {
	case "ws":
		switch op {
		case opIfmap: // prefix R, T rows of ifmap[:, fold rows], suffix C-1; skewed
			t := skewed(r, c, R+T+g.C-1) - R
			if t < 0 || t >= T || c >= ru {
				return -1
			}
			return g.ifmapAddr(t, fr*R+c)
		case opFilter: // R rows of filter (flipped), suffix; not skewed
			if r >= R || R-1-r >= ru || c >= cu {
				return -1
			}
			return g.filterAddr(fr*R+R-1-r, fc*g.C+c)
		default: // prefix 2R-1, T rows of ofmap[:, fold cols]; skewed
			t := skewed(r, c, 2*R-1+T) - (2*R - 1)
			if t < 0 || c >= cu {
				return -1
			}
			return g.ofmapAddr(t, fc*g.C+c)
		}
	case "os":
		switch op {
		case opIfmap: // T rows of ifmap^T[:, fold rows], suffix C-1; skewed
			t := skewed(r, c, T+g.C-1)
			if t < 0 || t >= T || c >= ru {
				return -1
			}
			return g.ifmapAddr(fr*R+c, t)
		case opFilter: // T rows of filter[:, fold cols], suffix R-1; skewed
			t := skewed(r, c, T+R-1)
			if t < 0 || t >= T || c >= cu {
				return -1
			}
			return g.filterAddr(t, fc*g.C+c)
		default: // prefix T-1, R rows of ofmap (flipped); skewed
			t := skewed(r, c, T-1+R) - (T - 1)
			if t < 0 || R-1-t >= ru || c >= cu {
				return -1
			}
			return g.ofmapAddr(fr*R+R-1-t, fc*g.C+c)
		}
	default: // is
		switch op {
		case opIfmap: // R rows of ifmap^T (flipped), suffix; not skewed
			if r >= R || R-1-r >= ru || c >= cu {
				return -1
			}
			return g.ifmapAddr(fc*g.C+c, fr*R+R-1-r)
		case opFilter: // prefix R, T rows of filter[fold rows, :]^T, suffix C-1; skewed
			t := skewed(r, c, R+T+g.C-1) - R
			if t < 0 || t >= T || c >= ru {
				return -1
			}
			return g.filterAddr(fr*R+c, t)
		default: // prefix 2R-1, T rows of ofmap[fold cols, :]^T; skewed
			t := skewed(r, c, 2*R-1+T) - (2*R - 1)
			if t < 0 || c >= cu {
				return -1
			}
			return g.ofmapAddr(fc*g.C+c, t)
		}
	}
}

// ofmapWrites is the number of ofmap requests in row r of fold f (the
// ofmap operand has no holes, so a count is all the write buffer needs).
func (g *geometry) ofmapWrites(f, r int64) int64 {
	fr, fc := g.fold(f)
	cu := g.colUsed(fc)
	var lo, hi int64 // columns c with a request: lo <= c <= hi
	if g.df == "os" {
		ru := g.rowUsed(fr)
		// t = r - c - (T-1) must lie in [R-ru, R).
		lo, hi = r-(g.T-1)-(g.R-1), r-(g.T-1)-(g.R-ru)
	} else {
		// t = r - c - (2R-1) must lie in [0, T).
		lo, hi = r-(2*g.R-1)-(g.T-1), r-(2*g.R-1)
	}
	lo, hi = max(lo, 0), min(hi, cu-1)
	if hi < lo {
		return 0
	}
	return hi - lo + 1
}
