package hlo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Devices is the set of devices an SPMD module runs on: every device runs
// the same program, replica-id and partition-id tell them apart, and
// collectives move data between them. A device's global (flattened) id is
// replica*Partitions + partition, as XLA numbers them for
// use_global_device_ids.
type Devices struct {
	Replicas, Partitions int
}

// N is the number of devices.
func (d Devices) N() int { return max(d.Replicas, 1) * max(d.Partitions, 1) }

func (d Devices) String() string {
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	return plural(max(d.Replicas, 1), "replica") + " x " + plural(max(d.Partitions, 1), "partition")
}

// MaxDevices bounds the devices a module may ask for: each is a whole
// evaluator (or chip) on the host.
const MaxDevices = 1024

// ModuleDevices reads the devices a module declares (replica_count,
// num_partitions; 1 each when absent).
func ModuleDevices(m *Module) (Devices, error) {
	d := Devices{1, 1}
	for _, k := range []struct {
		key string
		to  *int
	}{{"replica_count", &d.Replicas}, {"num_partitions", &d.Partitions}} {
		v, ok := m.Attr(k.key)
		if !ok {
			continue
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil || x < 1 || x > MaxDevices {
			return d, fmt.Errorf("module attribute %s=%s: want a count from 1 to %d", k.key, v, MaxDevices)
		}
		*k.to = int(x)
	}
	if d.N() > MaxDevices {
		return d, fmt.Errorf("the module runs on %d devices (%s); at most %d are simulated", d.N(), d, MaxDevices)
	}
	return d, nil
}

// ImpliedDevices is the fewest devices the module's collectives need, by
// their replica groups and, for all-gathers and reduce-scatters, their
// shapes: replicas for the cross-replica ones, partitions for the
// cross-partition ones (a collective-permute with a channel_id), and for a
// channel_id collective of replica groups, the partitions each group
// spans; 1 x 1 when nothing says more. A module dumped from a test whose
// device count is set by the harness, not the module, declares nothing.
func ImpliedDevices(m *Module) Devices {
	d := Devices{1, 1}
	flat := 1
	for _, c := range m.Computations {
		shapes := map[string]*Shape{}
		for _, in := range c.Instructions {
			shapes[in.Name] = in.Shape
			var ops []*Shape
			for _, o := range in.Operands {
				ops = append(ops, shapes[o.Name])
			}
			n := int(min(CollectiveSpan(in, ops), MaxDevices))
			if n < 2 {
				continue
			}
			named, size := groupExtent(in)
			mode, _ := modeOf(in)
			if in.Opcode == OpSend || in.Opcode == OpRecv {
				mode = flattenedID
			}
			switch mode {
			case crossPartition:
				d.Partitions = max(d.Partitions, n)
			case flattenedID:
				flat = max(flat, n)
			case crossReplicaAndPartition:
				// Each group is its replicas times every partition.
				d.Replicas = max(d.Replicas, named)
				if size > 0 && n > size && n%size == 0 {
					d.Partitions = max(d.Partitions, n/size)
				} else if size == 0 {
					d.Replicas = max(d.Replicas, n)
				}
			default:
				d.Replicas = max(d.Replicas, n)
			}
		}
	}
	if d.N() < flat {
		d.Replicas = (flat + d.Partitions - 1) / d.Partitions
	}
	return d
}

// groupExtent is the number of ids a collective's replica groups name (the
// largest plus one) and the size of its largest group; 0, 0 when they are
// empty or unreadable.
func groupExtent(in *Instruction) (named, size int) {
	v, _ := in.Attr("replica_groups")
	groups, err := ParseReplicaGroups(v)
	if err != nil {
		return 0, 0
	}
	for _, g := range groups {
		size = max(size, len(g))
		for _, id := range g {
			named = max(named, id+1)
		}
	}
	return named, size
}

// CollectiveSpan is how many devices one collective names at least: its
// largest group, a permute's largest id plus one, and for
// all-gathers and reduce-scatters how many operands the result holds (or
// the operand results); 1 for other ops.
func CollectiveSpan(in *Instruction, operands []*Shape) int64 {
	base := strings.TrimSuffix(in.Opcode, "-start")
	if (in.Opcode == OpSend || in.Opcode == OpRecv) && !IsHostTransfer(in) {
		n := int64(1)
		pairs, _ := SendRecvPairs(in)
		for _, p := range pairs {
			n = max(n, int64(p[0])+1, int64(p[1])+1)
		}
		return n
	}
	if !collectives[in.Opcode] && base != "ragged-all-to-all" || strings.HasSuffix(in.Opcode, "-done") {
		return 1
	}
	named, size := groupExtent(in)
	n := max(1, int64(size))
	if n > 1 {
		// (Groups of one, {{0},{1}}, leave each device alone: device 0's
		// results are computed on one.)
		n = max(n, int64(named))
	}
	if base == "collective-permute" {
		n = max(n, maxGroupID(in)+1)
	}
	res := in.Shape
	if res != nil && res.IsTuple && in.Opcode != base && len(operands) == 1 && len(res.Tuple) >= 2 {
		res = res.Tuple[1] // an older -start's (operand, result, ...)
	}
	for k, o := range operands {
		r := res
		if res != nil && res.IsTuple && len(res.Tuple) == len(operands) {
			r = res.Tuple[k]
		}
		n = max(n, collectiveShards(base, o, r))
	}
	return n
}

// maxGroupID is the largest device id a collective's groups or pairs name
// (-1 when none).
func maxGroupID(in *Instruction) int64 {
	top := int64(-1)
	for _, k := range []string{"replica_groups", "source_target_pairs"} {
		v, ok := in.Attr(k)
		if !ok || strings.HasPrefix(v, "[") {
			continue
		}
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '{' || r == '}' || r == ',' || r == ' ' }) {
			if x, err := strconv.ParseInt(f, 10, 64); err == nil {
				top = max(top, x)
			}
		}
	}
	return top
}

// groupMode is how a collective's replica groups name devices, as XLA's
// GetCollectiveOpGroupMode says: by whether it has a channel_id and, for
// the ops that have the attribute (all-reduce, reduce-scatter,
// all-gather), use_global_device_ids.
type groupMode int

const (
	crossReplica             groupMode = iota // groups of replica ids, within each partition
	crossPartition                            // groups of partition ids, within each replica
	crossReplicaAndPartition                  // groups of replica ids, each with every partition
	flattenedID                               // groups of global device ids
)

func modeOf(in *Instruction) (groupMode, error) {
	_, channel := in.Attr("channel_id")
	global := false
	if v, ok := in.Attr("use_global_device_ids"); ok {
		global = v == "true"
	}
	base := strings.TrimSuffix(in.Opcode, "-start")
	switch base {
	case "all-reduce", "reduce-scatter", "all-gather":
	default:
		// Ops without use_global_device_ids (all-to-all, the permutes,
		// collective-broadcast): a channel_id makes them cross-partition.
		if channel {
			return crossPartition, nil
		}
		return crossReplica, nil
	}
	switch {
	case global && !channel:
		return 0, fmt.Errorf("use_global_device_ids needs a channel_id")
	case global:
		return flattenedID, nil
	case channel:
		return crossReplicaAndPartition, nil
	}
	return crossReplica, nil
}

// ParseReplicaGroups reads replica_groups: listed ({{0,1},{2,3}}), empty
// ({} : nil), XLA's iota form [G,S]<=[dims] with an optional
// transpose T(perm): the ids 0..n-1 laid out as dims, transposed, cut into
// G groups of S, or its mesh form (meshGroups).
func ParseReplicaGroups(v string) ([][]int, error) {
	v = strings.ReplaceAll(v, " ", "")
	if v == "" || v == "{}" || v == "{{}}" {
		return nil, nil
	}
	if strings.HasPrefix(v, "[") {
		return iotaGroups(v)
	}
	if strings.HasPrefix(v, "mesh[") {
		return meshGroups(v)
	}
	if !strings.HasPrefix(v, "{") || !strings.HasSuffix(v, "}") {
		return nil, fmt.Errorf("replica_groups %s: want {{...},...}, [G,S]<=[N] or mesh[...] {...}", v)
	}
	var groups [][]int
	for _, g := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}"), "}") {
		g = strings.Trim(g, "{,")
		if g == "" {
			continue
		}
		var ids []int
		for _, f := range strings.Split(g, ",") {
			x, err := strconv.Atoi(f)
			if err != nil || x < 0 || x >= MaxDevices {
				return nil, fmt.Errorf("replica_groups %s: %q is not a device id", v, f)
			}
			ids = append(ids, x)
		}
		groups = append(groups, ids)
	}
	return groups, nil
}

// transposedOrder lists, for each element of an array of dims transposed
// by perm (row-major), the index of its source element.
func transposedOrder(dims []int64, perm []int) []int {
	st := Strides(dims)
	tdims := make([]int64, len(dims))
	for i, p := range perm {
		tdims[i] = dims[p]
	}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	idx := make([]int64, len(dims))
	out := make([]int, n)
	for k := range out {
		// Element k of the transposed array is the source element whose
		// index along perm[i] is the transposed index along i.
		Unflatten(int64(k), tdims, idx)
		var at int64
		for i, p := range perm {
			at += idx[i] * st[p]
		}
		out[k] = int(at)
	}
	return out
}

func iotaGroups(v string) ([][]int, error) {
	bad := fmt.Errorf("replica_groups %s: want [G,S]<=[dims] or [G,S]<=[dims]T(perm)", v)
	shape, rest, ok := strings.Cut(v, "<=")
	if !ok {
		return nil, bad
	}
	gs, err := intList(strings.Trim(shape, "[]"))
	if err != nil || len(gs) != 2 || gs[0] < 1 || gs[1] < 1 || gs[0]*gs[1] > MaxDevices {
		return nil, bad
	}
	dimText, permText, hasT := strings.Cut(rest, "T")
	dims, err := intList(strings.Trim(dimText, "[]"))
	if err != nil || len(dims) == 0 {
		return nil, bad
	}
	perm := make([]int, len(dims))
	for i := range perm {
		perm[i] = i
	}
	if hasT {
		if perm, err = intList(strings.Trim(permText, "()")); err != nil || len(perm) != len(dims) {
			return nil, bad
		}
	}
	n := 1
	for _, d := range dims {
		if d < 1 || d > MaxDevices {
			return nil, bad
		}
		n *= d
		if n > MaxDevices {
			return nil, bad
		}
	}
	if n != gs[0]*gs[1] {
		return nil, bad
	}
	seen := make([]bool, len(dims))
	for _, p := range perm {
		if p < 0 || p >= len(dims) || seen[p] {
			return nil, bad
		}
		seen[p] = true
	}
	src := make([]int64, len(dims))
	for i, d := range dims {
		src[i] = int64(d)
	}
	ids := transposedOrder(src, perm)
	groups := make([][]int, gs[0])
	for g := range groups {
		groups[g] = ids[g*gs[1] : (g+1)*gs[1]]
	}
	return groups, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// Participants returns the global ids of the devices that take part with
// device self in the collective in, in the group's order (which is the
// order all-gather concatenates and reduce-scatter deals in), as XLA's
// GetParticipatingDevices does.
func (d Devices) Participants(in *Instruction, self int) ([]int, error) {
	mode, err := modeOf(in)
	if err != nil {
		return nil, err
	}
	R, P := max(d.Replicas, 1), max(d.Partitions, 1)
	r, p := self/P, self%P
	v, _ := in.Attr("replica_groups")
	groups, err := ParseReplicaGroups(v)
	if err != nil {
		return nil, err
	}
	// The id this device is known by in its groups, and how many there are.
	var mine, count int
	switch mode {
	case crossReplica, crossReplicaAndPartition:
		mine, count = r, R
	case crossPartition:
		mine, count = p, P
	case flattenedID:
		if len(groups) == 0 {
			return nil, fmt.Errorf("use_global_device_ids with empty replica_groups")
		}
		mine, count = self, R*P
	}
	var group []int
	if len(groups) == 0 {
		for i := range count {
			group = append(group, i)
		}
	}
	seen := map[int]bool{}
	for _, g := range groups {
		for _, id := range g {
			if id >= count {
				return nil, fmt.Errorf("replica_groups name device %d; the module runs on %s", id, d)
			}
			if seen[id] {
				return nil, fmt.Errorf("replica_groups name %d twice", id)
			}
			seen[id] = true
		}
		if slices.Contains(g, mine) {
			group = g
		}
	}
	if group == nil {
		return nil, fmt.Errorf("replica_groups %s leave out %d of %s", v, mine, d)
	}
	var out []int
	for _, id := range group {
		switch mode {
		case crossReplica:
			out = append(out, id*P+p)
		case crossPartition:
			out = append(out, r*P+id)
		case crossReplicaAndPartition:
			for q := range P {
				out = append(out, id*P+q)
			}
		case flattenedID:
			out = append(out, id)
		}
	}
	return out, nil
}

// PermuteDomain returns the devices a collective-permute on device self
// exchanges with (its partition's replicas, or its replica's partitions
// with a channel_id) and, for each, the id its source_target_pairs use.
func (d Devices) PermuteDomain(in *Instruction, self int) (domain []int, source int, err error) {
	mode, _ := modeOf(in)
	R, P := max(d.Replicas, 1), max(d.Partitions, 1)
	r, p := self/P, self%P
	mine, count := r, R
	if mode == crossPartition {
		mine, count = p, P
	}
	for i := range count {
		if mode == crossPartition {
			domain = append(domain, r*P+i)
		} else {
			domain = append(domain, i*P+p)
		}
	}
	v, _ := in.Attr("source_target_pairs")
	pairs, err := ParseReplicaGroups(v)
	if err != nil {
		return nil, 0, fmt.Errorf("source_target_pairs: %v", err)
	}
	source = -1
	targets := map[int]bool{}
	for _, pr := range pairs {
		if len(pr) != 2 {
			return nil, 0, fmt.Errorf("source_target_pairs %s: want {source,target} pairs", v)
		}
		if top := max(pr[0], pr[1]); top >= count {
			what := "replicas (without a channel_id the ids are replica ids)"
			if mode == crossPartition {
				what = "partitions (with a channel_id the ids are partition ids)"
			}
			return nil, 0, fmt.Errorf("source_target_pairs name device %d; the module has %d %s", top, count, what)
		}
		if targets[pr[1]] {
			return nil, 0, fmt.Errorf("source_target_pairs %s: %d receives twice", v, pr[1])
		}
		targets[pr[1]] = true
		if pr[1] == mine {
			source = pr[0]
		}
	}
	return domain, source, nil
}
