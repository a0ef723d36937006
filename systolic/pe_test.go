package systolic

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A processing-element-by-processing-element reference of a weight-stationary
// array, independent of Array's formulas: it steps every cycle, shifts weight
// rows down per-column shadow-register chains, lets every PE swap its weights
// when a stream's first row reaches it, and starts operations greedily as soon
// as the physical state allows. Weights are tagged (tile, row) so that a PE
// computing with the wrong weights is caught.

type op struct {
	load       bool
	k          int // load: rows; stream: K
	m, n, rate int // stream
}

type tag struct{ tile, row int } // tile -1: empty

type peSim struct {
	R, C, ldwPer int
	shadow       [][]tag
	active       [][]tag
	protected    [][]bool // a started stream has yet to swap in this PE's shadow weights
}

type streamState struct {
	start, m, n, rate, tile, k int
	swaps                      bool
	done                       int
}

// run executes ops and returns each op's start and end cycle.
func (s *peSim) run(ops []op) (starts, ends []int, err error) {
	R, C := s.R, s.C
	s.shadow = grid[tag](R, C, tag{-1, 0})
	s.active = grid[tag](R, C, tag{-1, 0})
	s.protected = grid[bool](R, C, false)
	starts, ends = make([]int, len(ops)), make([]int, len(ops))
	next := 0
	tile := -1             // latest loaded tile
	tileK := map[int]int{} // rows of each tile
	pendingUnused := false // the latest tile has not been used by any stream
	injectFree := 0
	loading, shifts, loadK, loadEnd := -1, 0, 0, 0
	var streams []*streamState
	streamOf := map[int]int{}
	for t := 0; t < 1<<20; t++ {
		// Front end: start operations in order while the state allows.
		for next < len(ops) {
			o := ops[next]
			if o.load {
				ok := loading < 0 && t >= loadEnd
				for r := 0; ok && r < o.k; r++ {
					for c := 0; c < C; c++ {
						if s.protected[r][c] {
							ok = false
						}
					}
				}
				if !ok {
					break
				}
				tile++
				tileK[tile] = o.k
				loading, shifts, loadK = tile, 0, o.k
				pendingUnused = true
				starts[next] = t
				ends[next] = t + o.k*s.ldwPer
				loadEnd = ends[next]
				next++
				continue
			}
			if t < injectFree {
				break
			}
			swaps := pendingUnused
			if swaps && (loading >= 0 || t < loadEnd) {
				break // the tile is still shifting in
			}
			st := &streamState{start: t, m: o.m, n: o.n, rate: o.rate, tile: tile, k: tileK[tile], swaps: swaps}
			if swaps {
				for r := 0; r < st.k; r++ {
					for c := 0; c < C; c++ {
						s.protected[r][c] = true
					}
				}
			}
			pendingUnused = false
			streams = append(streams, st)
			streamOf[len(streams)-1] = next
			starts[next] = t
			injectFree = t + o.m*o.rate
			next++
		}
		// Weight shift: every ldwPer cycles the chain of rows 0..K-1 moves down one row.
		if loading >= 0 && (t-loadEnd+loadK*s.ldwPer)%s.ldwPer == 0 {
			for r := loadK - 1; r > 0; r-- {
				for c := 0; c < C; c++ {
					s.shadow[r][c] = s.shadow[r-1][c]
				}
			}
			for c := 0; c < C; c++ {
				s.shadow[0][c] = tag{loading, loadK - 1 - shifts} // rows enter last first
			}
			shifts++
			if shifts == loadK {
				loading = -1
			}
		}
		// Data: row m of a stream is at PE (k, n) at start + m*rate + k + n.
		active := false
		for si, st := range streams {
			if st.done > 0 {
				continue
			}
			active = true
			last := st.start + (st.m-1)*st.rate + R - 1 + C - 1
			for k := 0; k < R; k++ {
				for n := 0; n < C; n++ {
					d := t - st.start - k - n
					if d < 0 || d%st.rate != 0 || d/st.rate >= st.m {
						continue
					}
					if d == 0 && st.swaps {
						want := tag{st.tile, k}
						if k >= st.k {
							want = tag{st.tile, -1} // rows beyond K hold zero weights
						} else if s.shadow[k][n] != want {
							return nil, nil, fmt.Errorf("cycle %d: PE (%d,%d) swaps in %v, stream %d needs %v", t, k, n, s.shadow[k][n], si, want)
						}
						s.active[k][n] = want
						s.protected[k][n] = false
					}
					if s.active[k][n].tile != st.tile {
						return nil, nil, fmt.Errorf("cycle %d: PE (%d,%d) holds tile %d, stream %d row %d needs %d", t, k, n, s.active[k][n].tile, si, d/st.rate, st.tile)
					}
					if k == R-1 && n < st.n {
						ends[streamOf[si]] = max(ends[streamOf[si]], t+1)
					}
				}
			}
			if t >= last {
				st.done = t
			}
		}
		if next == len(ops) && !active && loading < 0 && t >= loadEnd {
			return starts, ends, nil
		}
	}
	return nil, nil, fmt.Errorf("reference simulation did not finish")
}

func grid[T any](r, c int, v T) [][]T {
	g := make([][]T, r)
	for i := range g {
		g[i] = make([]T, c)
		for j := range g[i] {
			g[i][j] = v
		}
	}
	return g
}

// TestAgainstPEModel: on 300 random programs (array sizes 4..64, random K, N,
// M, rates, and sequences of loads and streams) the wavefront model and the
// PE-by-PE reference give identical start and end cycles for every operation,
// and the reference never sees a PE compute with the wrong weights.
func TestAgainstPEModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 300; trial++ {
		R, C := 4+rng.IntN(61), 4+rng.IntN(61)
		ldwPer := 1 + rng.IntN(2)
		var ops []op
		loaded := false
		k, n := 0, 0
		for len(ops) < 2+rng.IntN(6) {
			if !loaded || rng.IntN(3) == 0 {
				k, n = 1+rng.IntN(R), 1+rng.IntN(C)
				ops = append(ops, op{load: true, k: k})
				loaded = true
				continue
			}
			ops = append(ops, op{k: k, n: n, m: 1 + rng.IntN(3*R), rate: 1 + rng.IntN(2)*rng.IntN(4)})
		}
		ref := &peSim{R: R, C: C, ldwPer: ldwPer}
		rs, re, err := ref.run(ops)
		if err != nil {
			t.Fatalf("trial %d (R=%d C=%d ops=%v): %v", trial, R, C, ops, err)
		}
		a := New(Config{Rows: R, Cols: C, Dataflow: "ws", LdwCyclesPerRow: ldwPer})
		for i, o := range ops {
			var s, e int64
			if o.load {
				s, e = a.Load(0, o.k)
			} else {
				s, _, e = a.Stream(0, o.m, o.k, o.n, o.rate)
			}
			if int(s) != rs[i] || int(e) != re[i] {
				t.Fatalf("trial %d (R=%d C=%d ldw=%d) op %d %+v: model start %d end %d, PE reference start %d end %d\nops %+v",
					trial, R, C, ldwPer, i, o, s, e, rs[i], re[i], ops)
			}
		}
	}
}
