package systolic

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A register-by-register reference of an output-stationary array,
// independent of Array's formulas: X values shift right along the rows and
// W values down the columns, one PE a cycle, each tagged (instruction, k);
// a PE multiplies when an X and a W value of the same instruction and k
// meet in it, accumulates into its one accumulator, and the result leaves
// the cycle after its K-th MAC. The front end starts an instruction as soon
// as its row and column ports are free (with fold overlap) or the previous
// instruction's results are all out (without), and the reference checks
// that no PE ever mixes two instructions in its accumulator.

type osOp struct{ m, k, n, rate int }

type val struct{ op, k int } // op -1: empty

func osReference(R, C int, overlap bool, ops []osOp) (starts, ends []int, err error) {
	x, w := grid[val](R, C, val{-1, 0}), grid[val](R, C, val{-1, 0})
	acc := grid[val](R, C, val{-1, 0}) // instruction in the accumulator, MACs done
	starts, ends = make([]int, len(ops)), make([]int, len(ops))
	for i := range starts {
		starts[i] = -1
	}
	rowFree, colFree := make([]int, R), make([]int, C) // first cycle a port may take a new instruction
	next, lastStart := 0, 0
	remaining := make([]int, len(ops)) // PEs still computing
	for t := 0; t < 1<<22; t++ {
		// Front end, in order.
		for next < len(ops) {
			o := ops[next]
			ok := t >= lastStart
			for i := 0; ok && i < o.m; i++ {
				ok = t+i >= rowFree[i]
			}
			for j := 0; ok && j < o.n; j++ {
				ok = t+j >= colFree[j]
			}
			if ok && !overlap {
				for p := 0; p < next; p++ {
					ok = ok && ends[p] >= 0 && ends[p] <= t && remaining[p] == 0
				}
			}
			if !ok {
				break
			}
			starts[next], lastStart = t, t
			ends[next] = -1
			remaining[next] = o.m * o.n
			for i := 0; i < o.m; i++ {
				rowFree[i] = t + i + (o.k-1)*o.rate + 1
			}
			for j := 0; j < o.n; j++ {
				colFree[j] = t + j + (o.k-1)*o.rate + 1
			}
			next++
		}
		// Shift, then inject at the edges.
		for i := 0; i < R; i++ {
			for j := C - 1; j > 0; j-- {
				x[i][j] = x[i][j-1]
			}
			x[i][0] = val{-1, 0}
		}
		for j := 0; j < C; j++ {
			for i := R - 1; i > 0; i-- {
				w[i][j] = w[i-1][j]
			}
			w[0][j] = val{-1, 0}
		}
		for p := 0; p < next; p++ {
			o, s := ops[p], starts[p]
			for i := 0; i < o.m; i++ {
				if d := t - s - i; d >= 0 && d%o.rate == 0 && d/o.rate < o.k {
					if x[i][0].op >= 0 {
						return nil, nil, fmt.Errorf("cycle %d: row %d port taken twice", t, i)
					}
					x[i][0] = val{p, d / o.rate}
				}
			}
			for j := 0; j < o.n; j++ {
				if d := t - s - j; d >= 0 && d%o.rate == 0 && d/o.rate < o.k {
					if w[0][j].op >= 0 {
						return nil, nil, fmt.Errorf("cycle %d: column %d port taken twice", t, j)
					}
					w[0][j] = val{p, d / o.rate}
				}
			}
		}
		// Multiply where operands meet.
		busy := false
		for i := 0; i < R; i++ {
			for j := 0; j < C; j++ {
				a, b := x[i][j], w[i][j]
				if a.op < 0 && b.op < 0 {
					continue
				}
				busy = true
				if a.op < 0 || b.op < 0 {
					continue // an operand passing through a PE outside its block
				}
				if a != b {
					return nil, nil, fmt.Errorf("cycle %d: PE (%d,%d) gets X %v and W %v", t, i, j, a, b)
				}
				o := ops[a.op]
				if i >= o.m || j >= o.n {
					continue
				}
				if cur := acc[i][j]; cur.op >= 0 && cur.op != a.op {
					return nil, nil, fmt.Errorf("cycle %d: PE (%d,%d) starts instruction %d while %d has %d of %d MACs", t, i, j, a.op, cur.op, cur.k, ops[cur.op].k)
				}
				if acc[i][j].op < 0 {
					acc[i][j] = val{a.op, 0}
				}
				acc[i][j].k++
				if acc[i][j].k == o.k {
					acc[i][j] = val{-1, 0} // the result leaves next cycle
					ends[a.op] = max(ends[a.op], t+1)
					remaining[a.op]--
				}
			}
		}
		if next == len(ops) && !busy {
			for p := range ops {
				if remaining[p] != 0 {
					return nil, nil, fmt.Errorf("instruction %d: %d PEs never finished", p, remaining[p])
				}
			}
			return starts, ends, nil
		}
	}
	return nil, nil, fmt.Errorf("reference simulation did not finish")
}

// TestOSAgainstPEModel: 300 random programs of output-stationary
// instructions (arrays 4..64, blocks up to the array, K up to 3R, rates
// 1..4, folds overlapping or not): the model and the register-level
// reference agree on every instruction's start and end.
func TestOSAgainstPEModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 300; trial++ {
		R, C := 4+rng.IntN(61), 4+rng.IntN(61)
		overlap := rng.IntN(2) == 0
		var ops []osOp
		for len(ops) < 1+rng.IntN(5) {
			ops = append(ops, osOp{m: 1 + rng.IntN(R), k: 1 + rng.IntN(3*R), n: 1 + rng.IntN(C), rate: 1 + rng.IntN(2)*rng.IntN(4)})
		}
		rs, re, err := osReference(R, C, overlap, ops)
		if err != nil {
			t.Fatalf("trial %d (R=%d C=%d overlap=%v ops=%v): %v", trial, R, C, overlap, ops, err)
		}
		a := New(Config{Rows: R, Cols: C, Dataflow: "os", FoldOverlap: overlap})
		for i, o := range ops {
			a.Load(0, o.k)
			s, _, e := a.Stream(0, o.m, o.k, o.n, o.rate)
			if int(s) != rs[i] || int(e) != re[i] {
				t.Fatalf("trial %d (R=%d C=%d overlap=%v) op %d %+v: model start %d end %d, reference start %d end %d\nops %+v",
					trial, R, C, overlap, i, o, s, e, rs[i], re[i], ops)
			}
		}
	}
}

// TestISAgainstPEModel: 300 random programs of input-stationary
// instructions. IS is WS with the roles of X and W exchanged, so the
// PE-by-PE weight-stationary reference runs each instruction as the load
// of its X block (K rows) and the stream of W's N columns through it, M
// wide; the model must agree on every start and end.
func TestISAgainstPEModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := 0; trial < 300; trial++ {
		R, C := 4+rng.IntN(61), 4+rng.IntN(61)
		ldwPer := 1 + rng.IntN(2)
		type isOp struct{ m, k, n, rate int }
		var ops []isOp
		var pe []op
		for len(ops) < 1+rng.IntN(6) {
			o := isOp{m: 1 + rng.IntN(C), k: 1 + rng.IntN(R), n: 1 + rng.IntN(3*R), rate: 1 + rng.IntN(2)*rng.IntN(4)}
			ops = append(ops, o)
			pe = append(pe, op{load: true, k: o.k}, op{k: o.k, n: o.m, m: o.n, rate: o.rate})
		}
		ref := &peSim{R: R, C: C, ldwPer: ldwPer}
		rs, re, err := ref.run(pe)
		if err != nil {
			t.Fatalf("trial %d (R=%d C=%d ops=%v): %v", trial, R, C, ops, err)
		}
		a := New(Config{Rows: R, Cols: C, Dataflow: "is", LdwCyclesPerRow: ldwPer})
		next := int64(0)
		for i, o := range ops {
			a.Load(0, o.k) // mxu.ldw: nothing in the array
			ls, nx, e := a.Stream(next, o.m, o.k, o.n, o.rate)
			next = nx
			if int(ls) != rs[2*i] || int(e) != re[2*i+1] {
				t.Fatalf("trial %d (R=%d C=%d ldw=%d) op %d %+v: model load start %d end %d, reference %d %d\nops %+v",
					trial, R, C, ldwPer, i, o, ls, e, rs[2*i], re[2*i+1], ops)
			}
		}
	}
}
