package partition

import (
	"slices"

	"github.com/pulse-sim/pulse/hlo"
)

// convolution partitions a convolution as dot does a dot: its batch
// dimension split as the input has it (data parallel), its output
// features as the kernel has them, its input features (the contracted
// dimension) as either operand has them, giving partial sums, choosing by
// the bytes moved. Spatial dimensions are gathered whole (XLA's halo
// exchange for split spatial dimensions is not modelled), as is a grouped
// convolution's operands.
func (p *partitioner) convolution(in *hlo.Instruction, ops []*val) error {
	for _, k := range []string{"feature_group_count", "batch_group_count"} {
		if n, err := hlo.IntAttr(in, k); err == nil && n != 1 {
			return p.replicated(in, ops, "a grouped convolution is computed whole")
		}
	}
	dl, err := hlo.ParseDimLabels(attr(in, "dim_labels"))
	if err != nil || len(ops) != 2 || ops[0].tuple != nil || ops[1].tuple != nil {
		return p.replicated(in, ops, "a convolution of this form is computed whole")
	}
	lhs, rhs := ops[0], ops[1]
	ls, rs := dimsOnly(lhs.sh), dimsOnly(rhs.sh)
	var best *dotPlan
	for _, csrc := range []int{0, 1, 2} {
		for _, rhsFirst := range []bool{false, true} {
			plan := &dotPlan{lhs: Replicated(len(ls.Dims)), rhs: Replicated(len(rs.Dims)), out: Replicated(len(in.Shape.Dims))}
			take := axisPool{}.take
			var c []int
			switch csrc {
			case 0:
				c = take(ls.Dims[dl.LhsFeature])
			case 1:
				c = take(rs.Dims[dl.RhsIn])
			}
			plan.lhs.Dims[dl.LhsFeature], plan.rhs.Dims[dl.RhsIn] = c, slices.Clone(c)
			plan.out.Partial = slices.Sorted(slices.Values(c))
			batch := func() {
				a := take(ls.Dims[dl.LhsBatch])
				plan.lhs.Dims[dl.LhsBatch], plan.out.Dims[dl.OutBatch] = a, slices.Clone(a)
			}
			feat := func() {
				a := take(rs.Dims[dl.RhsOut])
				plan.rhs.Dims[dl.RhsOut], plan.out.Dims[dl.OutFeature] = a, slices.Clone(a)
			}
			if rhsFirst {
				feat()
				batch()
			} else {
				batch()
				feat()
			}
			if _, err := p.mesh.LocalDims(plan.lhs, lhs.global.Dims); err != nil {
				continue
			}
			if _, err := p.mesh.LocalDims(plan.rhs, rhs.global.Dims); err != nil {
				continue
			}
			outLocal, err := p.mesh.LocalDims(plan.out, in.Shape.Dims)
			if err != nil {
				continue
			}
			plan.cost = p.mesh.reshardCost(lhs.sh, plan.lhs, lhs.global.Dims, int64(elemSize(lhs.global.Elem))) +
				p.mesh.reshardCost(rhs.sh, plan.rhs, rhs.global.Dims, int64(elemSize(rhs.global.Elem)))
			if len(plan.out.Partial) > 0 {
				plan.cost += hlo.Prod(outLocal) * int64(elemSize(in.Shape.Elem))
			}
			rLocal, _ := p.mesh.LocalDims(plan.rhs, rhs.global.Dims)
			plan.flops = hlo.Prod(outLocal) * hlo.Prod(rLocal) / max(rLocal[dl.RhsOut], 1)
			if better(plan, best) {
				best = plan
			}
		}
	}
	if best == nil {
		return p.replicated(in, ops, "no sharding of the convolution's operands divides its dimensions")
	}
	return p.applyPlan(in, lhs, rhs, best)
}
