// Package config holds chip configurations: plain data, loaded from YAML, with
// presets embedded in the binary. Every parameter a user may sweep is a named
// key that `--set key=value` can override.
package config

import (
	"embed"
	"fmt"
	"math"
	"math/bits"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/isa"
	"go.yaml.in/yaml/v3"
)

// Chip is a chip configuration.
type Chip struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	ClockMHz    int    `yaml:"clock_mhz"`
	// Cores is the TensorCores of the chip (0 or 1: one). The cores share
	// the chip's HBM (hbm, memory.hbm_bytes) and its host link; each has
	// everything else of its own (a sequencer, the mxu, vpu, xlu and dma
	// units, sram, acc and smem): the other sections describe one core.
	// One program runs on every core, each doing its share of a kernel
	// (docs/multicore.md).
	Cores int `yaml:"cores"`
	// CoreSyncNS is the time the cores take to meet at the end of a kernel
	// (the barrier after which every core may read what the others wrote).
	CoreSyncNS float64 `yaml:"core_sync_ns"`
	Scalar     Scalar  `yaml:"scalar"`
	QueueDepth int     `yaml:"queue_depth"` // instructions each unit queue holds
	MXU        MXU     `yaml:"mxu"`
	VPU        VPU     `yaml:"vpu"`
	XLU        XLU     `yaml:"xlu"`
	DMA        DMA     `yaml:"dma"`
	HBM        HBM     `yaml:"hbm"`
	SRAM       Banked  `yaml:"sram"`
	ACC        Banked  `yaml:"acc"`
	Memory     Memory  `yaml:"memory"`
	// Host is the link to the host's memory (infeed, outfeed).
	Host Host `yaml:"host"`
	// ICI is the interconnect between chips (multi-device runs).
	ICI ICI `yaml:"ici"`
	// TechnologyNM is the process node the chip is built in; Energy and
	// Area values are stated at their own values_nm and scaled to it
	// (docs/energy.md).
	TechnologyNM int    `yaml:"technology_nm"`
	Energy       Energy `yaml:"energy"`
	Area         Area   `yaml:"area"`
}

// PerDType is a value for each MXU input dtype.
type PerDType struct {
	S8   float64 `yaml:"s8"`
	U8   float64 `yaml:"u8"`
	F16  float64 `yaml:"f16"`
	BF16 float64 `yaml:"bf16"`
	F32  float64 `yaml:"f32"`
}

// Of returns the value for dtype name d (0 for others).
func (p PerDType) Of(d string) float64 {
	switch d {
	case "s8":
		return p.S8
	case "u8":
		return p.U8
	case "f16":
		return p.F16
	case "bf16":
		return p.BF16
	case "f32":
		return p.F32
	}
	return 0
}

// Energy is the dynamic energy of each action and each unit's static
// power, stated at ValuesNM (docs/energy.md).
type Energy struct {
	ValuesNM           int      `yaml:"values_nm"` // node the values are stated at (scaled to technology_nm)
	MACpJ              PerDType `yaml:"mac_pj"`    // per multiply-accumulate, by input dtype
	SRAMReadPJPerByte  float64  `yaml:"sram_read_pj_per_byte"`
	SRAMWritePJPerByte float64  `yaml:"sram_write_pj_per_byte"`
	ACCReadPJPerByte   float64  `yaml:"acc_read_pj_per_byte"`
	ACCWritePJPerByte  float64  `yaml:"acc_write_pj_per_byte"`
	// Off-chip memory: not scaled with the logic node.
	HBMReadPJPerBit     float64     `yaml:"hbm_read_pj_per_bit"`
	HBMWritePJPerBit    float64     `yaml:"hbm_write_pj_per_bit"`
	HBMActivatePJ       float64     `yaml:"hbm_activate_pj"`       // banked model: per row activation
	HBMRefreshPJ        float64     `yaml:"hbm_refresh_pj"`        // banked model: per refresh of a channel
	DMAPJPerByte        float64     `yaml:"dma_pj_per_byte"`       // moving a byte (address generation, on-chip network)
	VPUSimplePJ         float64     `yaml:"vpu_simple_pj"`         // per element-op: add, mul, compare, move, ...
	VPUTranscendentalPJ float64     `yaml:"vpu_transcendental_pj"` // exp, log, tanh, logistic, gelu
	VPUDividePJ         float64     `yaml:"vpu_divide_pj"`         // div, pow, sqrt, rsqrt, rcp
	XLUPJPerElement     float64     `yaml:"xlu_pj_per_element"`
	ScalarPJPerInst     float64     `yaml:"scalar_pj_per_instruction"`
	StaticW             StaticPower `yaml:"static_w"`
	// IdleFactor is the fraction of a unit's static power it draws while
	// idle (clock gating and power gating bring it below 1).
	IdleFactor float64 `yaml:"idle_factor"`
}

// StaticPower is each unit's power when powered and busy, in watts.
type StaticPower struct {
	MXU    float64 `yaml:"mxu"` // each array
	VPU    float64 `yaml:"vpu"`
	XLU    float64 `yaml:"xlu"` // each
	DMA    float64 `yaml:"dma"` // each engine
	Scalar float64 `yaml:"scalar"`
	SRAM   float64 `yaml:"sram"`  // always on
	ACC    float64 `yaml:"acc"`   // always on
	HBM    float64 `yaml:"hbm"`   // background and I/O, always on
	Other  float64 `yaml:"other"` // I/O, control, clock tree: always on
}

// Area is each component's silicon area, stated at ValuesNM.
type Area struct {
	ValuesNM      int      `yaml:"values_nm"`
	PEmm2         PerDType `yaml:"pe_mm2"` // per processing element, by the widest dtype the array supports
	SRAMmm2PerMiB float64  `yaml:"sram_mm2_per_mib"`
	ACCmm2PerMiB  float64  `yaml:"acc_mm2_per_mib"`
	VPULanemm2    float64  `yaml:"vpu_lane_mm2"` // per lane x sublane
	XLUmm2        float64  `yaml:"xlu_mm2"`      // each
	DMAmm2        float64  `yaml:"dma_mm2"`      // each engine
	Scalarmm2     float64  `yaml:"scalar_mm2"`
	Fixedmm2      float64  `yaml:"fixed_mm2"` // I/O, PHYs, control: not scaled with the node
}

// Scalar describes the sequencer.
type Scalar struct {
	IssueWidth    int `yaml:"issue_width"`    // instructions issued per cycle
	BranchPenalty int `yaml:"branch_penalty"` // extra cycles after a taken branch
	SMEMLatency   int `yaml:"smem_latency"`   // cycles of a scalar-memory load
}

// HBM describes off-chip memory timing: the ideal model's two numbers and
// the bank-level model's device.
type HBM struct {
	Model         string         `yaml:"model"`          // "ideal" (latency + bandwidth), "streaming" (ideal plus the device's refresh and turnarounds) or "banked"
	BandwidthGBps float64        `yaml:"bandwidth_gbps"` // ideal: peak, 1e9 bytes/s
	LatencyNS     float64        `yaml:"latency_ns"`     // ideal: latency of a request
	Device        DRAM           `yaml:"device"`         // banked: organization
	Timing        DRAMTimes      `yaml:"timing"`         // banked: JEDEC timings in clocks
	Controller    DRAMController `yaml:"controller"`     // banked: the memory controller
}

// DRAMController is the banked model's memory controller. Zero values
// keep Pulse's defaults: its hashed address mapping and one scheduling
// window per channel with no queue limits.
type DRAMController struct {
	// AddressMapping names the address bits' fields from the most
	// significant down, as DRAMSim3 writes it: two letters each, ro (row),
	// ra (rank), bg (bank group), ba (bank), ch (channel), co (column),
	// e.g. "rorabgbachco"; the bits below an access are its offset. "":
	// Pulse's mapping (bank group, hashed channel, column, bank, row).
	AddressMapping string `yaml:"address_mapping"`
	ReadQueue      int    `yaml:"read_queue"`  // reads a channel holds (0: no limit)
	WriteQueue     int    `yaml:"write_queue"` // writes a channel buffers, all drained once it is full (0: writes are scheduled with reads)
	BankQueue      int    `yaml:"bank_queue"`  // accesses per bank the scheduler considers, oldest first (0: the window)
	RowHitCap      int    `yaml:"row_hit_cap"` // row hits in a row before an older access to another row of that bank goes first (0: no cap)
}

// DRAM is the organization of the banked model.
type DRAM struct {
	Channels      int `yaml:"channels"` // independent channels (pseudo-channels count)
	BankGroups    int `yaml:"bank_groups"`
	BanksPerGroup int `yaml:"banks_per_group"`
	Rows          int `yaml:"rows"`
	Columns       int `yaml:"columns"`      // column accesses per row
	AccessBytes   int `yaml:"access_bytes"` // bytes per column access
	TCKps         int `yaml:"tck_ps"`       // clock period
	Window        int `yaml:"window"`       // requests the controller's scheduler considers
}

// DRAMTimes are the banked model's timings, in clocks of tck_ps.
type DRAMTimes struct {
	CL   int `yaml:"cl"`
	CWL  int `yaml:"cwl"`
	RCD  int `yaml:"rcd"`
	RP   int `yaml:"rp"`
	RAS  int `yaml:"ras"`
	CCDS int `yaml:"ccd_s"`
	CCDL int `yaml:"ccd_l"`
	RRDS int `yaml:"rrd_s"`
	RRDL int `yaml:"rrd_l"`
	FAW  int `yaml:"faw"`
	WTRS int `yaml:"wtr_s"`
	WTRL int `yaml:"wtr_l"`
	RTP  int `yaml:"rtp"`
	WR   int `yaml:"wr"`
	RFC  int `yaml:"rfc"`
	REFI int `yaml:"refi"` // 0: no refresh
	BL   int `yaml:"bl"`   // clocks the data bus is busy per access
}

// Banked describes an on-chip memory's banks: each serves one line of
// bank_width_bytes per core cycle; lines interleave across banks.
type Banked struct {
	Banks          int `yaml:"banks"`
	BankWidthBytes int `yaml:"bank_width_bytes"`
}

// MXU describes the systolic matrix units.
type MXU struct {
	Count           int            `yaml:"count"`
	Rows            int            `yaml:"rows"`               // K: the stationary operand's rows
	Cols            int            `yaml:"cols"`               // N: the stationary operand's columns
	DTypes          []string       `yaml:"dtypes"`             // input dtypes the array multiplies
	Dataflow        string         `yaml:"dataflow"`           // ws (weight-stationary), os, is
	LdwCyclesPerRow int            `yaml:"ldw_cycles_per_row"` // cycles to shift one weight row in
	CyclesPerRow    map[string]int `yaml:"cycles_per_row"`     // cycles per streamed row, by input dtype
	MinStreamCycles int            `yaml:"min_stream_cycles"`  // a stream occupies the array at least this long
	// F32FeedCycles is the fewest cycles a row of 32-bit operands takes
	// to enter the array when an f32 stream runs as bf16 passes (0: no
	// such floor): the operand path carries a row of 16-bit elements a
	// cycle, so an f32 row crosses it in two (docs/chips.md).
	F32FeedCycles int  `yaml:"f32_feed_cycles"`
	FoldOverlap   bool `yaml:"fold_overlap"` // os: double-buffered accumulators let the next fold start under this one's drain
}

// VPU describes the vector unit datapath.
type VPU struct {
	Lanes              int `yaml:"lanes"`
	Sublanes           int `yaml:"sublanes"`
	ClockMHz           int `yaml:"clock_mhz"`           // 0: the core clock
	Latency            int `yaml:"latency"`             // cycles added to every instruction
	TranscendentalCost int `yaml:"transcendental_cost"` // cycles per element group for exp, log, tanh, ...
	DivideCost         int `yaml:"divide_cost"`         // cycles per element group for div, rcp, rsqrt, sqrt, pow
	F64Cost            int `yaml:"f64_cost"`            // f64 arithmetic costs this many f32 ops (0: no f64 arithmetic)
	// F16ConvertCost is what converting an f16 operand or result costs a
	// vector instruction, in cycles per element group, on a chip whose
	// lanes have no f16 format and emulate it with integer ops (0: f16 is
	// native, and costs what f32 does).
	F16ConvertCost int `yaml:"f16_convert_cost"`
}

// XLU describes the cross-lane units.
type XLU struct {
	Count   int `yaml:"count"`
	Latency int `yaml:"latency"`
}

// DMA describes the DMA engines.
type DMA struct {
	Engines        int     `yaml:"engines"`
	BurstBytes     int     `yaml:"burst_bytes"`     // a descriptor is split into requests of this size
	MaxOutstanding int     `yaml:"max_outstanding"` // requests in flight per engine
	SetupNS        float64 `yaml:"setup_ns"`        // from issue to the first request
	Prefetch       int     `yaml:"prefetch"`        // descriptors set up ahead of the one issuing (0: setup from issue)
	EngineGBps     float64 `yaml:"engine_gbps"`     // per-engine bandwidth cap, 0: none
}

// Memory gives the size of each memory space in bytes.
type Memory struct {
	SRAMBytes int64 `yaml:"sram_bytes"`
	ACCBytes  int64 `yaml:"acc_bytes"`
	SMEMBytes int64 `yaml:"smem_bytes"`
	HBMBytes  int64 `yaml:"hbm_bytes"`
	// HostBytes is the host memory the chip's DMA engines can reach
	// (the infeed and outfeed buffers); 0: none.
	HostBytes int64 `yaml:"host_bytes"`
	// VRegBytes is the vector unit's register file (isa.VREG): vector and
	// cross-lane instructions read and write it without the SRAM banks'
	// limit; DMA cannot reach it. 0: none (the vector unit works from
	// SRAM to SRAM, as Trainium's engines do).
	VRegBytes int64 `yaml:"vreg_bytes"`
}

// Host is the host link (PCIe): each direction a bus of LinkGBps, served
// first come first served, and LatencyNS after a transfer's last byte.
type Host struct {
	LinkGBps  float64 `yaml:"link_gbps"`  // each way; 0: the chip has no host link
	LatencyNS float64 `yaml:"latency_ns"` // one way
}

// ICI is the chip's interconnect to other chips (Google's inter-chip
// interconnect, AWS's NeuronLink): Links ports, each a bus of LinkGBps
// each way, and LatencyNS per step of a collective (docs/devices.md).
type ICI struct {
	Links     int     `yaml:"links"`      // ports; 0: the chip has no interconnect
	LinkGBps  float64 `yaml:"link_gbps"`  // each way, per port
	LatencyNS float64 `yaml:"latency_ns"` // per step: a hop and its handshake
	// Topology is the slice's shape, "16x16" or "4x4x4": a torus of the
	// devices with wraparound on every dimension (ParseTopology); "": the
	// devices form one ring.
	Topology string `yaml:"topology"`
}

// TopologySize is the number of devices of a torus of dims.
func TopologySize(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// ParseTopology reads a torus shape written as sizes joined by "x" ("8",
// "16x16", "4x4x4"), each at least 1, at most 4 dimensions and 65,536
// devices; "" is no topology.
func ParseTopology(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, "x")
	if len(parts) > 4 {
		return nil, fmt.Errorf("%q has %d dimensions; at most 4", s, len(parts))
	}
	dims := make([]int, len(parts))
	n := 1
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: dimension %q is not a whole number of at least 1 (write sizes joined by x, as 4x4x4)", s, p)
		}
		dims[i] = v
		if n *= v; n > 1<<16 {
			return nil, fmt.Errorf("%q has more than 65536 devices", s)
		}
	}
	return dims, nil
}

// SpaceBytes returns the size of a memory space.
func (c *Chip) SpaceBytes(s isa.Space) int64 {
	switch s {
	case isa.HBM:
		return c.Memory.HBMBytes
	case isa.SRAM:
		return c.Memory.SRAMBytes
	case isa.ACC:
		return c.Memory.ACCBytes
	case isa.SMEM:
		return c.Memory.SMEMBytes
	case isa.HOST:
		return c.Memory.HostBytes
	case isa.VREG:
		return c.Memory.VRegBytes
	}
	return 0
}

// Units returns how many units of a class the chip has.
func (c *Chip) Units(u isa.Unit) int {
	switch u {
	case isa.UnitScalar, isa.UnitVPU:
		return 1
	case isa.UnitDMA:
		return c.DMA.Engines
	case isa.UnitMXU:
		return c.MXU.Count
	case isa.UnitXLU:
		return c.XLU.Count
	}
	return 0
}

// RowCycles is the number of cycles one streamed row of dtype d occupies the array.
func (c *Chip) RowCycles(d isa.DType) int {
	if n, ok := c.MXU.CyclesPerRow[d.String()]; ok {
		return n
	}
	return 1
}

// StreamRowCycles is the cycles a streamed row of dtype d takes with the
// given bf16 passes (mxu.mm passes N): an f32 stream of N passes costs N
// bf16 rows but at least mxu.f32_feed_cycles, or the chip's own f32 rate
// where that is less; 0 passes is the dtype's rate (RowCycles).
func (c *Chip) StreamRowCycles(d isa.DType, passes int) int {
	r := c.RowCycles(d)
	if passes > 0 && d == isa.F32 && c.MXUSupports(isa.BF16) {
		r = min(r, max(passes*c.RowCycles(isa.BF16), c.MXU.F32FeedCycles))
	}
	return r
}

// MXUSupports reports whether the MXU multiplies inputs of dtype d.
func (c *Chip) MXUSupports(d isa.DType) bool {
	for _, s := range c.MXU.DTypes {
		if s == d.String() {
			return true
		}
	}
	return false
}

// Validate checks every value and names the key of the first bad one.
func (c *Chip) Validate() error {
	if c.Name == "" {
		return fmt.Errorf("name: must not be empty")
	}
	// Ranges come from the key table (keys.go), in key order; the
	// relations between keys are checked below.
	if err := c.checkRanges(); err != nil {
		return err
	}
	if c.ICI.Links > 0 && c.ICI.LinkGBps <= 0 {
		return fmt.Errorf("ici.link_gbps: must be above 0 when ici.links is %d", c.ICI.Links)
	}
	if dims, err := ParseTopology(c.ICI.Topology); err != nil {
		return fmt.Errorf("ici.topology: %v", err)
	} else if len(dims) > 0 && c.ICI.Links < 2*len(dims) {
		return fmt.Errorf("ici.topology: a torus of %d dimensions needs 2 ports a dimension, and ici.links is %d", len(dims), c.ICI.Links)
	}
	switch c.MXU.Dataflow {
	case "ws", "os", "is":
	default:
		return fmt.Errorf("mxu.dataflow: %q is not ws, os or is", c.MXU.Dataflow)
	}
	switch c.HBM.Model {
	case "ideal":
	case "streaming":
		// The ideal bus with the device's refresh and turnaround costs
		// (memory.StreamingFrom): their ratios must make sense.
		tm := c.HBM.Timing
		if tm.BL < 1 {
			return fmt.Errorf("hbm.timing.bl: %d: the streaming model needs the data-bus clocks of an access", tm.BL)
		}
		if tm.REFI > 0 && tm.RFC >= tm.REFI {
			return fmt.Errorf("hbm.timing.rfc: %d clocks of refresh every hbm.timing.refi = %d leaves no time for data", tm.RFC, tm.REFI)
		}
		if c.HBM.Controller.WriteQueue == 0 && c.HBM.Device.Window < 1 {
			return fmt.Errorf("hbm.device.window: %d: the streaming model batches writes by the write queue or, with none, the window", c.HBM.Device.Window)
		}
	case "banked":
		d, tm := c.HBM.Device, c.HBM.Timing
		if m := c.HBM.Controller.AddressMapping; m != "" {
			if _, err := ParseAddressMapping(m, d); err != nil {
				return fmt.Errorf("hbm.controller.address_mapping: %v", err)
			}
		}
		// Between two refreshes a channel must have time for at least one
		// whole access (activate, column command and data, precharge), or
		// it refreshes forever and the run never ends.
		if tm.REFI > 0 {
			need := tm.RFC + tm.RAS + tm.RP + tm.RCD + max(tm.CL, tm.CWL) + tm.BL + max(tm.RTP, tm.WR)
			if tm.REFI <= need {
				return fmt.Errorf("hbm.timing.refi: %d cycles between refreshes leaves no time for an access: it must exceed hbm.timing.rfc + ras + rp + rcd + max(cl, cwl) + bl + max(rtp, wr) = %d (or be 0: no refresh)", tm.REFI, need)
			}
		}
	default:
		return fmt.Errorf("hbm.model: %q is not a known model (ideal, streaming, banked)", c.HBM.Model)
	}
	for d, n := range c.MXU.CyclesPerRow {
		if _, ok := isa.ParseDType(d); !ok {
			return fmt.Errorf("mxu.cycles_per_row.%s: not a dtype", d)
		}
		if n < 1 || n > 1000 {
			return fmt.Errorf("mxu.cycles_per_row.%s: %d out of range 1..1000", d, n)
		}
	}
	if len(c.MXU.DTypes) == 0 {
		return fmt.Errorf("mxu.dtypes: must list at least one dtype")
	}
	for _, s := range c.MXU.DTypes {
		d, ok := isa.ParseDType(s)
		if !ok || !(d == isa.BF16 || d == isa.F16 || d == isa.F32 || d == isa.S8 || d == isa.U8 || d.IsF8()) {
			return fmt.Errorf("mxu.dtypes: %q is not an MXU input dtype (bf16, f16, f32, s8, u8, an f8 type)", s)
		}
	}
	return nil
}

//go:embed presets/*.yaml
var presetFS embed.FS

// Presets lists the embedded preset names, sorted.
func Presets() []string {
	ents, _ := presetFS.ReadDir("presets")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// PresetYAML returns a preset's YAML text.
func PresetYAML(name string) ([]byte, bool) {
	b, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
	return b, err == nil
}

// Load reads a chip from a preset name or a YAML file path and applies
// "key=value" overrides (dotted keys, e.g. "mxu.rows=32").
func Load(nameOrPath string, sets []string) (*Chip, error) {
	src, ok := PresetYAML(nameOrPath)
	origin := nameOrPath
	if !ok {
		if !strings.ContainsAny(nameOrPath, "/.") {
			return nil, fmt.Errorf("unknown chip %q (presets: %s; or give a .yaml file)", nameOrPath, strings.Join(Presets(), ", "))
		}
		b, err := inputs.ReadFile(nameOrPath, inputs.Configs)
		if err != nil {
			return nil, fmt.Errorf("chip config: %v", err)
		}
		src = b
	}
	return Parse(origin, src, sets)
}

// checkIntegers refuses a value with a fraction for an integer key: YAML's
// decoder truncates 1050.7 to 1050 for an int field, which would run a
// different chip from the one asked for (and give two sweep points one id).
func checkIntegers(m *yaml.Node, t reflect.Type, prefix string) error {
	if m.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := tagFields(t).byName
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if fl, ok := fields[k.Value]; ok {
			key := k.Value
			if prefix != "" {
				key = prefix + "." + k.Value
			}
			switch {
			case fl.Type.Kind() == reflect.Struct:
				if err := checkIntegers(v, fl.Type, key); err != nil {
					return err
				}
			case isIntKind(fl.Type.Kind()):
				if err := checkInteger(key, v); err != nil {
					return err
				}
			case fl.Type.Kind() == reflect.Map && isIntKind(fl.Type.Elem().Kind()) && v.Kind == yaml.MappingNode:
				for j := 0; j+1 < len(v.Content); j += 2 {
					if err := checkInteger(key+"."+v.Content[j].Value, v.Content[j+1]); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func isIntKind(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Int64
}

// checkInteger refuses a scalar that YAML reads as a number with a
// fraction; other malformed values are left to the decoder's error.
func checkInteger(key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!float" {
		return nil
	}
	var f float64
	if err := v.Decode(&f); err != nil {
		return nil
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("%s: %s is not an integer (the key takes whole numbers)", key, v.Value)
	}
	return nil
}

// yamlError rewrites "line N: message" as "key.path: message", so that an
// error names the key a user typed (or set with --set), not a line of a preset.
func yamlError(err error, root *yaml.Node) string {
	s := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		var n int
		if _, scanErr := fmt.Sscanf(line, "line %d:", &n); scanErr == nil {
			if key := keyAtLine(root, "", n); key != "" {
				msg := strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				var field string
				if _, e := fmt.Sscanf(msg, "field %s not found", &field); e == nil {
					if !strings.HasSuffix(key, "."+field) && key != field {
						key += "." + field
					}
					msg = "unknown key"
				}
				line = key + ": " + msg
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "; ")
}

func keyAtLine(m *yaml.Node, prefix string, line int) string {
	if m.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if k.Line == line {
			return path
		}
		if v.Kind == yaml.MappingNode {
			if p := keyAtLine(v, path, line); p != "" {
				return p
			}
		}
	}
	return ""
}

// setKey sets a dotted key of a mapping node; the key must already exist,
// so that a typo is an error rather than a silently ignored setting.
func setKey(m *yaml.Node, key, val string) (n *yaml.Node, inFlow bool, err error) {
	parts := strings.Split(key, ".")
	n = m
	for i, p := range parts {
		inFlow = inFlow || n.Style&yaml.FlowStyle != 0
		found := false
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == p {
				n = n.Content[j+1]
				found = true
				break
			}
		}
		if !found {
			if _, known := keyMeta[key]; !known || n.Kind != yaml.MappingNode {
				return nil, false, fmt.Errorf("--set %s: unknown key %q", key, strings.Join(parts[:i+1], "."))
			}
			// A key the file leaves out (a preset of one core has no
			// cores key): added, with the sections on its way.
			for j, q := range parts[i:] {
				next := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				if i+j == len(parts)-1 {
					next = &yaml.Node{Kind: yaml.ScalarNode}
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: q}, next)
				n = next
			}
			break
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		n.Value, n.Tag, n.Style = val, "", 0
	case yaml.SequenceNode:
		var items []*yaml.Node
		for _, v := range strings.Split(val, ",") {
			items = append(items, &yaml.Node{Kind: yaml.ScalarNode, Value: strings.TrimSpace(v)})
		}
		n.Content = items
	default:
		return nil, false, fmt.Errorf("--set %s: %s is a section, not a value", key, key)
	}
	return n, inFlow, nil
}

// YAML returns the config as YAML, every key shown.
func (c *Chip) YAML() []byte {
	b, _ := yaml.Marshal(c)
	return b
}

// AddressField is one field of an address mapping: its name (ro, ra, bg,
// ba, ch, co) and its width in bits.
type AddressField struct {
	Name string
	Bits int
}

// ParseAddressMapping checks a DRAMSim3-style mapping against a device
// (every field once; channels, bank groups, banks, rows and columns powers
// of two) and returns its fields from the least significant up.
func ParseAddressMapping(m string, d DRAM) ([]AddressField, error) {
	if len(m) != 12 {
		return nil, fmt.Errorf("%q: want six two-letter fields (ro, ra, bg, ba, ch, co), most significant first", m)
	}
	sizes := map[string]int{"ro": d.Rows, "ra": 1, "bg": d.BankGroups, "ba": d.BanksPerGroup, "ch": d.Channels, "co": d.Columns}
	var out []AddressField
	seen := map[string]bool{}
	for i := 10; i >= 0; i -= 2 {
		f := m[i : i+2]
		n, ok := sizes[f]
		if !ok {
			return nil, fmt.Errorf("%q: unknown field %q (ro, ra, bg, ba, ch, co)", m, f)
		}
		if seen[f] {
			return nil, fmt.Errorf("%q: field %q twice", m, f)
		}
		seen[f] = true
		if n <= 0 || n&(n-1) != 0 {
			return nil, fmt.Errorf("%q: field %s needs a power-of-two size, got %d", m, f, n)
		}
		out = append(out, AddressField{f, bits.Len(uint(n)) - 1})
	}
	if d.AccessBytes&(d.AccessBytes-1) != 0 {
		return nil, fmt.Errorf("%q: hbm.device.access_bytes %d must be a power of two", m, d.AccessBytes)
	}
	return out, nil
}

// NumCores is the TensorCores of the chip (Cores, at least 1).
func (c *Chip) NumCores() int { return max(c.Cores, 1) }
