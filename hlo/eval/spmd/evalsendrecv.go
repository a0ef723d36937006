package spmd

import (
	"fmt"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
)

// Sends and recvs between devices (not is_host_transfer): XLA's
// point-to-point transfers, which its collective-permute decomposer and
// pipeline parallelism emit. Each names its (source, target) pairs in the
// frontend attribute _xla_send_recv_source_target_pairs, as global device
// ids (replica*partitions + partition, so replica ids with one partition
// and partition ids with one replica). A send never waits: its data is
// posted to each target; the k-th recv from a source takes the k-th send
// from it to this device, waiting until it comes — in order per pair of
// devices, as NCCL matches them, whatever the channel_ids (XLA's pipeline
// tests pair a send of channel 1 with a recv of channel 2). A device that
// is no pair's target receives zeros.

// Transfer evaluates a send or recv between devices (Device).
func (c *deviceCtx) Transfer(e *eval.Evaluator, in *hlo.Instruction, ops []*eval.Value) (*eval.Value, error) {
	s := in.Shape
	pairs, err := hlo.SendRecvPairs(in)
	if err != nil {
		return nil, e.Fail(in, "%v", err)
	}
	n := c.fabric.devs.N()
	for _, p := range pairs {
		if p[0] >= n || p[1] >= n {
			return nil, e.Fail(in, "_xla_send_recv_source_target_pairs name device %d; the module runs on %d (%s)", max(p[0], p[1]), n, c.fabric.devs)
		}
	}
	f := c.fabric
	if in.Opcode == hlo.OpSend {
		data := eval.CopyValue(eval.Unpacked(ops[0]))
		f.mu.Lock()
		for _, p := range pairs {
			if p[0] != c.id {
				continue
			}
			pair := mailKey{c.id, p[1], 0}
			k := mailKey{c.id, p[1], c.sent[pair]}
			c.sent[pair]++
			f.mail[k] = data
			if w, ok := f.waiting[p[1]]; ok && w.mail == k {
				f.wake(p[1])
			}
		}
		f.cond.Broadcast()
		f.mu.Unlock()
		return eval.TransferTuple(s, ops[0]), nil
	}
	from := -1
	for _, p := range pairs {
		if p[1] == c.id {
			if from >= 0 {
				return nil, e.Fail(in, "device %d receives from both %d and %d", c.id, from, p[0])
			}
			from = p[0]
		}
	}
	if from < 0 {
		return eval.TransferTuple(s, eval.ZerosOf(s.Tuple[0])), nil
	}
	pair := mailKey{from, c.id, 0}
	k := mailKey{from, c.id, c.received[pair]}
	c.received[pair]++
	f.mu.Lock()
	defer f.mu.Unlock()
	arrived := func() bool { return f.mail[k] != nil }
	describe := func() string {
		return fmt.Sprintf("device %d waits for send %d from device %d, which never comes", c.id, k.k+1, from)
	}
	if !arrived() && !f.block(c.id, wait{in, describe, k}, arrived) {
		return nil, errStalled
	}
	v := f.mail[k]
	delete(f.mail, k)
	if !hlo.SameShape(v.Shape, s.Tuple[0]) {
		return nil, e.Fail(in, "receives %s from device %d, which sent %s", s.Tuple[0], from, v.Shape)
	}
	return eval.TransferTuple(s, v), nil
}
