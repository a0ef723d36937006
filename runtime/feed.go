package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/ref"
)

// The host side of infeed and outfeed (lowering/feed.go): the records
// given are laid into the infeed queue in host memory before the run, the
// outfeed queue is read after it.

// checkInfeed refuses records the program's infeeds cannot read: every
// record must have one of their shapes, and all of them must fit the
// queue. (Which infeed reads which record is the program's order; with
// several shapes, the reference evaluator checks it.)
func checkInfeed(f *lowering.Feeds, recs []*eval.Value) error {
	if len(recs) == 0 {
		return nil
	}
	if f == nil || len(f.Infeed) == 0 {
		return fmt.Errorf("%d infeed records given, and the program has no infeed", len(recs))
	}
	var total int64
	for i, r := range recs {
		var fits *hlo.Shape
		for _, s := range f.Infeed {
			if r != nil && r.Shape != nil && hlo.SameShape(r.Shape, s) {
				fits = s
			}
		}
		if fits == nil {
			var names []string
			for _, s := range f.Infeed {
				names = append(names, s.String())
			}
			got := "no value"
			if r != nil && r.Shape != nil {
				got = r.Shape.String()
			}
			return fmt.Errorf("infeed record %d is %s; the program's infeeds read %s", i, got, strings.Join(names, " or "))
		}
		_, n, err := lowering.FeedRecord(fits)
		if err != nil {
			return err
		}
		total += n
	}
	if total > f.InfeedBytes {
		return fmt.Errorf("the %d infeed records take %d bytes, more than the infeed queue's %d (half of memory.host_bytes, at most 2 GiB)", len(recs), total, f.InfeedBytes)
	}
	return nil
}

// writeInfeed lays the records into the infeed queue, one after another.
func writeInfeed(a *ref.Machine, f *lowering.Feeds, recs []*eval.Value) error {
	if len(recs) == 0 {
		return nil
	}
	at := f.InfeedBase
	for i, r := range recs {
		leaves, n, err := lowering.FeedRecord(r.Shape)
		if err != nil {
			return err
		}
		var vals []*eval.Value
		for _, v := range eval.Leaves(r) {
			if v.Shape == nil || v.Shape.Elem != hlo.Token {
				vals = append(vals, v)
			}
		}
		if len(vals) != len(leaves) {
			return fmt.Errorf("infeed record %d: %d arrays for a shape of %d", i, len(vals), len(leaves))
		}
		for k, l := range leaves {
			if err := a.WriteAt(isa.HOST, at+l.Offset, l.DType, MachineValues(l.DType, vals[k].Data)); err != nil {
				return fmt.Errorf("infeed record %d: %v", i, err)
			}
		}
		at += n
	}
	return nil
}

// readOutfeed reads the records the program's outfeeds sent.
func readOutfeed(a *ref.Machine, f *lowering.Feeds) ([]*eval.Value, error) {
	if f == nil || len(f.Outfeed) == 0 {
		return nil, nil
	}
	cur, _, err := a.ReadTensor(f.State)
	if err != nil {
		return nil, err
	}
	used := int64(cur[1])
	var out []*eval.Value
	for at := int64(0); at < used; {
		id, err := a.ReadAt(isa.HOST, f.OutfeedBase+at, isa.S32, 1)
		if err != nil {
			return nil, err
		}
		k := int(id[0])
		if k < 0 || k >= len(f.Outfeed) {
			return nil, fmt.Errorf("outfeed queue: record at byte %d has number %d, and the program has %d outfeeds", at, k, len(f.Outfeed))
		}
		s := f.Outfeed[k]
		leaves, n, err := lowering.FeedRecord(s)
		if err != nil {
			return nil, err
		}
		var vals []*eval.Value
		for _, l := range leaves {
			d, err := a.ReadAt(isa.HOST, f.OutfeedBase+at+lowering.OutfeedHeader+l.Offset, l.DType, l.Shape.Elems())
			if err != nil {
				return nil, err
			}
			vals = append(vals, &eval.Value{Shape: l.Shape, Data: d})
		}
		out = append(out, eval.Assemble(s, vals))
		at += lowering.OutfeedHeader + n
	}
	return out, nil
}

// feedFault names the host queues' faults for what they are: a read of
// host bytes past the infeed records supplied (an empty infeed queue), a
// write past the end of host memory (a full outfeed queue).
func feedFault(err error, f *lowering.Feeds, n int) error {
	var fa *ref.Fault
	if f == nil || !errors.As(err, &fa) {
		return err
	}
	if fa.Addr >= f.OutfeedBase && strings.Contains(fa.Msg, "reaches outside host") {
		return fmt.Errorf("%w\nthe outfeed queue is full: the program sends more than its %d bytes (half of memory.host_bytes, at most 2 GiB)", err, f.OutfeedBytes)
	}
	if fa.Addr < f.InfeedBase || fa.Addr >= f.InfeedBase+f.InfeedBytes ||
		!strings.Contains(fa.Msg, "read of host that was never written") {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w\nthe infeed queue is empty: the program reads a record, and none were supplied (pulse: --infeed DIR or --random-infeed N)", err)
	}
	return fmt.Errorf("%w\nthe infeed queue is empty: the program reads past the %d records supplied", err, n)
}
