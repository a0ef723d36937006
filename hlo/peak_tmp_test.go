package hlo

import (
	"os"
	"slices"
	"testing"
)

var lazyB, bytesMode bool

func peakElems(c *Computation) (int64, string) {
	last := map[string]int{}
	for i, in := range c.Instructions {
		for _, o := range in.Operands {
			last[o.Name] = i
		}
	}
	alias := map[string]bool{"get-tuple-element": true, "tuple": true, "bitcast": true, "reshape": true, "copy": true}
	owner := map[string][]string{}
	refs := map[string]int{}
	size := map[string]int64{}
	var live, peak int64
	at := ""
	for i, in := range c.Instructions {
		if alias[in.Opcode] {
			for _, o := range in.Operands {
				owner[in.Name] = append(owner[in.Name], owner[o.Name]...)
			}
		} else {
			owner[in.Name] = []string{in.Name}
			if in.Opcode != "parameter" && !(lazyB && in.Opcode == "broadcast") {
				size[in.Name] = in.Shape.Elems()
				if bytesMode {
					size[in.Name] = in.Shape.Bytes()
				}
			}
			live += size[in.Name]
		}
		for _, b := range owner[in.Name] {
			refs[b]++
		}
		if live > peak {
			peak, at = live, in.Name
		}
		for _, o := range in.Operands {
			if last[o.Name] == i && o.Name != c.Root.Name {
				for _, b := range owner[o.Name] {
					refs[b]--
					if refs[b] == 0 {
						live -= size[b]
					}
				}
			}
		}
		_ = i
	}
	return peak, at
}

func TestPeakTmp(t *testing.T) {
	src, err := os.ReadFile("../../shared/corpus/hlo/torchxla_mobilenet_v2.hlo")
	if err != nil {
		t.Skip()
	}
	m, err := Parse("mb", string(src))
	if err != nil {
		t.Fatal(err)
	}
	Verify("mb", m)
	var params int64
	for _, in := range m.Entry.Instructions {
		if in.Opcode == "parameter" {
			params += in.Shape.Elems()
		}
	}
	p, at := peakElems(m.Entry)
	t.Logf("n=%d params %d M, textual peak %d M elems at %s", len(m.Entry.Instructions), params>>20, p>>20, at)
	cc := *m.Entry
	cc.Instructions = slices.Clone(m.Entry.Instructions)
	ScheduleForMemory(&cc)
	p, at = peakElems(&cc)
	t.Logf("scheduled peak %d M elems at %s", p>>20, at)
	lazyB = true
	p, at = peakElems(m.Entry)
	t.Logf("lazy broadcast textual peak %d M elems at %s", p>>20, at)
	bytesMode = true
	p, at = peakElems(m.Entry)
	t.Logf("lazy broadcast textual peak %d MiB at %s", p>>20, at)
	lazyB = false
	p, at = peakElems(m.Entry)
	t.Logf("textual peak %d MiB at %s", p>>20, at)
	p, at = peakElems(&cc)
	t.Logf("lazy broadcast scheduled peak %d M elems at %s", p>>20, at)
}
