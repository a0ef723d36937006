package lowering

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Infeed and outfeed: the host program's queues, in host memory.
//
// Host memory (isa.HOST, memory.host_bytes) is reached by DMA through the
// host link (host.*: each way a bus of link_gbps, latency_ns after a
// transfer). Its lower half holds the infeed queue, which the runtime
// fills with the records it is given before the run; its upper half the
// outfeed queue, which the runtime reads after it. Each queue is at most
// 2 GiB (a tile's base register is a signed 32-bit offset). The bytes of
// each queue used so far live in a program-wide s32[2] in HBM, zeroed with
// the program: an infeed copies the record at its cursor into the
// infeed's buffers and advances it, in a loop as outside one. Reading
// past the records supplied reads host bytes nobody wrote, a fault the
// runtime names (host memory tracks written bytes, ref.Memory.Track). An
// outfeed record starts with its outfeed's number (s32, padded to 8
// bytes), so that the runtime can tell records of different shapes apart.
// Host sends and recvs (is_host_transfer=true) are outfeeds and infeeds of
// their data.

// maxFeedBytes bounds each queue.
const maxFeedBytes = 1<<31 - 8

// feedAlign aligns every array of a record (the widest element is 8 bytes).
const feedAlign = 8

// Feeds is where a program's infeed and outfeed queues live in host
// memory; Compiled.Feeds is nil when the program has neither.
type Feeds struct {
	InfeedBase, InfeedBytes   int64 // the infeed queue's region
	OutfeedBase, OutfeedBytes int64 // the outfeed queue's region
	// State is the s32[2] tensor holding the bytes used of each queue
	// (infeed, outfeed).
	State string
	// Infeed lists the data shapes the infeeds read; Outfeed the data
	// shape of each outfeed record number.
	Infeed  []*hlo.Shape
	Outfeed []*hlo.Shape
}

// FeedLeaf is one array of a record: its byte offset in the record (after
// an outfeed record's header), shape and machine dtype.
type FeedLeaf struct {
	Offset int64
	Shape  *hlo.Shape
	DType  isa.DType
}

// OutfeedHeader is the bytes before an outfeed record's arrays.
const OutfeedHeader = feedAlign

// FeedRecord lays out a record of data shape s: its arrays depth first,
// each aligned to 8 bytes; bytes is the record's size, a multiple of 8.
func FeedRecord(s *hlo.Shape) (leaves []FeedLeaf, bytes int64, err error) {
	var walk func(s *hlo.Shape) error
	walk = func(s *hlo.Shape) error {
		if s.IsTuple {
			for _, t := range s.Tuple {
				if err := walk(t); err != nil {
					return err
				}
			}
			return nil
		}
		if s.Elem == hlo.Token {
			return nil
		}
		dt, ok := dtypeOf(s.Elem)
		if !ok {
			return fmt.Errorf("element type %s has no Pulse dtype (%s)", s.Elem, dtypeNames())
		}
		leaves = append(leaves, FeedLeaf{Offset: bytes, Shape: s, DType: dt})
		bytes += (s.Elems()*int64(dt.Size()) + feedAlign - 1) / feedAlign * feedAlign
		return nil
	}
	err = walk(s)
	return leaves, bytes, err
}

// feeds returns the program's queues, set up at the first infeed or
// outfeed: the regions and the zeroed cursor state.
func (c *compiler) feeds(in *hlo.Instruction) (*Feeds, error) {
	if f := c.res.Feeds; f != nil {
		return f, nil
	}
	if c.onDevices() {
		return nil, c.fail(in, "infeed and outfeed on %d devices are not simulated (each device would need its own host queues)", c.devs.N())
	}
	h := c.chip.Memory.HostBytes
	if c.chip.Host.LinkGBps <= 0 || h < 2*feedAlign {
		return nil, c.fail(in, "the chip has no host link to feed (host.link_gbps %g, memory.host_bytes %d)", c.chip.Host.LinkGBps, h)
	}
	// Arrays moved to the host (offload.go) take the bottom of host memory.
	low := c.offloadBytes()
	if h-low < 2*feedAlign {
		return nil, c.fail(in, "no host memory is left for the infeed and outfeed queues: the arrays moved to the host take %d of memory.host_bytes %d", low, h)
	}
	half := min((h-low)/2/feedAlign*feedAlign, maxFeedBytes)
	st, err := c.alloc(&hlo.Instruction{Pos: in.Pos, Name: "feed_state"}, &hlo.Shape{Elem: "s32", Dims: []int64{2}}, zeroInit)
	if err != nil {
		return nil, err
	}
	c.res.Feeds = &Feeds{InfeedBase: low, InfeedBytes: half, OutfeedBase: h - half, OutfeedBytes: half, State: st.tensor}
	c.feedState = st
	return c.res.Feeds, nil
}

// feedLeaves pairs a record's layout with the buffers of value v (the
// arrays of an infeed's data, or of an outfeed's operand).
func (c *compiler) feedLeaves(in *hlo.Instruction, s *hlo.Shape, v *value) ([]FeedLeaf, []*value, int64, error) {
	leaves, bytes, err := FeedRecord(s)
	if err != nil {
		return nil, nil, 0, c.fail(in, "%v", err)
	}
	var bufs []*value
	var walk func(v *value)
	walk = func(v *value) {
		if v == nil {
			return
		}
		if v.tuple != nil || v.shape != nil && v.shape.IsTuple {
			for _, t := range v.tuple {
				walk(t)
			}
			return
		}
		if v.shape != nil && v.shape.Elem == hlo.Token {
			return
		}
		bufs = append(bufs, v)
	}
	walk(v)
	if len(bufs) != len(leaves) {
		return nil, nil, 0, c.fail(in, "its data has %d arrays, its shape %d", len(bufs), len(leaves))
	}
	return leaves, bufs, bytes, nil
}

// infeed lowers infeed: the next record of the host's queue into fresh
// buffers, returned with a token.
func (c *compiler) infeed(in *hlo.Instruction) error {
	s := in.Shape
	if !s.IsTuple || len(s.Tuple) != 2 {
		return c.fail(in, "returns (data, token), not %s", s)
	}
	data, err := c.readRecord(in, s.Tuple[0])
	if err != nil {
		return err
	}
	c.bufs[in.Name] = &value{shape: s, tuple: []*value{data, {shape: s.Tuple[1], empty: true}}}
	return nil
}

// readRecord emits the kernel that copies the next infeed record, of data
// shape s, into fresh buffers, and returns them.
func (c *compiler) readRecord(in *hlo.Instruction, s *hlo.Shape) (*value, error) {
	f, err := c.feeds(in)
	if err != nil {
		return nil, err
	}
	data, err := c.alloc(in, s, "")
	if err != nil {
		return nil, err
	}
	leaves, bufs, bytes, err := c.feedLeaves(in, s, data)
	if err != nil {
		return nil, err
	}
	if bytes > f.InfeedBytes {
		return nil, c.fail(in, "a record of %d bytes does not fit the infeed queue's %d", bytes, f.InfeedBytes)
	}
	f.Infeed = appendShape(f.Infeed, s)
	c.feedKernel(in, "infeed", leaves, bytes, 0, func(emit func(string, ...any)) int {
		n := 0
		for i, l := range leaves {
			if !bufs[i].empty {
				n += c.hostCopy(emit, bufs[i], f.InfeedBase+l.Offset, false)
			}
		}
		return n
	})
	return data, nil
}

// outfeed lowers outfeed: its data, after its record number, onto the
// host's queue; it returns a token.
func (c *compiler) outfeed(in *hlo.Instruction) error {
	if len(in.Operands) < 1 {
		return c.fail(in, "outfeed takes its data and a token")
	}
	if _, err := c.writeRecord(in, in.Operands[0]); err != nil {
		return err
	}
	c.bufs[in.Name] = &value{shape: in.Shape, empty: true}
	return nil
}

// writeRecord emits the kernel that appends operand o's data to the
// outfeed queue as a record, and returns that data.
func (c *compiler) writeRecord(in *hlo.Instruction, o *hlo.Operand) (*value, error) {
	f, err := c.feeds(in)
	if err != nil {
		return nil, err
	}
	data := c.bufs[o.Name]
	s := o.Shape
	if s == nil && data != nil {
		s = data.shape
	}
	if s == nil {
		return nil, c.fail(in, "its data has no shape")
	}
	leaves, bufs, bytes, err := c.feedLeaves(in, s, data)
	if err != nil {
		return nil, err
	}
	bytes += OutfeedHeader
	if bytes > f.OutfeedBytes {
		return nil, c.fail(in, "a record of %d bytes does not fit the outfeed queue's %d", bytes, f.OutfeedBytes)
	}
	id := len(f.Outfeed)
	f.Outfeed = append(f.Outfeed, s)
	c.feedKernel(in, "outfeed", leaves, bytes, 1, func(emit func(string, ...any)) int {
		emit("li      r2, %d", id)
		emit("st      r2, [r0+%#x]", condWord+8)
		emit("dma     host[r1+%#x]:s32[1], smem[%#x]:s32[1] @0 signal s0", f.OutfeedBase, condWord+8)
		n := 1
		for i, l := range leaves {
			if !bufs[i].empty {
				n += c.hostCopy(emit, bufs[i], f.OutfeedBase+OutfeedHeader+l.Offset, true)
			}
		}
		return n
	})
	return data, nil
}

// hostTransfer lowers a send or recv with is_host_transfer=true, and their
// -done ops, onto the host queues: a send is an outfeed of its data, a
// recv an infeed of its data; each returns (data, a zero u32[] context,
// a token); send-done a token, recv-done (data, token).
func (c *compiler) hostTransfer(in *hlo.Instruction) error {
	s := in.Shape
	switch in.Opcode {
	case hlo.OpSend, hlo.OpRecv:
		if s == nil || !s.IsTuple || len(s.Tuple) < 2 || in.Opcode == hlo.OpSend && len(in.Operands) < 1 {
			return c.fail(in, "a host %s returns (data, context, token)", in.Opcode)
		}
		var data *value
		var err error
		if in.Opcode == hlo.OpSend {
			data, err = c.writeRecord(in, in.Operands[0])
		} else {
			data, err = c.readRecord(in, s.Tuple[0])
		}
		if err != nil {
			return err
		}
		v := &value{shape: s, tuple: []*value{data}}
		for _, t := range s.Tuple[1:] {
			e, err := c.alloc(in, t, zeroInit) // the context: zeros (a token: nothing)
			if err != nil {
				return err
			}
			v.tuple = append(v.tuple, e)
		}
		c.bufs[in.Name] = v
	case hlo.OpRecvDone:
		r := c.bufs[in.Operands[0].Name]
		if r == nil || len(r.tuple) < 1 || s == nil || !s.IsTuple || len(s.Tuple) != 2 {
			return c.fail(in, "recv-done takes a host recv and returns (data, token)")
		}
		c.bufs[in.Name] = &value{shape: s, tuple: []*value{r.tuple[0], {shape: s.Tuple[1], empty: true}}}
	default: // send-done
		c.bufs[in.Name] = &value{shape: s, empty: true}
	}
	return nil
}

// arrayBytes is what a record's arrays hold, padding aside.
func arrayBytes(leaves []FeedLeaf) int64 {
	var n int64
	for _, l := range leaves {
		n += l.Shape.Elems() * int64(l.DType.Size())
	}
	return n
}

// feedKernel emits a queue transfer: the queue's cursor (word k of the
// feed state) into r1, the DMAs body emits (returning how many signal s0),
// the cursor advanced by bytes.
func (c *compiler) feedKernel(in *hlo.Instruction, what string, leaves []FeedLeaf, bytes int64, k int, body func(emit func(string, ...any)) int) {
	c.nlabel++
	// The kernel table's bytes are HBM's: the record's arrays, written by
	// an infeed, read by an outfeed (not its header or padding).
	c.res.Kernels = append(c.res.Kernels, Kernel{Name: in.Name, Kind: "copy", Pos: in.Pos, Bytes: arrayBytes(leaves)})
	fmt.Fprintf(&c.out, "\n; ---- kernel k%d: %s %s (%s:%d), a record of %d bytes through the host link\n", c.nlabel, what, in.Name, c.file, in.Pos.Line, bytes)
	fmt.Fprintf(&c.out, ".origin %q\n", in.Name)
	emit := func(format string, a ...any) {
		c.loc(in)
		fmt.Fprintf(&c.out, "        "+format+"\n", a...)
	}
	cursor := view{v: c.feedState, strides: []int64{1}, off: int64(k)}.operand([]int64{1})
	emit("semset  s0, 0")
	emit("dma     smem[%#x]:s32[1], %s @0 signal s0", condWord, cursor)
	emit("wait    s0, 1")
	emit("ld      r1, [r0+%#x]", condWord)
	if n := body(emit); n > 0 {
		emit("wait    s0, %d", n)
	}
	emit("li      r3, %d", bytes)
	emit("add     r1, r1, r3")
	emit("st      r1, [r0+%#x]", condWord)
	emit("dma     %s, smem[%#x]:s32[1] @0 signal s0", cursor, condWord)
	emit("wait    s0, 1")
	emit("barrier")
}

// hostCopy emits the DMAs between array v and its place in a record at
// host address r1+addr, out when the array goes to the host; it returns
// how many DMAs it emitted.
func (c *compiler) hostCopy(emit func(string, ...any), v *value, addr int64, out bool) int {
	n := v.shape.Elems()
	k := 0
	for off := int64(0); off < n; off += maxTileElems {
		dims := declDims(min(n-off, maxTileElems))
		hbm := view{v: v, strides: hlo.Strides(dims), off: off}.operand(dims)
		host := fmt.Sprintf("host[r1+%#x]:%s[%s]", addr+off*int64(v.dt.Size()), v.dt, joinDims(dims))
		if out {
			emit("dma     %s, %s @0 signal s0", host, hbm)
		} else {
			emit("dma     %s, %s @0 signal s0", hbm, host)
		}
		k++
	}
	return k
}

// appendShape adds s to list unless an equal shape is there.
func appendShape(list []*hlo.Shape, s *hlo.Shape) []*hlo.Shape {
	for _, o := range list {
		if hlo.SameShape(o, s) {
			return list
		}
	}
	return append(list, s)
}
