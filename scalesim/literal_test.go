package scalesim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A literal transcription of SCALE-Sim's Python, on materialized matrices:
// the demand matrices built as systolic_compute_{ws,os,is}.py builds them
// (concatenate, pad, flip, skew), then served element by element by
// write_buffer.py and read_buffer_estimate_bw.py as written. The model
// (closed forms, counted rows, batched writes, analytic first prefetch)
// must agree with it on every figure.

type mat [][]int64

func filled(rows, cols int, v int64) mat {
	m := make(mat, rows)
	for i := range m {
		m[i] = make([]int64, cols)
		for j := range m[i] {
			m[i][j] = v
		}
	}
	return m
}

func vcat(ms ...mat) mat {
	var out mat
	for _, m := range ms {
		out = append(out, m...)
	}
	return out
}

// cols takes columns [lo, hi) and pads to width with -1.
func (m mat) cols(lo, hi, width int) mat {
	out := filled(len(m), width, -1)
	for i := range m {
		copy(out[i], m[i][lo:hi])
	}
	return out
}

func (m mat) rowsPad(lo, hi, height int) mat {
	w := len(m[0])
	out := filled(height, w, -1)
	for i := lo; i < hi; i++ {
		copy(out[i-lo], m[i])
	}
	return out
}

func (m mat) flip() mat {
	out := make(mat, len(m))
	for i := range m {
		out[len(m)-1-i] = m[i]
	}
	return out
}

func (m mat) trans() mat {
	out := filled(len(m[0]), len(m), 0)
	for i := range m {
		for j := range m[i] {
			out[j][i] = m[i][j]
		}
	}
	return out
}

func (m mat) skew() mat {
	rows, cols := len(m), len(m[0])
	out := filled(rows+cols-1, cols, -1)
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			out[c+r][c] = m[r][c]
		}
	}
	return out
}

func demands(g *geometry) (ifm, fil, ofm mat) {
	M, N, K := int(g.layer.M()), int(g.layer.N()), int(g.layer.K())
	ifOp, fiOp, ofOp := filled(M, K, 0), filled(K, N, 0), filled(M, N, 0)
	for p := 0; p < M; p++ {
		for j := 0; j < K; j++ {
			ifOp[p][j] = g.ifmapAddr(int64(p), int64(j))
		}
		for n := 0; n < N; n++ {
			ofOp[p][n] = g.ofmapAddr(int64(p), int64(n))
		}
	}
	for j := 0; j < K; j++ {
		for n := 0; n < N; n++ {
			fiOp[j][n] = g.filterAddr(int64(j), int64(n))
		}
	}
	R, C, T := int(g.R), int(g.C), int(g.T)
	Sr, Sc := int(g.Sr), int(g.Sc)
	for fc := 0; fc < int(g.colFolds); fc++ {
		for fr := 0; fr < int(g.rowFolds); fr++ {
			r0, r1 := fr*R, min(fr*R+R, Sr)
			c0, c1 := fc*C, min(fc*C+C, Sc)
			var a, b, o mat
			switch g.df {
			case "ws":
				a = vcat(filled(R, R, -1), ifOp.cols(r0, r1, R), filled(C-1, R, -1)).skew()
				b = vcat(fiOp.rowsPad(r0, r1, R).cols(c0, c1, C).flip(), filled(R+C+T-2, C, -1))
				o = vcat(filled(2*R-1, C, -1), ofOp.cols(c0, c1, C)).skew()
			case "os":
				a = vcat(ifOp.trans().cols(r0, r1, R), filled(C-1, R, -1)).skew()
				b = vcat(fiOp.cols(c0, c1, C), filled(R-1, C, -1)).skew()
				o = vcat(filled(T-1, C, -1), ofOp.rowsPad(r0, r1, R).cols(c0, c1, C).flip()).skew()
			case "is":
				a = vcat(ifOp.trans().rowsPad(r0, r1, R).cols(c0, c1, C).flip(), filled(R+C+T-2, C, -1))
				b = vcat(filled(R, R, -1), fiOp.rowsPad(r0, r1, r1-r0).trans().cols(0, r1-r0, R), filled(C-1, R, -1)).skew()
				o = vcat(filled(2*R-1, C, -1), ofOp.trans().cols(c0, c1, C)).skew()
			}
			ifm, fil, ofm = vcat(ifm, a), vcat(fil, b), vcat(ofm, o)
		}
	}
	return
}

// literalWrite is write_buffer.py with its trace lines kept.
type literalWrite struct {
	total, drainSize, bw, free int64
	cur                        []int64
	lines                      [][]int64
	drainStart                 int64
	drainEnd                   int64
	access                     int64
	cycles                     []int64
}

func (w *literalWrite) store(e int64) {
	w.cur = append(w.cur, e)
	w.free--
	if int64(len(w.cur)) == w.bw {
		w.lines = append(w.lines, w.cur)
		w.cur = nil
	}
}

func (w *literalWrite) force() {
	if len(w.cur) > 0 {
		for int64(len(w.cur)) < w.bw {
			w.cur = append(w.cur, -1)
		}
		w.lines = append(w.lines, w.cur)
		w.cur = nil
	}
}

func (w *literalWrite) drain(start int64) int64 {
	end := min(w.drainStart+ceilDiv(w.drainSize, w.bw), int64(len(w.lines)))
	req := w.lines[w.drainStart:end]
	data := int64(len(req)) * w.bw
	for _, e := range req[len(req)-1] {
		if e == -1 {
			data--
		}
	}
	w.access += data
	for x := range int64(len(req)) {
		w.cycles = append(w.cycles, start+x)
	}
	w.free += data
	w.drainStart = end
	return start + int64(len(req)) - 1
}

func (w *literalWrite) service(row []int64, cycle int64) int64 {
	cur := cycle
	for _, e := range row {
		if e == -1 {
			continue
		}
		w.store(e)
		if cur < w.drainEnd {
			if !(w.free > 0) {
				cur = w.drainEnd
			}
		} else if w.free < w.total-w.drainSize {
			w.force()
			w.drainEnd = w.drain(cur)
			cur = w.drainEnd
		}
	}
	return cur
}

// literalRead is read_buffer_estimate_bw.py with its list of sets.
type literalRead struct {
	items, bw                      int64
	current                        map[int64]bool
	sets                           []map[int64]bool
	setID, readStart, readEnd      int64
	pfStart, pfEnd                 int64
	lastStart, lastEnd, firstCycle int64
	firstSeen, activeDone          bool
	access                         int64
	trace                          []int64
}

func (r *literalRead) hit(a int64) bool {
	for i := r.readStart; i < min(r.setID, r.readEnd+1); i++ {
		if r.sets[i][a] {
			return true
		}
	}
	return false
}

func (r *literalRead) prefetch(lo, hi int64) {
	for i := lo; i <= hi; i++ {
		r.access += int64(len(r.sets[i]))
	}
	for c := r.lastStart; c <= r.lastEnd; c++ {
		r.trace = append(r.trace, c+1)
	}
}

func (r *literalRead) serve(row []int64, cycle int64) {
	if !r.firstSeen {
		for _, a := range row {
			if a > -1 {
				r.firstCycle, r.firstSeen = cycle, true
				break
			}
		}
	}
	for _, a := range row {
		if a == -1 || r.hit(a) || r.current[a] {
			continue
		}
		r.current[a] = true
		if int64(len(r.current)) != r.items {
			continue
		}
		r.sets = append(r.sets, r.current)
		r.current = map[int64]bool{}
		r.setID++
		if r.setID != r.readEnd+1 {
			continue
		}
		if !r.activeDone {
			r.lastEnd = r.firstCycle - 1 - 1
			r.lastStart = r.lastEnd - ceilDiv(50*r.items, r.bw) + 1
			r.prefetch(0, 49)
			r.pfStart = r.readEnd + 1
			r.pfEnd = r.pfStart + 49
			r.activeDone = true
		} else {
			r.prefetch(r.pfStart, r.pfEnd)
			r.pfStart += 50
			r.pfEnd += 50
		}
		r.readStart += 50
		r.readEnd += 50
		r.lastStart = r.lastEnd + 1
		r.lastEnd = cycle
	}
}

func (r *literalRead) finish() {
	if len(r.current) > 0 {
		r.sets = append(r.sets, r.current)
	} else {
		r.setID--
	}
	if !r.activeDone {
		r.lastEnd = -1 - 1
		n := r.setID + 1
		r.lastStart = r.lastEnd - ceilDiv(n*r.items, r.bw) + 1
		r.prefetch(0, n-1)
		return
	}
	r.pfEnd = r.setID
	r.prefetch(r.pfStart, r.pfEnd)
}

func TestLiteralSCALESim(t *testing.T) {
	topos := []struct {
		name, text string
		gemm       bool
	}{
		{"gemm", "Layer, M, N, K,\nG, 70, 45, 38,\n", true},
		{"conv edge windows", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nC, 23, 19, 5, 4, 3, 21, 3,\n", false},
		{"conv overlapping", "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nC, 16, 16, 3, 3, 4, 9, 1,\n", false},
	}
	for _, tp := range topos {
		for _, a := range [][2]int{{8, 8}, {16, 6}, {5, 12}} {
			for _, kb := range []int{1, 4} { // small SRAMs: many prefetches and drains
				for _, df := range []string{"ws", "os", "is"} {
					t.Run(fmt.Sprintf("%s/%dx%d/%dkB/%s", tp.name, a[0], a[1], kb, df), func(t *testing.T) {
						c, l := load(t, cfgText(a[0], a[1], df, kb), tp.text, tp.gemm)
						got, err := Simulate(c, &l[0], Options{DRAMReads: true})
						require.NoError(t, err)
						g := newGeometry(c, &l[0])
						ifm, fil, ofm := demands(g)
						require.Len(t, ofm, int(g.rows()))
						bytes := int64(kb) * 1024
						w := &literalWrite{total: bytes, drainSize: bytes - (bytes+1)/2, bw: g.C, free: bytes}
						rd := [2]*literalRead{}
						for i := range rd {
							rd[i] = &literalRead{items: bytes / 100, bw: 10, current: map[int64]bool{}, readEnd: 49, lastStart: -2, lastEnd: -1}
						}
						var sramFirst, sramLast [3]int64
						for i := range sramFirst {
							sramFirst[i] = -1
						}
						var out int64
						note := func(op int, row []int64, cyc int64) {
							for _, e := range row {
								if e >= 0 {
									if sramFirst[op] < 0 {
										sramFirst[op] = cyc
									}
									sramLast[op] = cyc
									return
								}
							}
						}
						for i := range ofm {
							cycle := int64(i)
							rd[0].serve(ifm[i], cycle)
							rd[1].serve(fil[i], cycle)
							out = w.service(ofm[i], cycle)
							note(opIfmap, ifm[i], cycle+1)
							note(opFilter, fil[i], cycle+1)
							note(opOfmap, ofm[i], out)
						}
						w.force()
						for cyc := out; w.drainStart < int64(len(w.lines)); {
							w.drainEnd = w.drain(cyc)
							cyc = w.drainEnd + 1
						}
						for _, r := range rd {
							r.finish()
						}
						require.Equal(t, sramFirst, got.SRAMStart, "SRAM start")
						require.Equal(t, sramLast, got.SRAMStop, "SRAM stop")
						require.Equal(t, w.access, got.DRAMAccesses[opOfmap], "ofmap DRAM writes")
						// np.amin and np.amax of the drain cycles: a drain that
						// follows a stall can end after later rows' drains.
						require.Equal(t, slices.Min(w.cycles), got.DRAMStart[opOfmap])
						require.Equal(t, slices.Max(w.cycles), got.DRAMStop[opOfmap])
						for op, r := range rd {
							require.Equal(t, r.trace[0], got.DRAMStart[op], "%s DRAM start", opName[op])
							require.Equal(t, r.trace[len(r.trace)-1], got.DRAMStop[op], "%s DRAM stop", opName[op])
							require.Equal(t, r.access, got.DRAMAccesses[op], "%s DRAM reads", opName[op])
						}
						require.Equal(t, int64(len(ofm)-1), got.TotalCycles)
						// SRAM counts: the Python counts requests of the unpadded blocks.
						var n [3]int64
						for _, row := range ifm {
							for _, e := range row {
								if e >= 0 {
									n[opIfmap]++
								}
							}
						}
						if !tp.gemm {
							require.LessOrEqual(t, n[opIfmap], got.SRAMAccesses[opIfmap], "the count includes window elements over the edge")
						} else {
							require.Equal(t, n[opIfmap], got.SRAMAccesses[opIfmap])
						}
					})
				}
			}
		}
	}
}
