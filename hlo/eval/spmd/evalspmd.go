package spmd

import (
	"errors"
	"fmt"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"slices"
	"strings"
	"sync"
)

// Evaluating an SPMD module on several devices: one evaluator per device,
// each on its own goroutine, meeting at every collective (as XLA's
// interpreter backend runs replicas on threads). A collective completes
// when every device of its group has reached it; its results depend only
// on what the devices brought, in group order, so the outputs are the same
// whatever the goroutines' schedule. A device that never arrives (it
// finished, failed, or waits at another collective) is found when no
// device can move: the run then reports the first failing device, or the
// collective that can never complete.

// RunDevices evaluates the module on every device of d, args[i] being
// device i's arguments (global id i = replica*Partitions + partition); it
// returns each device's result. The evaluator's settings (limits, seed,
// perturbation) apply to every device; MaxLiveElements is shared among
// them. Infeed records are not given to several devices.
func RunDevices(e *eval.Evaluator, d hlo.Devices, args [][]*eval.Value) ([]*eval.Value, error) {
	n := d.N()
	if n > hlo.MaxDevices {
		return nil, fmt.Errorf("%s: %d devices (%s); at most %d are evaluated", e.File, n, d, hlo.MaxDevices)
	}
	if len(args) != n {
		return nil, fmt.Errorf("%s: %d argument lists for %d devices", e.File, len(args), n)
	}
	if n == 1 {
		v, err := e.Run(args[0])
		return []*eval.Value{v}, err
	}
	if len(e.Infeed) > 0 {
		return nil, fmt.Errorf("%s: infeed records for a module on %d devices: each device's infeed queue would need its own", e.File, n)
	}
	if hlo.HasComplex(e.M) {
		return nil, fmt.Errorf("%s: complex numbers on %d devices are not evaluated", e.File, n)
	}
	limit := e.MaxLiveElements
	if limit == 0 {
		limit = eval.DefaultMaxLiveElements
	}
	f := &fabric{file: e.File, devs: d, running: n, meets: map[meetKey]*meeting{}, mail: map[mailKey]*eval.Value{}, waiting: map[int]wait{}}
	f.cond = sync.NewCond(&f.mu)
	out := make([]*eval.Value, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		dev := &eval.Evaluator{File: e.File, M: e.M, MaxWhileIterations: e.MaxWhileIterations,
			MaxLiveElements: max(limit/int64(n), 1), MaxHeapBytes: e.MaxHeapBytes, Seed: e.Seed, Perturb: e.Perturb}
		if i == 0 {
			dev.Progress = e.Progress // device 0 speaks for all
		}
		dev.Device = &deviceCtx{fabric: f, id: i, seen: map[*hlo.Instruction]int{}, sent: map[mailKey]int{}, received: map[mailKey]int{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = dev.Run(args[i])
			f.finish()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, errStalled) {
			who := fmt.Sprintf("device %d (replica %d, partition %d)", i, i/max(d.Partitions, 1), i%max(d.Partitions, 1))
			var pe *eval.EvalError
			if errors.As(err, &pe) {
				return nil, &eval.EvalError{File: pe.File, Pos: pe.Pos, Msg: who + ": " + pe.Msg}
			}
			return nil, fmt.Errorf("%s: %w", who, err)
		}
	}
	if f.stall != nil {
		return nil, f.stall
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
	}
	return out, nil
}

// deviceCtx is what an evaluator running one device of several knows.
type deviceCtx struct {
	fabric *fabric
	id     int
	seen   map[*hlo.Instruction]int // how often each collective ran here
	// Transfers so far per (from, to) (k 0), sent and received.
	sent, received map[mailKey]int
}

// ID is this device's replica and partition (Device).
func (c *deviceCtx) ID() (replica, partition int) {
	p := max(c.fabric.devs.Partitions, 1)
	return c.id / p, c.id % p
}

// Collective evaluates a collective with the other devices (Device).
func (c *deviceCtx) Collective(e *eval.Evaluator, in *hlo.Instruction, base string, ops []*eval.Value, res *hlo.Shape) (*eval.Value, error) {
	if res == nil {
		res = spmdResultShape(in, base, ops)
	}
	return spmdCollective(e, in, base, ops, res)
}

var errStalled = errors.New("stopped: another device cannot go on")

// fabric is where the devices meet.
type fabric struct {
	file    string
	devs    hlo.Devices
	mu      sync.Mutex
	cond    *sync.Cond
	running int // devices neither finished nor waiting
	meets   map[meetKey]*meeting
	mail    map[mailKey]*eval.Value // sends not yet received
	waiting map[int]wait            // what each waiting device waits for
	stall   error                   // set when no device can move and one waits
}

// A wait says what a device waits for, for the deadlock message.
type wait struct {
	in   *hlo.Instruction
	what func() string
	mail mailKey // the transfer a recv waits for
}

// A meeting is one execution of a collective by one group: the k-th time
// each of its devices runs it.
type meetKey struct {
	in    *hlo.Instruction
	k     int
	first int // the group's first device: groups of one op meet apart
}

type meeting struct {
	in      *hlo.Instruction
	want    []int                 // the group, in order
	brought map[int][]*eval.Value // each device's operands
	results map[int]*eval.Value
	err     error
	done    bool
}

// A mailKey names the k-th transfer from one device to another.
type mailKey struct {
	from, to int
	k        int
}

// finish records that a device's run ended (returned or failed).
func (f *fabric) finish() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running--
	f.checkStall()
}

// block makes the calling device wait (f.mu held) until ready says so or
// no device can move; it reports whether ready.
func (f *fabric) block(id int, w wait, ready func() bool) bool {
	f.running--
	f.waiting[id] = w
	f.checkStall()
	for !ready() && f.stall == nil {
		f.cond.Wait()
	}
	return ready()
}

// wake ends device id's wait (f.mu held).
func (f *fabric) wake(id int) {
	if _, ok := f.waiting[id]; ok {
		delete(f.waiting, id)
		f.running++
	}
}

// checkStall ends every wait when no device can move any more, naming
// what the first waiting device waits for.
func (f *fabric) checkStall() {
	if f.running > 0 || f.stall != nil || len(f.waiting) == 0 {
		return
	}
	first := -1
	for id := range f.waiting {
		if first < 0 || id < first {
			first = id
		}
	}
	w := f.waiting[first]
	f.stall = &eval.EvalError{File: f.file, Pos: w.in.Pos, Msg: fmt.Sprintf("%s: %s: %s (deadlock)", w.in.Name, w.in.Opcode, w.what())}
	f.cond.Broadcast()
}

// meet brings this device's operands to the collective's k-th run with
// group want; the last device to arrive computes every device's result
// with combine. It returns this device's result.
func meet(e *eval.Evaluator, in *hlo.Instruction, want []int, ops []*eval.Value, combine func(brought [][]*eval.Value) ([]*eval.Value, error)) (*eval.Value, error) {
	c := e.Device.(*deviceCtx)
	f := c.fabric
	k := c.seen[in]
	c.seen[in]++
	for i := range ops {
		ops[i] = eval.Unpacked(ops[i])
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key := meetKey{in, k, want[0]}
	m := f.meets[key]
	if m == nil {
		m = &meeting{in: in, want: want, brought: map[int][]*eval.Value{}}
		f.meets[key] = m
	}
	if !slices.Equal(m.want, want) {
		return nil, e.Fail(in, "device %d names the group %v, another device %v", c.id, want, m.want)
	}
	m.brought[c.id] = ops
	if len(m.brought) == len(want) {
		brought := make([][]*eval.Value, len(want))
		for i, id := range want {
			brought[i] = m.brought[id]
		}
		rs, err := combine(brought)
		m.err = err
		if err == nil {
			m.results = map[int]*eval.Value{}
			for i, id := range want {
				m.results[id] = rs[i]
			}
		}
		m.done = true
		for _, id := range want {
			f.wake(id)
		}
		m.brought = nil
		delete(f.meets, key)
		f.cond.Broadcast()
		return m.result(c.id)
	}
	describe := func() string {
		var waiting, missing []int
		for _, id := range m.want {
			if m.brought[id] != nil {
				waiting = append(waiting, id)
			} else {
				missing = append(missing, id)
			}
		}
		return fmt.Sprintf("devices %v wait for devices %v, which finished, failed or wait elsewhere: the devices do not run the same collectives", waiting, missing)
	}
	if !f.block(c.id, wait{in: in, what: describe}, func() bool { return m.done }) {
		return nil, errStalled
	}
	return m.result(c.id)
}

func (m *meeting) result(id int) (*eval.Value, error) {
	if m.err != nil {
		return nil, m.err
	}
	return m.results[id], nil
}

// spmdCollective computes a collective across devices: the value of the
// base op (all-reduce, all-gather, ...) of shape res on this device.
func spmdCollective(e *eval.Evaluator, in *hlo.Instruction, base string, ops []*eval.Value, res *hlo.Shape) (*eval.Value, error) {
	d := e.Device.(*deviceCtx).fabric.devs
	self := e.Device.(*deviceCtx).id
	if base == "collective-permute" {
		if len(ops) != 1 {
			return nil, e.Fail(in, "a collective-permute of %d operands (the in-place form) is not evaluated across devices", len(ops))
		}
		domain, _, err := d.PermuteDomain(in, self)
		if err != nil {
			return nil, e.Fail(in, "%v", err)
		}
		return meet(e, in, domain, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			out := make([]*eval.Value, len(domain))
			for i, id := range domain {
				_, src, _ := d.PermuteDomain(in, id)
				if src < 0 {
					out[i] = eval.ZerosOf(res)
				} else {
					out[i] = &eval.Value{Shape: res, Data: brought[src][0].Data}
				}
			}
			return out, nil
		})
	}
	want, err := d.Participants(in, self)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	if !slices.Contains(want, self) {
		return nil, e.Fail(in, "device %d is not in its own group %v", self, want)
	}
	g := len(want)
	leaf := func(k int) *hlo.Shape { // the shape of result k
		if res.IsTuple {
			return res.Tuple[k]
		}
		return res
	}
	wrap := func(vs []*eval.Value) *eval.Value {
		if res.IsTuple {
			return &eval.Value{Shape: res, Tuple: vs}
		}
		return vs[0]
	}
	for _, o := range ops {
		if o.Shape.IsTuple {
			return nil, e.Fail(in, "a tuple operand is not evaluated across devices")
		}
	}
	if res.IsTuple && len(res.Tuple) != len(ops) && base != "all-to-all" {
		return nil, e.Fail(in, "%d operands, %d results", len(ops), len(res.Tuple))
	}
	dim := int64(-1)
	if ds, err := hlo.ListAttr(in, "dimensions"); err == nil && len(ds) == 1 {
		dim = ds[0]
	}
	switch base {
	case "all-reduce", "reduce-scatter":
		c, err := e.Callee(in, "to_apply")
		if err != nil {
			return nil, err
		}
		if base == "reduce-scatter" && dim < 0 {
			return nil, e.Fail(in, "reduce-scatter needs dimensions={d}")
		}
		return meet(e, in, want, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			sums := make([]*eval.Value, len(ops))
			for k := range ops {
				parts := make([]*eval.Value, g)
				for i := range g {
					parts[i] = brought[i][k]
				}
				s, err := combineAll(e, in, c, parts)
				if err != nil {
					return nil, err
				}
				sums[k] = s
			}
			out := make([]*eval.Value, g)
			for i := range g {
				vs := make([]*eval.Value, len(ops))
				for k, s := range sums {
					if base == "all-reduce" {
						vs[k] = &eval.Value{Shape: leaf(k), Data: s.Data}
						continue
					}
					p, err := sliceBlock(s, dim, i, g, leaf(k))
					if err != nil {
						return nil, e.Fail(in, "%v", err)
					}
					vs[k] = p
				}
				out[i] = wrap(vs)
			}
			return out, nil
		})
	case "all-gather":
		if dim < 0 {
			return nil, e.Fail(in, "all-gather needs dimensions={d}")
		}
		return meet(e, in, want, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			vs := make([]*eval.Value, len(ops))
			for k := range ops {
				parts := make([]*eval.Value, g)
				for i := range g {
					parts[i] = brought[i][k]
				}
				c, err := concatAlong(parts, dim, leaf(k))
				if err != nil {
					return nil, e.Fail(in, "%v", err)
				}
				vs[k] = c
			}
			out := make([]*eval.Value, g)
			for i := range out {
				out[i] = wrap(vs)
			}
			return out, nil
		})
	case "all-to-all":
		return meet(e, in, want, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			out := make([]*eval.Value, g)
			for i := range g {
				if dim < 0 {
					// Tuple form: operand j goes to device j of the group.
					if len(ops) != g || !res.IsTuple || len(res.Tuple) != g {
						return nil, e.Fail(in, "the tuple form takes as many operands as the group has devices (%d)", g)
					}
					vs := make([]*eval.Value, g)
					for j := range g {
						vs[j] = &eval.Value{Shape: res.Tuple[j], Data: brought[j][i].Data}
					}
					out[i] = wrap(vs)
					continue
				}
				// Array form: each device's operand is cut into g blocks
				// along dim; device i gathers block i of each, in order.
				parts := make([]*eval.Value, g)
				for j := range g {
					p, err := sliceBlock(brought[j][0], dim, i, g, nil)
					if err != nil {
						return nil, e.Fail(in, "%v", err)
					}
					parts[j] = p
				}
				c, err := concatAlong(parts, dim, leaf(0))
				if err != nil {
					return nil, e.Fail(in, "%v", err)
				}
				out[i] = c
			}
			return out, nil
		})
	case "ragged-all-to-all":
		return meet(e, in, want, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			return raggedAllToAll(in, brought, res)
		})
	case "collective-broadcast":
		return meet(e, in, want, ops, func(brought [][]*eval.Value) ([]*eval.Value, error) {
			out := make([]*eval.Value, g)
			for i := range out {
				vs := make([]*eval.Value, len(ops))
				for k := range ops {
					vs[k] = &eval.Value{Shape: leaf(k), Data: brought[0][k].Data}
				}
				out[i] = wrap(vs)
			}
			return out, nil
		})
	}
	return nil, e.Fail(in, "%s is not evaluated across devices", in.Opcode)
}

// raggedAllToAll computes a ragged-all-to-all for every device of a group
// from what each brought (input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes): with k updates per peer, sender s's update
// i + j*k goes to the group's j-th device: rows
// input[input_offsets[i+j*k] :][: send_sizes[i+j*k]] (along dimension 0)
// are written at output_offsets[i+j*k] of that device's output, in
// sender order. recv_sizes only describe what arrives.
func raggedAllToAll(in *hlo.Instruction, brought [][]*eval.Value, res *hlo.Shape) ([]*eval.Value, error) {
	g := len(brought)
	out := make([]*eval.Value, g)
	for r := range g {
		if len(brought[r]) != 6 {
			return nil, fmt.Errorf("%s: ragged-all-to-all takes 6 operands, has %d", in.Name, len(brought[r]))
		}
		o := brought[r][1]
		if o.Shape.IsTuple || !hlo.EqualDims(o.Shape.Dims, res.Dims) || len(res.Dims) == 0 {
			return nil, fmt.Errorf("the output operand %s is not the result %s", o.Shape, res)
		}
		out[r] = &eval.Value{Shape: res, Data: slices.Clone(o.Data)}
	}
	row := int64(1)
	for _, x := range res.Dims[1:] {
		row *= x
	}
	for s := range g {
		input, inOff, sizes, outOff := brought[s][0], brought[s][2], brought[s][3], brought[s][4]
		n := len(inOff.Data)
		if n%g != 0 || len(sizes.Data) != n || len(outOff.Data) != n {
			return nil, fmt.Errorf("offsets and sizes of %d, %d and %d updates for a group of %d devices", n, len(sizes.Data), len(outOff.Data), g)
		}
		inRow := int64(1)
		if len(input.Shape.Dims) > 0 {
			for _, x := range input.Shape.Dims[1:] {
				inRow *= x
			}
		}
		if inRow != row {
			return nil, fmt.Errorf("input rows of %d elements, output rows of %d", inRow, row)
		}
		k := n / g
		for u := range n {
			j := u / k
			from, count, at := int64(inOff.Data[u]), int64(sizes.Data[u]), int64(outOff.Data[u])
			if count == 0 {
				continue
			}
			if from < 0 || count < 0 || at < 0 || (from+count)*row > int64(len(input.Data)) || (at+count)*row > int64(len(out[j].Data)) {
				return nil, fmt.Errorf("device %d's update %d (rows %d..%d to rows %d..) falls outside the input's %d or the output's %d rows",
					s, u, from, from+count, at, int64(len(input.Data))/max(row, 1), res.Dims[0])
			}
			copy(out[j].Data[at*row:(at+count)*row], input.Data[from*row:(from+count)*row])
		}
	}
	return out, nil
}

// combineAll folds parts elementwise with the reducer c in group order.
// Float sums accumulate in float64 and round once, as reduce's do.
func combineAll(e *eval.Evaluator, in *hlo.Instruction, c *hlo.Computation, parts []*eval.Value) (*eval.Value, error) {
	elem := parts[0].Shape.Elem
	n := len(parts[0].Data)
	for _, p := range parts {
		if len(p.Data) != n {
			return nil, e.Fail(in, "the devices' operands differ in size (%d and %d elements)", n, len(p.Data))
		}
	}
	out := &eval.Value{Shape: parts[0].Shape, Data: slices.Clone(parts[0].Data)}
	fast := e.Reducer(c)
	accElem := elem
	if fast == "add" && hlo.IsFloat(elem) {
		accElem = "f64"
	}
	args := make([]*eval.Value, 2)
	for _, p := range parts[1:] {
		for j := range out.Data {
			if fast != "" {
				out.Data[j] = eval.ApplyFast(fast, accElem, out.Data[j], p.Data[j], false)
				continue
			}
			args[0], args[1] = eval.Scalar(elem, out.Data[j]), eval.Scalar(elem, p.Data[j])
			v, err := e.Call(c, args)
			if err != nil {
				return nil, err
			}
			out.Data[j] = v.Data[0]
		}
	}
	if accElem != elem {
		for j, x := range out.Data {
			out.Data[j] = hlo.Round(elem, x)
		}
	}
	return out, nil
}

// concatAlong joins parts along dim into an array of shape s.
func concatAlong(parts []*eval.Value, dim int64, s *hlo.Shape) (*eval.Value, error) {
	if dim < 0 || int(dim) >= len(s.Dims) {
		return nil, fmt.Errorf("dimension %d is out of range for %s", dim, s)
	}
	out := eval.NewArray(s)
	inner := int64(1)
	for _, x := range s.Dims[dim+1:] {
		inner *= x
	}
	outer := int64(1)
	for _, x := range s.Dims[:dim] {
		outer *= x
	}
	var total int64
	for _, p := range parts {
		if len(p.Shape.Dims) != len(s.Dims) {
			return nil, fmt.Errorf("a part of rank %d for a result %s", len(p.Shape.Dims), s)
		}
		total += p.Shape.Dims[dim]
	}
	if total != s.Dims[dim] || outer*total*inner != int64(len(out.Data)) {
		return nil, fmt.Errorf("the devices' parts make %d along dimension %d, the result %s has %d", total, dim, s, s.Dims[dim])
	}
	at := int64(0)
	for o := range outer {
		for _, p := range parts {
			w := p.Shape.Dims[dim] * inner
			at += int64(copy(out.Data[at:], p.Data[o*w:(o+1)*w]))
		}
	}
	return out, nil
}

// sliceBlock is block i of g along dim of v (of shape s when s is given).
func sliceBlock(v *eval.Value, dim int64, i, g int, s *hlo.Shape) (*eval.Value, error) {
	dims := v.Shape.Dims
	if dim < 0 || int(dim) >= len(dims) || dims[dim]%int64(g) != 0 {
		return nil, fmt.Errorf("dimension %d of %s does not split into %d blocks", dim, v.Shape, g)
	}
	b := dims[dim] / int64(g)
	nd := slices.Clone(dims)
	nd[dim] = b
	if s == nil {
		s = &hlo.Shape{Elem: v.Shape.Elem, Dims: nd}
	} else if !hlo.EqualDims(s.Dims, nd) {
		return nil, fmt.Errorf("a block of %s along dimension %d is %v, the result is %s", v.Shape, dim, nd, s)
	}
	inner := int64(1)
	for _, x := range dims[dim+1:] {
		inner *= x
	}
	out := eval.NewArray(s)
	w := b * inner
	for o, at := int64(0), int64(0); at < int64(len(out.Data)); o++ {
		from := o*dims[dim]*inner + int64(i)*w
		at += int64(copy(out.Data[at:at+w], v.Data[from:from+w]))
	}
	return out, nil
}

// spmdResultShape is the shape of the base op's value within a -start's
// result (see WrapsOperands).
func spmdResultShape(in *hlo.Instruction, base string, ops []*eval.Value) *hlo.Shape {
	if eval.WrapsOperands(in, base, len(ops), len(ops) > 0 && ops[0].Shape.IsTuple) {
		return in.Shape.Tuple[1]
	}
	return in.Shape
}

// Exchange computes one run of the collective in for the devices that meet
// there, as a simulator's interconnect moves its values: ops[id] is device
// id's operands, and the result is each device's value of the base op
// (all-reduce, all-gather, ...; for an -start form, what its -done half
// returns). The devices given must make up whole groups of in; a device
// whose group is not all there is reported as a deadlock.
func Exchange(e *eval.Evaluator, in *hlo.Instruction, d hlo.Devices, ops map[int][]*eval.Value) (map[int]*eval.Value, error) {
	ids := make([]int, 0, len(ops))
	for id := range ops {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	base := strings.TrimSuffix(in.Opcode, "-start")
	f := &fabric{file: e.File, devs: d, running: len(ids), meets: map[meetKey]*meeting{}, mail: map[mailKey]*eval.Value{}, waiting: map[int]wait{}}
	f.cond = sync.NewCond(&f.mu)
	out := make([]*eval.Value, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		dev := &eval.Evaluator{File: e.File, M: e.M, MaxWhileIterations: e.MaxWhileIterations,
			MaxLiveElements: e.MaxLiveElements, MaxHeapBytes: e.MaxHeapBytes}
		dev.Device = &deviceCtx{fabric: f, id: id, seen: map[*hlo.Instruction]int{}, sent: map[mailKey]int{}, received: map[mailKey]int{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer f.finish()
			o := slices.Clone(ops[id])
			out[i], errs[i] = spmdCollective(dev, in, base, o, spmdResultShape(in, base, o))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, errStalled) {
			return nil, fmt.Errorf("device %d: %w", ids[i], err)
		}
	}
	if f.stall != nil {
		return nil, f.stall
	}
	res := map[int]*eval.Value{}
	for i, id := range ids {
		res[id] = out[i]
	}
	return res, nil
}
