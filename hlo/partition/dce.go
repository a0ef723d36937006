package partition

import "github.com/pulse-sim/pulse/hlo"

// removeDead drops from the partitioned module what nothing reads: a value
// the partitioner made in one sharding and then made anew in another
// (rebroadcast) stays behind otherwise, and a whole-array broadcast of
// zeros left in the program would take its HBM, as XLA's DCE after its
// partitioner removes such values. Parameters and instructions with
// effects (feeds, sends, custom-calls, the program's own collectives) stay;
// the partitioner's own collectives (ours) go when dead. It returns the
// names removed.
func removeDead(m *hlo.Module, ours map[string]bool) map[string]bool {
	removed := map[string]bool{}
	for _, c := range m.Computations {
		if c.Root == nil {
			continue
		}
		live := map[string]bool{c.Root.Name: true}
		for i := len(c.Instructions) - 1; i >= 0; i-- {
			in := c.Instructions[i]
			if !live[in.Name] && !mustKeep(in, ours) {
				continue
			}
			live[in.Name] = true
			for _, o := range in.Operands {
				live[o.Name] = true
			}
		}
		kept := c.Instructions[:0]
		for _, in := range c.Instructions {
			if live[in.Name] {
				kept = append(kept, in)
			} else {
				removed[in.Name] = true
			}
		}
		c.Instructions = kept
	}
	return removed
}

func mustKeep(in *hlo.Instruction, ours map[string]bool) bool {
	switch in.Opcode {
	case hlo.OpParameter:
		return true
	case hlo.OpInfeed, hlo.OpOutfeed, hlo.OpSend, hlo.OpSendDone, hlo.OpRecv, hlo.OpRecvDone, hlo.OpCustomCall, hlo.OpRng,
		hlo.OpAfterAll, hlo.OpAddDependency:
		return true
	case hlo.OpAllReduce, hlo.OpAllGather, hlo.OpAllToAll, hlo.OpReduceScatter, hlo.OpCollectivePermute:
		return !ours[in.Name]
	}
	return false
}
