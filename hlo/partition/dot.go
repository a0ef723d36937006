package partition

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// dotPlan is one way to partition a dot: where its operands move and how
// its result comes out.
type dotPlan struct {
	lhs, rhs, out Sharding
	cost, flops   int64
}

// dot partitions a dot as XLA's dot handler does, by choosing among the
// ways its operands' shardings allow: each batch dimension and each
// contracted dimension split as the lhs has it, as the rhs has it, or not
// at all, the free dimensions keeping what the other choices left them
// (lhs's first or rhs's first). A split batch or free dimension splits
// the result; a split contracted dimension leaves each device a partial
// sum (combined by an all-reduce, or a reduce-scatter where the consumer
// wants the result split). The plan chosen moves the fewest bytes (then
// computes the fewest local products), so a replicated activation times a
// column-split weight stays local (Megatron's first matmul), a
// row-split one against a split activation sums partials (its second), and
// a weight split along what the activation's batch is split over is
// gathered (FSDP).
func (p *partitioner) dot(in *hlo.Instruction, ops []*val) error {
	list := func(key string) []int64 {
		v, _ := hlo.OptList(in, key)
		return v
	}
	lb, rb := list("lhs_batch_dims"), list("rhs_batch_dims")
	lc, rc := list("lhs_contracting_dims"), list("rhs_contracting_dims")
	lhs, rhs := ops[0], ops[1]
	lf := freeDims(len(lhs.global.Dims), lb, lc)
	rf := freeDims(len(rhs.global.Dims), rb, rc)
	var best *dotPlan
	for _, bsrc := range []int{0, 1, 2} {
		for _, csrc := range []int{0, 1, 2} {
			for _, rhsFirst := range []bool{false, true} {
				plan := p.dotCandidate(in, lhs, rhs, lb, rb, lc, rc, lf, rf, bsrc, csrc, rhsFirst)
				if plan == nil {
					continue
				}
				if better(plan, best) {
					best = plan
				}
			}
		}
	}
	if best == nil {
		return p.replicated(in, ops, "no sharding of the dot's operands divides its dimensions")
	}
	return p.applyPlan(in, lhs, rhs, best)
}

// better reports whether plan beats best (nil: anything does): fewer
// bytes moved, then fewer local products.
func better(plan, best *dotPlan) bool {
	return best == nil || plan.cost < best.cost || plan.cost == best.cost && plan.flops < best.flops
}

// applyPlan moves a dot's or convolution's operands where plan says and
// emits it, its partial sums (if any) to be combined by an add.
func (p *partitioner) applyPlan(in *hlo.Instruction, lhs, rhs *val, plan *dotPlan) error {
	l, err := p.reshard(lhs, plan.lhs)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	r, err := p.reshard(rhs, plan.rhs)
	if err != nil {
		return p.errAt(in, "%v", err)
	}
	if len(plan.out.Partial) > 0 {
		plan.out.Reducer = p.adder(in.Shape.Elem)
	}
	return p.emitAs(in, plan.out, []string{l.name, r.name}, nil)
}

// axisPool hands out mesh axes to dimensions, each axis at most once.
type axisPool map[int]bool

// take gives axes if none is taken yet (nil otherwise).
func (u axisPool) take(axes []int) []int {
	for _, a := range axes {
		if u[a] {
			return nil
		}
	}
	for _, a := range axes {
		u[a] = true
	}
	return slices.Clone(axes)
}

func freeDims(rank int, a, b []int64) []int64 {
	var out []int64
	for d := 0; d < rank; d++ {
		if !slices.Contains(a, int64(d)) && !slices.Contains(b, int64(d)) {
			out = append(out, int64(d))
		}
	}
	return out
}

// dotCandidate builds one plan: batch dims split as src says (0 lhs, 1
// rhs, 2 neither), contracted dims likewise, then free dims; nil when a
// split does not divide its dimension.
func (p *partitioner) dotCandidate(in *hlo.Instruction, lhs, rhs *val, lb, rb, lc, rc, lf, rf []int64, bsrc, csrc int, rhsFirst bool) *dotPlan {
	ls, rs := dimsOnly(lhs.sh), dimsOnly(rhs.sh)
	plan := &dotPlan{lhs: Replicated(len(ls.Dims)), rhs: Replicated(len(rs.Dims)), out: Replicated(len(in.Shape.Dims))}
	take := axisPool{}.take
	pick := func(src int, l, r int64) []int {
		switch src {
		case 0:
			return take(ls.Dims[l])
		case 1:
			return take(rs.Dims[r])
		}
		return nil
	}
	for i := range lb {
		a := pick(bsrc, lb[i], rb[i])
		plan.lhs.Dims[lb[i]], plan.rhs.Dims[rb[i]], plan.out.Dims[i] = a, slices.Clone(a), slices.Clone(a)
	}
	for i := range lc {
		a := pick(csrc, lc[i], rc[i])
		plan.lhs.Dims[lc[i]], plan.rhs.Dims[rc[i]] = a, slices.Clone(a)
		plan.out.Partial = append(plan.out.Partial, a...)
	}
	slices.Sort(plan.out.Partial)
	lhsFree := func() {
		for k, d := range lf {
			a := take(ls.Dims[d])
			plan.lhs.Dims[d], plan.out.Dims[len(lb)+k] = a, slices.Clone(a)
		}
	}
	rhsFree := func() {
		for k, d := range rf {
			a := take(rs.Dims[d])
			plan.rhs.Dims[d], plan.out.Dims[len(lb)+len(lf)+k] = a, slices.Clone(a)
		}
	}
	if rhsFirst {
		rhsFree()
		lhsFree()
	} else {
		lhsFree()
		rhsFree()
	}
	if _, err := p.mesh.LocalDims(plan.lhs, lhs.global.Dims); err != nil {
		return nil
	}
	if _, err := p.mesh.LocalDims(plan.rhs, rhs.global.Dims); err != nil {
		return nil
	}
	outLocal, err := p.mesh.LocalDims(plan.out, in.Shape.Dims)
	if err != nil {
		return nil
	}
	plan.cost = p.mesh.reshardCost(lhs.sh, plan.lhs, lhs.global.Dims, int64(elemSize(lhs.global.Elem))) +
		p.mesh.reshardCost(rhs.sh, plan.rhs, rhs.global.Dims, int64(elemSize(rhs.global.Elem)))
	outBytes := hlo.Prod(outLocal) * int64(elemSize(in.Shape.Elem))
	if len(plan.out.Partial) > 0 {
		plan.cost += outBytes // at least a reduce-scatter's worth
	}
	k := int64(1)
	lLocal, _ := p.mesh.LocalDims(plan.lhs, lhs.global.Dims)
	for _, d := range lc {
		k *= lLocal[d]
	}
	plan.flops = hlo.Prod(outLocal) * k
	return plan
}
