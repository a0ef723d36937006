package hlo

import (
	"fmt"
	"strconv"
	"strings"
)

// IsHostTransfer reports whether in is a send, recv or their -done
// with is_host_transfer=true: a transfer to or from the host program,
// which uses the outfeed (send) and infeed (recv) queues.
func IsHostTransfer(in *Instruction) bool {
	v, _ := in.Attr("is_host_transfer")
	return v == "true"
}

// GroupSize returns the largest replica group of a collective: groups
// listed ({{0,1},{2,3}}) or in the iota form ([G,S]<=[N]...).
func GroupSize(in *Instruction) int64 {
	v, ok := in.Attr("replica_groups")
	if !ok || v == "{}" || v == "{{}}" {
		return 0
	}
	if strings.HasPrefix(v, "[") {
		dims, _, _ := strings.Cut(strings.TrimPrefix(v, "["), "]")
		parts := strings.Split(dims, ",")
		n, _ := strconv.ParseInt(strings.TrimSpace(parts[len(parts)-1]), 10, 64)
		return n
	}
	var size int64
	for _, g := range strings.Split(v, "}") {
		g = strings.Trim(g, "{, ")
		if g == "" {
			continue
		}
		size = max(size, int64(len(strings.Split(g, ","))))
	}
	return size
}

// collectiveShards is how many devices an all-gather or reduce-scatter
// spans by its shapes, whatever its replica_groups say (empty ones mean
// every device): an all-gather's result holds that many of its operand, a
// reduce-scatter's operand that many of its result. 1 when the shapes do
// not say (other ops, tuples, counts that do not divide).
func collectiveShards(base string, operand, result *Shape) int64 {
	if operand == nil || result == nil || operand.IsTuple || result.IsTuple {
		return 1
	}
	small, big := operand.Elems(), result.Elems()
	switch base {
	case "all-gather":
	case "reduce-scatter":
		small, big = big, small
	default:
		return 1
	}
	if small <= 0 || big%small != 0 {
		return 1
	}
	return big / small
}

// IsCollective reports whether op is one of the collectives whose devices
// exchange values (send and recv, point to point, aside).
func IsCollective(op string) bool { return collectives[op] }

// CollectiveOps lists IsCollective's opcodes, sorted.
func CollectiveOps() []string { return sortedOps(collectives) }

var collectives = OpSet(`all-reduce all-gather reduce-scatter all-to-all collective-permute
	all-reduce-start all-reduce-done all-gather-start all-gather-done collective-permute-start
	collective-permute-done collective-broadcast`)

// SendRecvPairs reads a send's or recv's pairs.
func SendRecvPairs(in *Instruction) ([][]int, error) {
	fa, _ := in.Attr("frontend_attributes")
	const key = "_xla_send_recv_source_target_pairs"
	i := strings.Index(fa, key)
	if i < 0 {
		return nil, fmt.Errorf("a send or recv between devices without %s: which devices it pairs is not said", key)
	}
	rest := strings.TrimLeft(fa[i+len(key):], " =\\\"")
	depth, end := 0, -1
	for j, r := range rest {
		if r == '{' {
			depth++
		} else if r == '}' {
			if depth--; depth == 0 {
				end = j + 1
				break
			}
		}
	}
	if end < 0 {
		return nil, fmt.Errorf("%s: want {{source,target},...}", key)
	}
	pairs, err := ParseReplicaGroups(rest[:end])
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	for _, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("%s %s: want {source,target} pairs", key, rest[:end])
		}
	}
	return pairs, nil
}

// identityCustomCalls are custom-call targets that move or annotate data
// without changing it on a single device: sharding annotations and
// Shardy's propagation barriers, host offload markers and placements,
// Neuron's transfers, layout constraints, XLA's promise that gather
// indices are in bounds (a promise: clamping them is still right).
// (The lowering keeps a host-offloaded array in HBM and lists the host
// link transfer as not modelled, HostOffload; docs/lowering.md.)
var identityCustomCalls = map[string]bool{
	"Sharding": true, "SPMDFullToShardShape": true, "SPMDShardToFullShape": true,
	"ShardBarrierFrom": true, "ShardBarrierTo": true,
	"MoveToHost": true, "MoveToDevice": true, "AwsNeuronTransferWithStaticRing": true,
	"annotate_device_placement": true, "PinToDevice": true,
	"LayoutConstraint": true, "AssumeGatherIndicesInBound": true,
	// Shardy's annotation of a function result's sharding, as JAX 0.11's
	// HLO carries it. (Its GlobalToLocalShape and LocalToGlobalShape
	// around a shard_map body are not: they stand for the partitioner's
	// cut into shards.)
	"xla.sdy.FuncResultSharding": true,
}

// ShardedOver reports the devices a module's shardings spread its arrays
// over (the most any sharding={devices=[...]...} names; 0 when every array
// is replicated or none is annotated), and one such sharding.
func ShardedOver(m *Module) (n int, example string) {
	for _, c := range m.Computations {
		for _, in := range c.Instructions {
			v, ok := in.Attr("sharding")
			if !ok {
				continue
			}
			_, rest, ok := strings.Cut(v, "devices=[")
			if !ok {
				continue
			}
			dims, _, _ := strings.Cut(rest, "]")
			k := 1
			for _, f := range strings.Split(dims, ",") {
				d, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || d < 1 || d > MaxDevices {
					k = 0
					break
				}
				k *= d
			}
			if k > n {
				n, example = k, v
			}
		}
	}
	return n, example
}

// IsIdentityTarget reports whether a custom call to target (unquoted)
// moves or annotates data without changing it on one device: sharding
// annotations and Shardy's propagation barriers, host offload markers and
// placements, Neuron's transfers, layout constraints, XLA's promise that
// gather indices are in bounds.
func IsIdentityTarget(target string) bool { return identityCustomCalls[target] }

// IsIdentityCall reports whether in is a custom call of an identity target
// (IsIdentityTarget) with one operand, whose value is its operand.
func IsIdentityCall(in *Instruction) bool {
	t, _ := in.Attr("custom_call_target")
	return in.Opcode == OpCustomCall && identityCustomCalls[strings.Trim(t, `"`)] && len(in.Operands) == 1
}

// CalledBy lists the computations an instruction names.
func (m *Module) CalledBy(in *Instruction) []*Computation {
	var out []*Computation
	for _, a := range in.Attrs {
		switch a.Key {
		case "to_apply", "calls", "condition", "body", "select", "scatter", "true_computation",
			"false_computation", "branch_computations", "comparator":
			for _, n := range strings.Split(strings.Trim(a.Value, "{}"), ",") {
				if callee := m.Computation(strings.TrimPrefix(strings.TrimSpace(n), "%")); callee != nil {
					out = append(out, callee)
				}
			}
		}
	}
	return out
}

// CalleesFirst orders m's computations so that each follows those it
// calls, otherwise keeping the module's order; a cycle (which the verifier
// refuses) is broken where it closes, and onCycle, when not nil, is told
// the computation called again and the instruction that calls it.
func (m *Module) CalleesFirst(onCycle func(c *Computation, at *Instruction)) []*Computation {
	const (
		unseen = iota
		active
		done
	)
	state := map[*Computation]int{}
	var order []*Computation
	var visit func(c *Computation, at *Instruction)
	visit = func(c *Computation, at *Instruction) {
		switch state[c] {
		case active:
			if onCycle != nil {
				onCycle(c, at)
			}
			return
		case done:
			return
		}
		state[c] = active
		for _, in := range c.Instructions {
			for _, callee := range m.CalledBy(in) {
				visit(callee, in)
			}
		}
		state[c] = done
		order = append(order, c)
	}
	for _, c := range m.Computations {
		visit(c, nil)
	}
	return order
}

// Callee is the computation named by w's attribute key, or nil.
func (m *Module) Callee(w *Instruction, key string) *Computation {
	v, ok := w.Attr(key)
	if !ok {
		return nil
	}
	return m.Computation(strings.TrimPrefix(v, "%"))
}

// BinaryCombiner returns the opcode of c when c is one binary op of its
// two parameters, p0 and p1 in either order, and nothing else (a
// reducer or scatter combiner such as add or maximum); "" otherwise.
func BinaryCombiner(c *Computation) string {
	if c == nil || c.Root == nil || len(c.Instructions) != 3 || len(c.Root.Operands) != 2 {
		return ""
	}
	params := 0
	for _, in := range c.Instructions {
		if in.Opcode == OpParameter {
			params++
		}
	}
	if params != 2 || c.Root.Opcode == OpParameter || c.Root.Operands[0].Name == c.Root.Operands[1].Name {
		return ""
	}
	return c.Root.Opcode
}
