package config

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pulse-sim/pulse/isa"
)

// Key describes one configuration key: what `--set`, a sweep axis and
// `pulse chip keys` name. The list is derived from the Chip struct (so no
// key can be missing) joined with keyMeta (units, ranges, meaning), the one
// table Validate also checks ranges from.
type Key struct {
	Name string   `json:"key"`
	Type string   `json:"type"` // int, float, bool, string, list, map
	Unit string   `json:"unit,omitempty"`
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
	// Enum lists the allowed values of a string key.
	Enum []string `json:"enum,omitempty"`
	Doc  string   `json:"doc"`
	// When says when the key matters ("" always).
	When string `json:"when,omitempty"`
}

// Range returns the key's allowed range as text ("1..4096"), "" if none.
func (k Key) Range() string {
	switch {
	case len(k.Enum) > 0:
		return strings.Join(k.Enum, "|")
	case k.Min != nil && k.Max != nil:
		return fmtNum(*k.Min) + ".." + fmtNum(*k.Max)
	}
	return ""
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

type meta struct {
	unit   string
	lo, hi float64
	ranged bool
	enum   []string
	doc    string
	when   string
}

func r(unit string, lo, hi float64, doc string) meta {
	return meta{unit: unit, lo: lo, hi: hi, ranged: true, doc: doc}
}

const banked = "hbm.model=banked"

// streamed are the keys the streaming model reads too (memory.StreamingFrom).
const streamed = "hbm.model=banked or streaming"

// keyMeta gives each key's unit, range and meaning. A key of the Chip
// struct missing here is a test failure (TestEveryKeyDescribed).
var keyMeta = map[string]meta{
	"name":                           {doc: "the chip's name"},
	"description":                    {doc: "one line about the chip"},
	"clock_mhz":                      r("MHz", 1, 100000, "core clock"),
	"cores":                          r("cores", 0, 16, "TensorCores sharing the chip's HBM; every other section is one core's (0: one)"),
	"core_sync_ns":                   r("ns", 0, 1e6, "the cores meeting at the end of a kernel (multi-core chips)"),
	"scalar.issue_width":             r("instructions/cycle", 1, 16, "instructions the sequencer issues per cycle"),
	"scalar.branch_penalty":          r("cycles", 0, 1000, "extra cycles after a taken branch"),
	"scalar.smem_latency":            r("cycles", 1, 1000, "cycles of a scalar-memory load"),
	"queue_depth":                    r("instructions", 1, 1<<16, "instructions each unit's queue holds"),
	"mxu.count":                      r("arrays", 1, isa.MaxUnitIndex+1, "systolic arrays"),
	"mxu.rows":                       r("PEs", 1, 4096, "array rows (K of the stationary operand in ws)"),
	"mxu.cols":                       r("PEs", 1, 4096, "array columns"),
	"mxu.dtypes":                     {doc: "input dtypes the arrays multiply (bf16, f16, f32, s8, u8)"},
	"mxu.dataflow":                   {enum: []string{"ws", "os", "is"}, doc: "weight-, output- or input-stationary (docs/dataflows.md)"},
	"mxu.ldw_cycles_per_row":         r("cycles", 0, 1000, "cycles to shift one weight row in"),
	"mxu.cycles_per_row":             {unit: "cycles", doc: "cycles per streamed row, by input dtype (1..1000 each)"},
	"mxu.min_stream_cycles":          r("cycles", 0, 1<<20, "a stream occupies the array at least this long"),
	"mxu.f32_feed_cycles":            r("cycles", 0, 1000, "fewest cycles a row of f32 operands takes to enter the array in bf16 passes (0: none)"),
	"mxu.fold_overlap":               {doc: "os: the next fold fills while this one drains"},
	"vpu.lanes":                      r("lanes", 1, 1<<16, "vector lanes"),
	"vpu.sublanes":                   r("sublanes", 1, 1<<10, "sublanes per lane"),
	"vpu.clock_mhz":                  r("MHz", 0, 100000, "vector clock (0: the core clock)"),
	"vpu.latency":                    r("cycles", 0, 1<<20, "cycles added to every vector instruction"),
	"vpu.transcendental_cost":        r("cycles", 1, 1000, "cycles per element group for exp, log, tanh, ..."),
	"vpu.divide_cost":                r("cycles", 1, 1000, "cycles per element group for div, rcp, rsqrt, sqrt, pow"),
	"vpu.f64_cost":                   r("x", 0, 1000, "f64 arithmetic costs this many times the f32 op (the lanes emulate it; 0: the chip has no f64 arithmetic)"),
	"vpu.f16_convert_cost":           r("cycles", 0, 1000, "cycles per element group a vector instruction adds for each f16 operand or result it converts (the lanes emulate f16; 0: f16 is native)"),
	"xlu.count":                      r("units", 1, isa.MaxUnitIndex+1, "cross-lane units"),
	"xlu.latency":                    r("cycles", 0, 1<<20, "cycles added to every cross-lane instruction"),
	"dma.engines":                    r("engines", 1, isa.MaxUnitIndex+1, "DMA engines"),
	"dma.burst_bytes":                r("bytes", 1, 1<<24, "a descriptor is split into requests of this size"),
	"dma.max_outstanding":            r("requests", 1, 1<<16, "requests in flight per engine"),
	"dma.setup_ns":                   r("ns", 0, 1e9, "from issue to the first request"),
	"dma.prefetch":                   r("descriptors", 0, 1024, "descriptors set up ahead of the one issuing, from when each is queued and its semaphore met (0: each setup starts when the engine takes it)"),
	"dma.engine_gbps":                r("GB/s", 0, 1e6, "per-engine bandwidth cap (0: none)"),
	"hbm.model":                      {enum: []string{"ideal", "streaming", "banked"}, doc: "ideal (latency + bandwidth), streaming (ideal plus the refresh and read/write turnarounds of the device below, in closed form) or banked (the device below, bank by bank)"},
	"hbm.bandwidth_gbps":             {unit: "GB/s", lo: 1e-3, hi: 1e6, ranged: true, doc: "ideal model: peak bandwidth"},
	"hbm.latency_ns":                 {unit: "ns", lo: 0, hi: 1e9, ranged: true, doc: "ideal model: latency of a request"},
	"hbm.device.channels":            {unit: "channels", lo: 1, hi: 1024, ranged: true, doc: "independent channels (pseudo-channels count)", when: banked},
	"hbm.device.bank_groups":         {unit: "groups", lo: 1, hi: 64, ranged: true, doc: "bank groups per channel", when: banked},
	"hbm.device.banks_per_group":     {unit: "banks", lo: 1, hi: 64, ranged: true, doc: "banks per bank group", when: banked},
	"hbm.device.rows":                {unit: "rows", lo: 1, hi: 1 << 24, ranged: true, doc: "rows per bank", when: banked},
	"hbm.device.columns":             {unit: "accesses", lo: 1, hi: 1 << 16, ranged: true, doc: "column accesses per row", when: banked},
	"hbm.device.access_bytes":        {unit: "bytes", lo: 1, hi: 1 << 12, ranged: true, doc: "bytes per column access", when: banked},
	"hbm.device.tck_ps":              {unit: "ps", lo: 1, hi: 1 << 20, ranged: true, doc: "DRAM clock period", when: streamed},
	"hbm.device.window":              {unit: "requests", lo: 1, hi: 1 << 12, ranged: true, doc: "requests the scheduler considers", when: streamed},
	"hbm.controller.address_mapping": {doc: "DRAMSim3-style address fields, most significant first (e.g. rorabgbachco); \"\": Pulse's hashed mapping", when: banked},
	"hbm.controller.read_queue":      {unit: "requests", lo: 0, hi: 1 << 16, ranged: true, doc: "reads a channel holds (0: no limit)", when: banked},
	"hbm.controller.write_queue":     {unit: "requests", lo: 0, hi: 1 << 16, ranged: true, doc: "writes a channel buffers, drained when full (0: scheduled with reads)", when: streamed},
	"hbm.controller.bank_queue":      {unit: "requests", lo: 0, hi: 1 << 16, ranged: true, doc: "accesses per bank the scheduler considers (0: the window)", when: banked},
	"hbm.controller.row_hit_cap":     {unit: "hits", lo: 0, hi: 1 << 16, ranged: true, doc: "row hits before an older access to another row goes first (0: no cap)", when: banked},
	"hbm.timing.bl":                  {unit: "DRAM clocks", lo: 1, hi: 1 << 10, ranged: true, doc: "data-bus clocks per access", when: streamed},
	"hbm.timing.refi":                {unit: "DRAM clocks", lo: 0, hi: 1 << 24, ranged: true, doc: "refresh interval (0: no refresh)", when: streamed},
	"sram.banks":                     r("banks", 1, 1<<12, "SRAM banks"),
	"sram.bank_width_bytes":          r("bytes", 1, 1<<16, "bytes a bank serves per cycle"),
	"acc.banks":                      r("banks", 1, 1<<12, "accumulator banks"),
	"acc.bank_width_bytes":           r("bytes", 1, 1<<16, "bytes a bank serves per cycle"),
	"memory.sram_bytes":              r("bytes", 64, 1<<40, "on-chip SRAM"),
	"memory.acc_bytes":               r("bytes", 64, 1<<40, "accumulator memory"),
	"memory.smem_bytes":              r("bytes", 4, 1<<40, "scalar memory"),
	"memory.hbm_bytes":               r("bytes", 64, 1<<42, "off-chip memory (at most 4 TiB: the ISA's tile offsets are 43-bit, signed)"),
	"memory.vreg_bytes":              r("bytes", 0, 1<<30, "the vector unit's register file, which vector instructions use without SRAM bank limits; 0: none"),
	"memory.host_bytes":              r("bytes", 0, 1<<50, "host memory the DMA engines reach through the host link (infeed, outfeed buffers); 0: none"),
	"host.link_gbps":                 r("GB/s", 0, 1e6, "host link bandwidth each way (PCIe); 0: no host link"),
	"host.latency_ns":                r("ns", 0, 1e9, "host link latency, one way, after a transfer's last byte"),
	"ici.links":                      r("ports", 0, 64, "interconnect ports to other chips; 0: none (one device only)"),
	"ici.link_gbps":                  r("GB/s", 0, 1e6, "interconnect bandwidth per port, each way"),
	"ici.latency_ns":                 r("ns", 0, 1e9, "interconnect latency per step of a collective (a hop and its handshake)"),
	"ici.topology":                   {doc: "the slice's shape, sizes joined by x (16x16, 4x4x4): a torus with wraparound, devices numbered first dimension fastest; \"\": one ring"},
}

func init() {
	pj := func(doc string) meta { return meta{unit: "pJ", lo: 0, hi: 1e6, ranged: true, doc: doc} }
	for _, d := range []string{"s8", "u8", "f16", "bf16", "f32"} {
		keyMeta["energy.mac_pj."+d] = pj("energy per " + d + " multiply-accumulate (accumulation included)")
		keyMeta["area.pe_mm2."+d] = meta{unit: "mm^2", lo: 0, hi: 1e3, ranged: true, doc: "area of a PE whose widest input dtype is " + d}
	}
	for k, doc := range map[string]string{
		"sram_read_pj_per_byte": "SRAM read", "sram_write_pj_per_byte": "SRAM write",
		"acc_read_pj_per_byte": "accumulator read", "acc_write_pj_per_byte": "accumulator write",
		"dma_pj_per_byte": "moving a byte through a DMA engine and the on-chip network"} {
		keyMeta["energy."+k] = meta{unit: "pJ/byte", lo: 0, hi: 1e6, ranged: true, doc: doc}
	}
	keyMeta["energy.hbm_read_pj_per_bit"] = meta{unit: "pJ/bit", lo: 0, hi: 1e6, ranged: true, doc: "off-chip read (not scaled with the node)"}
	keyMeta["energy.hbm_write_pj_per_bit"] = meta{unit: "pJ/bit", lo: 0, hi: 1e6, ranged: true, doc: "off-chip write (not scaled with the node)"}
	keyMeta["energy.hbm_activate_pj"] = pj("banked HBM: a row activation (and its precharge)")
	keyMeta["energy.hbm_refresh_pj"] = pj("banked HBM: one refresh of a channel")
	keyMeta["energy.vpu_simple_pj"] = pj("vector element-op: add, multiply, compare, move, convert")
	keyMeta["energy.vpu_transcendental_pj"] = pj("vector element-op: exp, log, tanh, logistic, gelu")
	keyMeta["energy.vpu_divide_pj"] = pj("vector element-op: divide, pow, sqrt, rsqrt, reciprocal")
	keyMeta["energy.xlu_pj_per_element"] = pj("cross-lane unit, per element moved or reduced")
	keyMeta["energy.scalar_pj_per_instruction"] = pj("a sequencer instruction (fetch, decode, issue)")
	keyMeta["energy.values_nm"] = meta{unit: "nm", lo: 0, hi: 1000, ranged: true, doc: "the node the energy values are stated at; scaled to technology_nm (0: technology_nm)"}
	keyMeta["energy.idle_factor"] = meta{lo: 0, hi: 1, ranged: true, doc: "fraction of a unit's static power drawn while idle (clock gating)"}
	for k, doc := range map[string]string{"mxu": "each systolic array", "vpu": "the vector unit", "xlu": "each cross-lane unit",
		"dma": "each DMA engine", "scalar": "the sequencer", "sram": "SRAM (always on)", "acc": "accumulator memory (always on)",
		"hbm": "off-chip memory background power (always on)", "other": "I/O, control, clock tree (always on)"} {
		keyMeta["energy.static_w."+k] = meta{unit: "W", lo: 0, hi: 1e4, ranged: true, doc: "static power when powered: " + doc}
	}
	keyMeta["technology_nm"] = meta{unit: "nm", lo: 0, hi: 1000, ranged: true, doc: "process node; energy and area values are scaled to it from their values_nm (docs/energy.md; 0: no scaling)"}
	keyMeta["area.values_nm"] = meta{unit: "nm", lo: 0, hi: 1000, ranged: true, doc: "the node the area values are stated at; scaled to technology_nm (0: technology_nm)"}
	for k, doc := range map[string]string{"sram_mm2_per_mib": "SRAM per MiB", "acc_mm2_per_mib": "accumulator memory per MiB",
		"vpu_lane_mm2": "a vector lane x sublane", "xlu_mm2": "each cross-lane unit", "dma_mm2": "each DMA engine", "scalar_mm2": "the sequencer",
		"fixed_mm2": "I/O, PHYs, control (not scaled with the node)"} {
		keyMeta["area."+k] = meta{unit: "mm^2", lo: 0, hi: 1e5, ranged: true, doc: doc}
	}

	// The JEDEC timings share one range and unit.
	for k, doc := range map[string]string{"cl": "read latency", "cwl": "write latency", "rcd": "activate to column command",
		"rp": "precharge", "ras": "activate to precharge", "ccd_s": "column to column, other bank group", "ccd_l": "column to column, same bank group",
		"rrd_s": "activate to activate, other bank group", "rrd_l": "activate to activate, same bank group", "faw": "four-activate window",
		"wtr_s": "write to read, other bank group", "wtr_l": "write to read, same bank group", "rtp": "read to precharge",
		"wr": "write recovery", "rfc": "refresh cycle time"} {
		when := banked
		if k == "cl" || k == "wtr_s" || k == "rfc" {
			when = streamed
		}
		keyMeta["hbm.timing."+k] = meta{unit: "DRAM clocks", lo: 0, hi: 1 << 20, ranged: true, doc: doc, when: when}
	}
}

// Keys lists every configuration key, sorted.
func Keys() []Key {
	out := keys()
	for i := range out { // each caller its own copy
		k := &out[i]
		if k.Min != nil {
			lo, hi := *k.Min, *k.Max
			k.Min, k.Max = &lo, &hi
		}
		k.Enum = append([]string(nil), k.Enum...)
	}
	return out
}

// keys is the key list, built once: Validate checks every ranged key of
// every chip, and a sweep builds a chip per point.
var keys = func() func() []Key {
	list := sync.OnceValue(buildKeys)
	return func() []Key { return append([]Key(nil), list()...) }
}()

// fieldPaths maps every key and section name (mxu.rows, mxu) to the
// index path of its field in Chip, for Get.
var fieldPaths = sync.OnceValue(func() map[string][]int {
	paths := map[string][]int{}
	walkFields(reflect.TypeOf(Chip{}), "", nil, func(name string, _ reflect.Type, path []int) {
		paths[name] = path
	})
	return paths
})

func buildKeys() []Key {
	var out []Key
	walkFields(reflect.TypeOf(Chip{}), "", nil, func(name string, t reflect.Type, _ []int) {
		if t.Kind() == reflect.Struct {
			return // a section
		}
		m := keyMeta[name]
		k := Key{Name: name, Type: typeName(t), Unit: m.unit, Enum: m.enum, Doc: m.doc, When: m.when}
		if m.ranged {
			lo, hi := m.lo, m.hi
			k.Min, k.Max = &lo, &hi
		}
		out = append(out, k)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupKey returns the key named name.
func LookupKey(name string) (Key, bool) {
	for _, k := range keys() {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// walkFields calls f for every field of t that has a yaml name, sections
// (structs) before their fields, with its dotted name, its type and its
// index path from t.
func walkFields(t reflect.Type, prefix string, at []int, f func(name string, t reflect.Type, path []int)) {
	for i := 0; i < t.NumField(); i++ {
		fl := t.Field(i)
		tag, _, _ := strings.Cut(fl.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		name := tag
		if prefix != "" {
			name = prefix + "." + tag
		}
		path := append(append([]int(nil), at...), i)
		f(name, fl.Type, path)
		if fl.Type.Kind() == reflect.Struct {
			walkFields(fl.Type, name, path, f)
		}
	}
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "int"
	case reflect.Float64:
		return "float"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list"
	case reflect.Map:
		return "map"
	}
	return t.Kind().String()
}

// Get returns the value of a key of c (an int64, float64, bool, string,
// []string or map[string]int).
func (c *Chip) Get(key string) (any, error) {
	path, ok := fieldPaths()[key]
	if !ok {
		return nil, fmt.Errorf("unknown key %q", key)
	}
	v := reflect.ValueOf(c).Elem().FieldByIndex(path)
	switch v.Kind() {
	case reflect.Struct:
		return nil, fmt.Errorf("%s is a section, not a value", key)
	case reflect.Int, reflect.Int64:
		return v.Int(), nil
	}
	return v.Interface(), nil
}

// checkRanges checks every ranged key that matters for c against keyMeta.
func (c *Chip) checkRanges() error {
	for _, k := range rangedKeys() {
		if k.Min == nil || !c.applies(k.When) {
			continue
		}
		v, _ := c.Get(k.Name)
		switch x := v.(type) {
		case int64:
			if float64(x) < *k.Min || float64(x) > *k.Max {
				return fmt.Errorf("%s: %d out of range %s", k.Name, x, k.Range())
			}
		case float64:
			if !(x >= *k.Min && x <= *k.Max) {
				return fmt.Errorf("%s: %g out of range %s", k.Name, x, k.Range())
			}
		}
	}
	return nil
}

// rangedKeys is the keys with a range, for checkRanges (shared: read only).
var rangedKeys = sync.OnceValue(func() []Key {
	var out []Key
	for _, k := range keys() {
		if k.Min != nil {
			out = append(out, k)
		}
	}
	return out
})

// applies evaluates a Key.When condition ("key=value", "" always).
func (c *Chip) applies(when string) bool {
	if when == "" {
		return true
	}
	k, want, _ := strings.Cut(when, "=")
	v, err := c.Get(k)
	return err == nil && fmt.Sprint(v) == want
}
