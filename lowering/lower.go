// Package lowering compiles XLA HLO modules to Pulse programs, kernel by
// kernel, the way XLA compiles for a TPU: the module is fused
// (fusion.Fuse), every entry-computation buffer is placed in HBM, and
// every fusion or unfused op becomes a kernel that streams its operands
// through SRAM in tiles, computes on the vector unit or the MXU, and stores
// its result back to HBM.
//
// The output is assembly text (readable: each kernel headed by its HLO
// instruction, every instruction carrying a .loc that points at the HLO op
// it implements), assembled into an executable whose debug map therefore
// leads from every machine instruction to its HLO instruction.
//
// What cannot be lowered is an error naming the op, its file:line and the
// reason — never a silent wrong answer.
package lowering

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/analysis"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/fusion"
	"github.com/pulse-sim/pulse/isa"
)

// Version identifies the code generator; compiled programs are cached
// under it.
const Version = "lowering-3"

// Error is a positioned lowering error.
type Error struct {
	File   string
	Pos    hlo.Pos
	Op     string // the HLO instruction
	Opcode string
	Reason string
	// outOfHBM marks a module that does not fit the chip's HBM: smaller
	// kernels would not help, so a fusion does not fall back on it.
	outOfHBM bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s: cannot lower: %s", e.File, e.Pos.Line, e.Pos.Col, e.Op, e.Opcode, e.Reason)
}

// Binding ties an HLO entry parameter or result to the named tensor that
// holds it in the program.
type Binding struct {
	HLOName string     // parameter or result instruction name
	Number  int        // parameter number, or tuple index of the result
	Tensor  string     // .tensor name in the program
	Shape   *hlo.Shape // HLO shape
	DType   isa.DType  // the tensor's dtype
	// Leaves are a tuple parameter's arrays, depth first, each with its
	// tensor (the parameter's own Tensor is then "").
	Leaves []Binding
}

// Kernel describes one generated kernel.
type Kernel struct {
	Name  string // the HLO instruction (fusion or op) it implements
	Kind  string // loop, output (dot), input (reduce)
	Pos   hlo.Pos
	FLOPs int64
	Bytes int64 // bytes the HLO op reads and writes, each operand and result once
	// VMEMBytes are the part of Bytes in arrays the program keeps in
	// VMEM (vmem.go): the kernel moves them at SRAM speed, not HBM's.
	VMEMBytes int64
	FirstPC   int // first instruction of the kernel in the program
	EndPC     int // one past its last
	// Source is where the model's program wrote it: the Python file and
	// line of the HLO's metadata (zero when the HLO has none).
	Source hlo.Source
}

// Unfused records a fusion lowered instruction by instruction because no
// kernel handles its pattern yet.
type Unfused struct {
	Fusion string
	Pos    hlo.Pos
	Reason string
}

// Compiled is a lowered module.
type Compiled struct {
	Unfused []Unfused
	// Split lists the fusions whose kernel did not take all of them, run
	// as several kernels (the reduction or dot alone, loop kernels for
	// the rest) rather than op by op.
	Split []Unfused
	Asm   string
	// AsmLines gives each instruction's line in Asm (the program's debug
	// map points into the HLO instead).
	AsmLines []int32
	Program  *exe.Program
	Inputs   []Binding // in parameter-number order
	Outputs  []Binding // one per result (tuple element)
	Kernels  []Kernel
	Fused    *hlo.Module
	// Sources are the sources the module's metadata names, by the
	// position of their instruction (nil: none); a machine instruction's
	// debug position finds its own.
	Sources map[hlo.Pos]hlo.Source
	// Steering marks the program's instructions whose values control flow
	// can read, as far as the HLO shows (steer.go): where a timing-only
	// run starts its search for what it must compute (nil: none known).
	Steering []bool
	// PeakHBMBytes is the most HBM the program's tensors occupy at once
	// (dead arrays' bytes are reused).
	PeakHBMBytes int64
	// HBM is what is live at that peak (hbmpeak.go).
	HBM HBMPeak
	// Feeds places the infeed and outfeed queues in host memory (nil:
	// the program has neither).
	Feeds *Feeds
	// NotModelled lists the work of the module the program leaves out
	// (host-offload transfers), so that a report can say so.
	NotModelled []NotModelled
	// Approximated lists the module's library calls Pulse runs by a
	// slower algorithm than the hardware's fused kernel (approximate.go):
	// their cycles are an upper bound, which a report must say.
	Approximated []NotModelled
	// Devices is what the program runs on (1 x 1: one chip). On several,
	// every device runs it (devices.go): Collectives are its collectives
	// by number, DeviceIDs the buffers that hold each device's ids.
	Devices     hlo.Devices
	Collectives []Collective
	DeviceIDs   []DeviceID
	// On a chip of several cores (cores.go): the kernels split across
	// them, and those that ran on core 0 alone.
	CoreSplit []CoreSplit
	OneCore   []string
	// File is the module's file, as messages name it.
	File string
}

// NotModelled is one instruction whose cost the program leaves out.
type NotModelled struct {
	Op    string  `json:"op"`
	Pos   hlo.Pos `json:"-"`
	At    string  `json:"at"`    // file:line:col
	What  string  `json:"what"`  // what is left out, and why
	Bytes int64   `json:"bytes"` // bytes it would move, per execution
}

// Compile lowers module m (parsed from file and verified) for chip, on
// the devices its header declares (one when it declares none); m is not
// changed.
func Compile(file string, m *hlo.Module, chip *config.Chip) (*Compiled, error) {
	d, err := hlo.ModuleDevices(m)
	if err != nil {
		return nil, fmt.Errorf("%s:1:1: %v", file, err)
	}
	return CompileDevices(file, m, chip, d)
}

// CompileDevices lowers m to the program every device of d runs (d.N() == 1:
// one chip; DeviceCount gives the devices a module implies).
func CompileDevices(file string, m *hlo.Module, chip *config.Chip, d hlo.Devices) (*Compiled, error) {
	return CompileWith(file, m, chip, d, Options{})
}

// CompileWith is CompileDevices with options: verification after every
// pass, dumps after the passes a pattern names.
func CompileWith(file string, m *hlo.Module, chip *config.Chip, d hlo.Devices, opts Options) (res *Compiled, err error) {
	// A lowering bug must not crash the caller: it becomes an error
	// (PULSE_DEBUG_PANIC=1 lets it crash, with its stack, to debug it).
	defer func() {
		if os.Getenv("PULSE_DEBUG_PANIC") != "" {
			return
		}
		if r := recover(); r != nil && os.Getenv("PULSE_DEBUG_PANIC") == "" {
			res, err = nil, fmt.Errorf("%s: internal lowering error (please report this with the module): %v", file, r)
		}
	}()
	chip = Target(chip) // what the program may depend on, and nothing else
	// The kernels plan their tiles below the VMEM arena (vmem.go).
	arena := vmemArenaBytes(chip, d)
	chip.Memory.SRAMBytes -= arena
	if err := checkDevices(file, m, d); err != nil {
		return nil, err
	}
	if err := checkF64(file, m, chip); err != nil {
		return nil, err
	}
	// Concatenate and pad are DMA kernels of their own here; a
	// concatenate takes the slices and reshapes of its operands, which it
	// reads as views (viewconcat.go).
	orig := m
	m = m.Clone()
	if err := runPipeline(file, m, Pipeline(chip, d), opts); err != nil {
		return nil, err
	}
	fm, _, err := fusion.FuseWith(m, fusion.FuseOptions{Exclude: []string{"concatenate", "pad"}, ViewRoots: []string{"concatenate"}, MultiOutput: true})
	if err != nil {
		return nil, err
	}
	for _, comp := range fm.Computations {
		if comp.IsEntry {
			fusion.ScheduleForMemory(comp)
		}
	}
	c := newCompiler(file, fm, chip, d)
	if arena > 0 {
		c.heap.vmem = newVMEMArena(chip.Memory.SRAMBytes, arena)
	}
	if err := c.entry(); err != nil {
		var le *Error
		if errors.As(err, &le) && le.outOfHBM {
			le.Reason += wholePeak(file, fm, chip, d)
		}
		return nil, err
	}
	src := placeResident(c.out.Bytes())
	c.out = asmBuf{} // the text is in src now: let the buffer go before assembling
	var lines []int32
	prog, err := asm.AssembleString(file+".s", src, asm.Options{Lines: &lines})
	if err != nil {
		if f := os.Getenv("PULSE_DEBUG_ASM"); f != "" {
			os.WriteFile(f, []byte(src), 0o644)
		}
		if e := c.unsupportedTile(src, err); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("internal error: the generated assembly does not assemble (please report): %v", err)
	}
	c.res.Asm, c.res.AsmLines, c.res.Program, c.res.Fused = src, lines, prog, fm
	c.res.Approximated = approximated(file, orig)
	c.locateKernels()
	c.locateSources(orig, fm)
	c.res.Steering = c.steering(fm)
	complexBindings(orig, &c.res)
	return &c.res, nil
}

// lowerMark is where the lowering stood before a kernel it may give up
// (a fusion's kernel falling back to several, a reduction of a split
// fusion falling back to materialized operands).
type lowerMark struct {
	out, kernels, labels int
	heap                 hbmAllocator
	cores                coreState
}

func (c *compiler) mark() lowerMark {
	return lowerMark{c.out.Len(), len(c.res.Kernels), c.nlabel, c.heap.snapshot(), c.coreMark()}
}

// rollback undoes what the lowering emitted and allocated since at; at
// may be rolled back to again.
func (c *compiler) rollback(at lowerMark) {
	c.out.Truncate(at.out)
	c.res.Kernels, c.nlabel, c.heap = c.res.Kernels[:at.kernels], at.labels, at.heap.snapshot()
	c.coreReset(at.cores)
}

func newCompiler(file string, fm *hlo.Module, chip *config.Chip, d hlo.Devices) *compiler {
	c := &compiler{file: file, m: fm, chip: chip, devs: d, names: map[string]bool{}, bufs: map[string]*value{}, literals: map[*value]string{}, offloadTotal: -1, synced: map[int]bool{}}
	c.res.Devices, c.res.File = d, file
	c.heap.init(chip.Memory.HBMBytes)
	return c
}

// wholePeak completes the message of a module too big for the chip with
// what the whole program needs, found by lowering it again for a chip of
// ample HBM: the first array that does not fit is seldom the peak.
func wholePeak(file string, fm *hlo.Module, chip *config.Chip, d hlo.Devices) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			if r != errTooBig {
				panic(r)
			}
			msg = ""
		}
	}()
	big := *chip
	big.Memory.HBMBytes = ampleHBM
	c := newCompiler(file, fm, &big, d)
	c.out.discard = true
	if c.entry() != nil {
		return ""
	}
	h := c.heap.report(file, nil)
	return fmt.Sprintf("; the whole program needs %s at its peak, reached at %s (%s); pulse compile --memory --set memory.hbm_bytes=%d lists the arrays live there",
		ByteSize(h.Needed), h.At, h.AtPos, (h.Needed+hbmAlign)/hbmAlign*hbmAlign)
}

// ampleHBM is the HBM wholePeak lowers for: more than any program here
// needs (4 TiB, the most the ISA addresses).
const ampleHBM = 1 << 42

// complexBindings gives the bindings of complex parameters and results
// their complex shapes back: the program holds each as its (real,
// imaginary) pairs (expand.ExpandComplex), the numbers an eval.Value of the
// complex shape holds, in the same order.
func complexBindings(orig *hlo.Module, res *Compiled) {
	if !hlo.HasComplex(orig) {
		return
	}
	params := map[int64]*hlo.Shape{}
	for _, in := range orig.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params[in.ParamNumber] = in.Shape
		}
	}
	fix := func(b *Binding, s *hlo.Shape) {
		if s == nil {
			return
		}
		if len(b.Leaves) > 0 && s.IsTuple {
			leaves := leafShapes(s)
			for i := range b.Leaves {
				if i < len(leaves) && hlo.IsComplex(leaves[i].Elem) {
					b.Leaves[i].Shape = leaves[i]
				}
			}
		}
		if !s.IsTuple && hlo.IsComplex(s.Elem) || s.IsTuple {
			b.Shape = s
		}
	}
	for i := range res.Inputs {
		fix(&res.Inputs[i], params[int64(res.Inputs[i].Number)])
	}
	root := orig.Entry.Root.Shape
	leaves := leafShapes(root)
	if len(res.Outputs) == len(leaves) {
		for i := range res.Outputs {
			fix(&res.Outputs[i], leaves[i])
		}
	}
}

// leafShapes lists a shape's arrays, depth first.
func leafShapes(s *hlo.Shape) []*hlo.Shape {
	if s == nil || !s.IsTuple {
		return []*hlo.Shape{s}
	}
	var out []*hlo.Shape
	for _, t := range s.Tuple {
		out = append(out, leafShapes(t)...)
	}
	return out
}

// maxReduceRun is the most elements a reduce kernel's row may hold: an
// eighth of a stream kernel's SRAM budget (stream.go) in f32, leaving room
// for the fused producers' rows. Longer reductions are split in two.
func maxReduceRun(chip *config.Chip) int64 {
	return min(chip.Memory.SRAMBytes/2, 4<<20) / 8 / 4
}

var locLine = regexp.MustCompile(`^\.loc "[^"]*" (\d+) (\d+) "([^"]*)"`)

// unsupportedTile turns the assembler's refusal of a tile beyond the
// ISA's limits (rank above 4, a dimension above 2^24: an array whose
// kernel needs a bigger tile than there is) into a lowering error at the HLO op the kernel line came from; other assembly
// errors stay internal errors.
func (c *compiler) unsupportedTile(src string, err error) error {
	var list asm.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return nil
	}
	if msg := list[0].Msg; !strings.Contains(msg, "tiles have at most 4 dimensions") && !strings.Contains(msg, "out of range 1..") {
		return nil
	}
	lines := strings.Split(src, "\n")
	for i := min(list[0].Pos.Line-1, len(lines)) - 1; i >= 0; i-- {
		if m := locLine.FindStringSubmatch(lines[i]); m != nil {
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			op := m[3]
			return &Error{File: c.file, Pos: hlo.Pos{Line: line, Col: col}, Op: op, Opcode: "kernel",
				Reason: "a kernel tile exceeds the ISA's limits: " + list[0].Msg}
		}
	}
	return nil
}

// maxVectorDotProducts bounds the products a dot the matrix unit cannot
// multiply may expand into (legalize.ExpandVectorDots): 4M, 16 MiB of s32.
const maxVectorDotProducts = 1 << 22

// checkDevices refuses a module whose collectives need more devices than
// d, and what is not simulated on several.
func checkDevices(file string, m *hlo.Module, d hlo.Devices) error {
	if d.N() > hlo.MaxDevices {
		return fmt.Errorf("%s:1:1: %d devices (%s); at most %d are simulated", file, d.N(), d, hlo.MaxDevices)
	}
	if d.N() == 1 {
		return multiDeviceCollective(file, m)
	}
	if need := hlo.ImpliedDevices(m); d.N() < need.N() {
		return fmt.Errorf("%s:1:1: the module's collectives span %d devices and it runs on %d (%s): give --replicas %d --partitions %d, say", file, need.N(), d.N(), d, need.Replicas, need.Partitions)
	}
	if hlo.HasComplex(m) {
		return fmt.Errorf("%s:1:1: complex numbers on %d devices are not simulated", file, d.N())
	}
	return nil
}

// checkF64 refuses a module with f64 arrays for a chip whose vector unit
// has no f64 arithmetic, at the first such instruction.
func checkF64(file string, m *hlo.Module, chip *config.Chip) error {
	if chip.VPU.F64Cost > 0 {
		return nil
	}
	var has func(s *hlo.Shape) bool
	has = func(s *hlo.Shape) bool {
		if s == nil {
			return false
		}
		if s.IsTuple {
			return slices.ContainsFunc(s.Tuple, has)
		}
		return s.Elem == hlo.F64 || s.Elem == hlo.C128
	}
	for _, comp := range m.Computations {
		for _, in := range comp.Instructions {
			if has(in.Shape) {
				return &Error{File: file, Pos: in.Pos, Op: in.Name, Opcode: in.Opcode,
					Reason: fmt.Sprintf("chip %s has no f64 arithmetic (vpu.f64_cost is 0)", chip.Name)}
			}
		}
	}
	return nil
}

// value is where an entry-computation value lives: an HBM tensor, or a
// tuple of them.
type value struct {
	empty  bool   // no elements: no tensor
	tensor string // .tensor name
	addr   int64
	shape  *hlo.Shape
	dt     isa.DType
	tuple  []*value
}

type compiler struct {
	dotSets int // the dot kernel being emitted: its buffer sets
	file    string
	m       *hlo.Module
	chip    *config.Chip
	out     asmBuf
	names   map[string]bool
	bufs    map[string]*value // entry instruction name -> its value
	heap    hbmAllocator
	res     Compiled
	nlabel  int // for unique labels
	// literals holds the scalar constants' values by buffer: a constant's
	// buffer is never written, and a computation's parameter bound to it
	// (a nested fusion's, a branch's) is the same *value.
	literals map[*value]string
	// dyingNow names the entry values whose last reader is the entry
	// instruction being lowered (nil inside called computations): a
	// while may take their tensors as its loop state (loopState).
	dyingNow []string
	// loopOwned names the tensors the while body being lowered may
	// overwrite in place: its loop state, which the carry rewrites at
	// the end of every iteration anyway (loopstate.go), each with the
	// holds on it that do not count. nextLoopOwned passes them to the
	// body's subComputation.
	loopOwned, nextLoopOwned map[string]int
	// preferIn maps the values a while body returns as its state (by
	// scoped name) to the state buffer each returns to: where a
	// multi-output kernel writes a result in place, it prefers that one.
	preferIn map[string]string
	// rngState is the generator state of rng (rngstate.go), once used.
	rngState *value
	// devs is what the program runs on (devices.go).
	devs hlo.Devices
	// feedState is the cursors of the host queues (feed.go), once used.
	feedState *value
	// offloaded gives the host address of each array moved to the host
	// (offload.go); offloadNext is the next free one.
	offloaded    map[*value]int64
	offloadNext  int64
	offloadTotal int64 // -1 until counted (offload.go)
	// On a chip of several cores (cores.go): coreSplit says how the
	// kernel being lowered was split across them ("" when it was not),
	// synced which kernels (by index) are made the chip's already.
	coreSplit string
	synced    map[int]bool
	// resultNames are the entry instructions whose buffers may be the
	// program's results, which stay in HBM; forceHBM puts every array
	// there (the copies that evict results from VMEM; vmem.go).
	resultNames   map[string]bool
	fusionResults map[*hlo.Instruction]map[string]bool // fusionResultNames'
	forceHBM      bool
	// lowering is the entry instruction being lowered (nil between them).
	lowering *hlo.Instruction
}

func (c *compiler) fail(in *hlo.Instruction, format string, a ...any) error {
	return &Error{File: c.file, Pos: in.Pos, Op: in.Name, Opcode: in.Opcode, Reason: fmt.Sprintf(format, a...)}
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]`)

// tensorName makes an assembler identifier from an HLO name, unique in
// the program.
func (c *compiler) tensorName(hloName string) string {
	base := "t_" + nonIdent.ReplaceAllString(hloName, "_")
	n := base
	for i := 2; c.names[n]; i++ {
		n = fmt.Sprintf("%s_%d", base, i)
	}
	c.names[n] = true
	return n
}

// dtypeNames lists the ISA's dtypes, for the message that refuses another.
func dtypeNames() string {
	var names []string
	for _, d := range isa.DTypes() {
		names = append(names, d.String())
	}
	return strings.Join(names, ", ")
}

// dtypeOf maps an HLO element type to an ISA dtype.
func dtypeOf(elem string) (isa.DType, bool) {
	return isa.ParseDType(elem)
}

// inTuple records that e's arrays are element i of a tuple value, for the
// names the memory report gives them (fusion.12[1]).
func (c *compiler) inTuple(e *value, i int) {
	for _, name := range distinctTensors(e) {
		o := c.heap.origin[name]
		o.index = append([]int{i}, o.index...)
		c.heap.origin[name] = o
	}
}

// alloc places a new HBM tensor for an array shape and declares it.
func (c *compiler) alloc(in *hlo.Instruction, s *hlo.Shape, init string) (*value, error) {
	if s.IsTuple {
		v := &value{shape: s}
		leafInit := ""
		if init == zeroInit {
			leafInit = zeroInit // an elided tuple constant: zeros throughout
		}
		for i, t := range s.Tuple {
			e, err := c.alloc(in, t, leafInit)
			if err != nil {
				return nil, err
			}
			c.inTuple(e, i)
			v.tuple = append(v.tuple, e)
		}
		return v, nil
	}
	if s.Elem == hlo.Token {
		return &value{shape: s, empty: true}, nil // ordering only: no bytes
	}
	dt, ok := dtypeOf(s.Elem)
	if !ok {
		return nil, c.fail(in, "element type %s has no Pulse dtype (%s)", s.Elem, dtypeNames())
	}
	dims := s.Dims
	if len(dims) == 0 {
		dims = []int64{1}
	}
	if len(dims) > 4 || slices.Max(dims) > maxTileDim {
		// Kernels address it through their own views; only they are
		// limited to 4 dimensions of up to 2^24.
		dims = declDims(s.Elems())
	}
	if s.Elems() == 0 {
		// An empty array has no bytes: no tensor, nothing to move.
		return &value{shape: s, dt: dt, empty: true}, nil
	}
	size := s.Elems() * int64(dt.Size())
	fresh := init != ""
	if init == zeroInit {
		// Zeros: bytes never used before, at the top of HBM, hold them
		// already (the memory starts zeroed); nothing to load.
		init = ""
	}
	if !fresh && c.vmemCandidate(in, size) {
		name := residentPrefix + c.tensorName(in.Name)[len("t_"):]
		if addr, ok := c.heap.vmem.take(name, size); ok {
			fmt.Fprintf(&c.out, ".tensor %s sram %#x %s[%s]\n", name, addr, dt, joinDims(dims))
			return &value{tensor: name, addr: addr, shape: s, dt: dt}, nil
		}
	}
	addr := c.heap.take(size, fresh)
	if c.heap.needed() > c.chip.Memory.HBMBytes {
		err := c.fail(in, "its %s (%s) brings the HBM needed to %s, beyond the chip's %s (%s)", s, ByteSize(size), ByteSize(c.heap.needed()), ByteSize(c.chip.Memory.HBMBytes), c.heap.largestLive(liveN))
		err.(*Error).outOfHBM = true
		return nil, err
	}
	name := c.tensorName(in.Name)
	fmt.Fprintf(&c.out, ".tensor %s hbm %#x %s[%s]%s\n", name, addr, dt, joinDims(dims), init)
	c.heap.spans[name] = hbmSpan{addr, size}
	kind := kindTemporary
	if fresh {
		c.heap.pinned[name] = true // loaded with the program (or zeroed): never reused
		kind = kindConstant
	}
	c.heap.origin[name] = tensorOrigin{in: in, kind: kind, size: size, shape: s.String()}
	c.heap.notePeak(in)
	return &value{tensor: name, addr: addr, shape: s, dt: dt}, nil
}

// zeroInit asks alloc for an array of zeros: a constant whose values the
// text elides ("{...}"), which the evaluator reads as zeros too.
const zeroInit = " = zeros"

// liveN is how many of the largest live arrays an out-of-HBM error names.
const liveN = 5

// maxTileDim is the ISA's largest tile dimension.
const maxTileDim = 1 << 24

// declDims factors n elements into at most four dimensions of up to 2^24
// for a tensor declaration (n itself when it fits): the declaration gives
// the tensor its bytes, and kernels read it through tiles of their own.
func declDims(n int64) []int64 {
	var dims []int64
	for n > maxTileDim && len(dims) < 3 {
		d := int64(maxTileDim)
		for n%d != 0 {
			d--
		}
		dims = append(dims, d)
		n /= d
	}
	return append([]int64{n}, dims...)
}

func joinDims(d []int64) string {
	s := make([]string, len(d))
	for i, x := range d {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

var aliasParam = regexp.MustCompile(`\(\s*(\d+)\s*,`)

// donatedParams are the parameters the module's input_output_alias lets an
// output take the place of (JAX's donated buffers, a training step's
// parameters and optimizer state): their HBM is released after their last
// reader, as XLA reuses a donated buffer, so that a step whose state and
// updated state would not both fit still does.
func donatedParams(m *hlo.Module) map[int64]bool {
	out := map[int64]bool{}
	a, ok := m.Attr("input_output_alias")
	if !ok {
		return out
	}
	for _, g := range aliasParam.FindAllStringSubmatch(a, -1) {
		n, _ := strconv.ParseInt(g[1], 10, 64)
		out[n] = true
	}
	return out
}

// lastReaders maps the index of each donated parameter's last reader in
// the entry computation to the parameter's name (a parameter the root
// returns is never released: the root holds it).
func lastReaders(instrs []*hlo.Instruction, root *hlo.Instruction, params []*hlo.Instruction, donated map[int64]bool) map[int][]string {
	last := map[string]int{}
	for i, in := range instrs {
		for _, o := range in.Operands {
			last[o.Name] = i
		}
	}
	out := map[int][]string{}
	for _, p := range params {
		if i, ok := last[p.Name]; ok && donated[p.ParamNumber] && p != root {
			out[i] = append(out[i], p.Name)
		}
	}
	return out
}

// entry lowers the entry computation: buffers first, then one kernel per
// instruction that computes.
func (c *compiler) entry() error {
	e := c.m.Entry
	if e == nil {
		return fmt.Errorf("%s: no entry computation", c.file)
	}
	fmt.Fprintf(&c.out, "; %s lowered by Pulse %s for %s\n", c.file, Version, c.chip.Name)
	var params []*hlo.Instruction
	for _, in := range e.Instructions {
		if in.Opcode == hlo.OpParameter {
			params = append(params, in)
		}
	}
	sort.Slice(params, func(i, j int) bool { return params[i].ParamNumber < params[j].ParamNumber })
	donated := donatedParams(c.m)
	for _, p := range params {
		v, err := c.alloc(p, p.Shape, "")
		if err != nil {
			return err
		}
		c.bufs[p.Name] = v
		for _, t := range distinctTensors(v) {
			o := c.heap.origin[t]
			o.kind = kindParameter
			c.heap.origin[t] = o
		}
		if donated[p.ParamNumber] {
			c.heap.hold(v) // released after its last reader, like any value
		} else {
			for _, t := range distinctTensors(v) {
				c.heap.pinned[t] = true
			}
		}
		b := Binding{HLOName: p.Name, Number: int(p.ParamNumber), Tensor: v.tensor, Shape: p.Shape, DType: v.dt}
		if p.Shape.IsTuple {
			// A tuple parameter is its arrays, each its own tensor.
			for _, l := range leaves(v) {
				b.Leaves = append(b.Leaves, Binding{HLOName: p.Name, Number: int(p.ParamNumber), Tensor: l.tensor, Shape: l.shape, DType: l.dt})
			}
		}
		c.res.Inputs = append(c.res.Inputs, b)
	}
	fmt.Fprintln(&c.out)
	c.resultNames = resultClosure(e)
	dying := deathRow(e.Instructions, e.Root)
	for i, names := range lastReaders(e.Instructions, e.Root, params, donated) {
		dying[i] = append(dying[i], names...)
	}
	for i, in := range e.Instructions {
		if in.Opcode == hlo.OpParameter {
			continue
		}
		c.dyingNow, c.lowering = dying[i], in
		err := c.instruction(in)
		c.dyingNow, c.lowering = nil, nil
		if err != nil {
			return err
		}
		if v := c.bufs[in.Name]; v != nil {
			c.heap.hold(v)
		}
		for _, name := range dying[i] {
			if v := c.bufs[name]; v != nil {
				c.heap.drop(v)
			}
		}
	}
	root, err := c.evictResults(e.Root, c.bufs[e.Root.Name])
	if err != nil {
		return err
	}
	c.res.PeakHBMBytes = c.heap.needed()
	defer func() {
		outs := map[string]bool{}
		for _, o := range c.res.Outputs {
			outs[o.Tensor] = true
		}
		c.res.HBM = c.heap.report(c.file, outs)
	}()
	fmt.Fprintln(&c.out, "        halt")
	if root == nil {
		return c.fail(e.Root, "the result has no value")
	}
	if root.tuple != nil || root.shape != nil && root.shape.IsTuple {
		// Nested tuples flattened, depth first, as eval.Leaves numbers
		// the evaluator's outputs.
		for i, t := range leaves(root) {
			c.res.Outputs = append(c.res.Outputs, Binding{HLOName: e.Root.Name, Number: i, Tensor: t.tensor, Shape: t.shape, DType: t.dt})
		}
	} else {
		c.res.Outputs = []Binding{{HLOName: e.Root.Name, Tensor: root.tensor, Shape: root.shape, DType: root.dt}}
	}
	return nil
}

// instruction lowers one instruction (of the entry computation or a called
// one), each kernel a kernel of the chip's every core (cores.go).
func (c *compiler) instruction(in *hlo.Instruction) error {
	return c.onCores(func() error { return c.lowerInstruction(in) })
}

// lowerInstruction lowers one instruction for one core.
func (c *compiler) lowerInstruction(in *hlo.Instruction) error {
	operand := func(i int) *value { return c.bufs[in.Operands[i].Name] }
	if !in.Shape.IsTuple && in.Shape.Elems() == 0 && in.Opcode != hlo.OpParameter {
		v, err := c.alloc(in, in.Shape, "")
		if err == nil {
			c.bufs[in.Name] = v // an empty result: no kernel
		}
		return err
	}
	if ok, err := c.passThrough(in); ok {
		return err
	}
	switch op := in.Opcode; {
	case op == hlo.OpTuple:
		v := &value{shape: in.Shape}
		for i := range in.Operands {
			v.tuple = append(v.tuple, operand(i))
		}
		c.bufs[in.Name] = v
		return nil
	case op == hlo.OpGetTupleElement:
		var idx int
		a, _ := in.Attr("index")
		fmt.Sscan(a, &idx)
		t := operand(0)
		if t == nil || idx < 0 || idx >= len(t.tuple) {
			return c.fail(in, "index %d of a non-tuple", idx)
		}
		c.bufs[in.Name] = t.tuple[idx]
		return nil
	case op == hlo.OpReshape || op == hlo.OpBitcast || op == hlo.OpCopy || op == hlo.OpOptBarrier:
		// Same bytes in row-major order: a new view of the operand's buffer.
		src := operand(0)
		if src.tuple != nil {
			c.bufs[in.Name] = src
			return nil
		}
		if src.shape != nil && src.shape.Elems() != in.Shape.Elems() {
			return c.fail(in, "changes the element count (%d to %d)", src.shape.Elems(), in.Shape.Elems())
		}
		c.bufs[in.Name] = &value{tensor: src.tensor, addr: src.addr, shape: in.Shape, dt: src.dt, empty: src.empty}
		return nil
	case op == hlo.OpBitcastConvert:
		// The same bytes read as another type of the same width: a view.
		src := operand(0)
		td, ok := dtypeOf(in.Shape.Elem)
		if src.tuple != nil || !ok || src.dt.Size() != td.Size() || src.shape.Elems() != in.Shape.Elems() {
			return c.fail(in, "only bitcast-converts between types of one width are lowered (%s to %s)", src.dt, in.Shape.Elem)
		}
		c.bufs[in.Name] = &value{tensor: src.tensor, addr: src.addr, shape: in.Shape, dt: td, empty: src.empty}
		return nil
	case op == hlo.OpCustomCall:
		t, _ := in.Attr("custom_call_target")
		if hlo.IsIdentityTarget(strings.Trim(t, `"`)) && len(in.Operands) == 1 {
			if src := operand(0); src != nil && src.shape != nil && in.Shape != nil && !src.shape.IsTuple && !in.Shape.IsTuple && src.shape.Elems() != in.Shape.Elems() {
				// SPMDFullToShardShape and SPMDShardToFullShape cut a
				// manually sharded region's arrays into each device's
				// shard and back: on one device there is no such thing.
				return c.fail(in, "%s changes %s into %s: a manually sharded region, which only XLA's SPMD partitioner reads: dump the partitioned module", t, src.shape, in.Shape)
			}
			c.bufs[in.Name] = operand(0)
			if dir := eval.HostOffload(in); dir != "" {
				v, why, err := c.hostOffload(in, operand(0), dir)
				if err != nil {
					return err
				}
				if v != nil {
					c.bufs[in.Name] = v
					return nil
				}
				c.res.NotModelled = append(c.res.NotModelled, NotModelled{Op: in.Name, Pos: in.Pos,
					At: fmt.Sprintf("%s:%d:%d", c.file, in.Pos.Line, in.Pos.Col), What: why, Bytes: in.Shape.Bytes()})
			}
			return nil
		}
		return c.fail(in, "custom-call target %s has no Pulse lowering", t)
	case op == hlo.OpConstant:
		return c.constant(in)
	case op == hlo.OpFusion:
		kind, _ := in.Attr("kind")
		name, _ := in.Attr("calls")
		fc := c.m.Computation(strings.TrimPrefix(name, "%"))
		if fc == nil {
			return c.fail(in, "calls=%s names no computation", name)
		}
		// Lower the fusion as one kernel; when its pattern is not one the
		// kernels handle, fall back to its instructions one by one
		// (through HBM: slower, still right), and say so.
		at := c.mark()
		var err error
		switch kind {
		case "kLoop":
			err = c.loopKernel(in, fc.Instructions, fc.Root)
		case "kInput":
			err = c.reduceKernel(in, fc.Instructions, fc.Root)
		case "kOutput":
			err = c.fail(in, "kOutput fusions without a dot are not lowered yet")
			if ok, perr := c.planeCorrelation(in, fc.Instructions, fc.Root); ok {
				return perr
			}
			for _, b := range fc.Instructions {
				if b.Opcode == hlo.OpDot {
					err = c.dotKernel(in, fc.Instructions, fc.Root)
				}
			}
		default:
			err = c.fail(in, "%s fusions are not lowered yet", kind)
		}
		var le *Error
		if err == nil || !errors.As(err, &le) || le.outOfHBM {
			return err
		}
		c.rollback(at)
		if kind != "kLoop" && !in.Shape.IsTuple {
			// A reduction or dot whose fused producers or epilogue its
			// kernel does not take: that op as a kernel of its own and
			// the rest as loop kernels around it (splitLoop), before
			// falling back to op by op.
			fmt.Fprintf(&c.out, "\n; %s (%s) runs as several kernels: %s\n", in.Name, kind, le.Error())
			if err2 := c.loopKernel(in, fc.Instructions, fc.Root); err2 == nil {
				c.res.Split = append(c.res.Split, Unfused{Fusion: in.Name, Pos: in.Pos, Reason: le.Error()})
				return nil
			} else if le2 := (*Error)(nil); !errors.As(err2, &le2) || le2.outOfHBM {
				return err2
			}
			c.rollback(at)
		}
		c.res.Unfused = append(c.res.Unfused, Unfused{Fusion: in.Name, Pos: in.Pos, Reason: le.Error()})
		fmt.Fprintf(&c.out, "\n; %s (%s) runs unfused: %s\n", in.Name, kind, le.Error())
		args := make([]*value, len(in.Operands))
		for i := range in.Operands {
			args[i] = operand(i)
		}
		v, err := c.subComputation(fc, args, in.Name)
		if err != nil {
			return err
		}
		c.bufs[in.Name] = v
		return nil
	case op == hlo.OpGather:
		return c.gather(in)
	case op == hlo.OpScatter:
		return c.scatter(in)
	case op == "topk":
		if ok, err := c.topKKernel(in); ok || err != nil {
			return err
		}
		return c.fail(in, "a topk the SRAM top-k kernel does not take reached the compiler (the legalization expands those)")
	case op == hlo.OpSort:
		if ok, err := c.sortKernel(in); ok || err != nil {
			return err
		}
		return c.fail(in, "a sort the SRAM sort kernel does not take reached the compiler (the legalization expands those)")
	case op == hlo.OpDynamicSlice:
		return c.dynamicSlice(in)
	case op == hlo.OpDynamicUpdateSlice:
		return c.dynamicUpdateSlice(in)
	case op == hlo.OpAfterAll:
		c.bufs[in.Name] = &value{shape: in.Shape, empty: true} // a token: no data
		return nil
	case op == hlo.OpRngGetAndUpdateState:
		return c.rngGetAndUpdateState(in)
	case op == hlo.OpInfeed:
		return c.infeed(in)
	case op == hlo.OpOutfeed:
		return c.outfeed(in)
	case (op == hlo.OpSend || op == hlo.OpRecv || op == hlo.OpSendDone || op == hlo.OpRecvDone) && hlo.IsHostTransfer(in):
		return c.hostTransfer(in)
	case op == hlo.OpSend || op == hlo.OpRecv || op == hlo.OpSendDone || op == hlo.OpRecvDone:
		return c.fail(in, "a %s between devices is not simulated (docs/devices.md; transfers with is_host_transfer=true use the host queues)", op)
	case op == hlo.OpWhile:
		return c.whileLoop(in)
	case op == hlo.OpConditional:
		return c.conditional(in)
	case op == hlo.OpDot:
		return c.dotKernel(in, c.singleton(in), nil)
	case op == hlo.OpConvolution:
		if ok, err := c.planeCorrelation(in, c.singleton(in), nil); ok {
			return err
		}
		return c.fail(in, "a convolution the plane-correlation kernel does not take reached the compiler (the legalization expands those)")
	case op == hlo.OpReduce:
		return c.reduceKernel(in, c.singleton(in), nil)
	case op == hlo.OpTranspose || op == hlo.OpSlice || op == hlo.OpReverse || op == hlo.OpConcatenate || op == hlo.OpPad:
		return c.moveKernel(in)
	case hlo.IsElementwise(op) || op == hlo.OpBroadcast || op == hlo.OpIota:
		// An unfused elementwise op is a loop kernel of one instruction.
		return c.loopKernel(in, c.singleton(in), nil)
	}
	return c.fail(in, "not lowered yet")
}

// singleton wraps one entry instruction as a fused body: its operands
// become parameters.
func (c *compiler) singleton(in *hlo.Instruction) []*hlo.Instruction {
	var body []*hlo.Instruction
	cp := *in
	cp.Operands = nil
	seen := map[string]bool{}
	for i, o := range in.Operands {
		var shape *hlo.Shape
		if v := c.bufs[o.Name]; v != nil {
			shape = v.shape
		}
		if !seen[o.Name] { // multiply(x, x) reads one parameter twice
			seen[o.Name] = true
			body = append(body, &hlo.Instruction{Pos: o.Pos, Name: o.Name, Opcode: "parameter", ParamNumber: int64(i), Shape: shape})
		}
		cp.Operands = append(cp.Operands, &hlo.Operand{Pos: o.Pos, Name: o.Name})
	}
	cp.IsRoot = true
	return append(body, &cp)
}

// paramIn says whether body holds parameter number n.
func paramIn(body []*hlo.Instruction, n int64) bool {
	for _, b := range body {
		if b.Opcode == hlo.OpParameter && b.ParamNumber == n {
			return true
		}
	}
	return false
}

// constant places a constant in HBM with its values.
func (c *compiler) constant(in *hlo.Instruction) error {
	init := ""
	lit := strings.TrimSpace(in.Literal)
	if _, ok := dtypeOf(in.Shape.Elem); !ok && !in.Shape.IsTuple {
		// The type first: a complex literal is not "bad", its type is
		// not the chip's.
		return c.fail(in, "element type %s has no Pulse dtype (%s)", in.Shape.Elem, dtypeNames())
	}
	if in.Shape.IsTuple && lit != "{...}" {
		return c.fail(in, "tuple constants with values are not lowered yet") // (never uninitialized bytes)
	}
	if lit == "{...}" {
		// Elided values are zeros, as the evaluator reads them: in
		// bytes no other array used before (a reused span holds its
		// earlier owner's values).
		init = zeroInit
	} else if dt, _ := dtypeOf(in.Shape.Elem); !in.Shape.IsTuple && in.Shape.Elems() > 1 && !strings.HasPrefix(lit, "{") && !dt.IsWide() {
		// One bare value fills the array: read as a scalar, written as a
		// fill (19M values of text would take gigabytes).
		one := *in
		one.Shape = &hlo.Shape{Elem: in.Shape.Elem}
		text, err := c.literalText(&one)
		if err != nil || len(text) != 1 {
			return c.fail(in, "bad literal %q", in.Literal)
		}
		init = " = fill(" + text[0] + ")"
	} else if !in.Shape.IsTuple {
		text, err := c.literalText(in)
		if err != nil {
			return err
		}
		init = " = {" + strings.Join(text, ", ") + "}"
		if len(text) == 1 {
			lit = text[0]
		} else if dt, _ := dtypeOf(in.Shape.Elem); !dt.IsWide() && !slices.ContainsFunc(text, func(t string) bool { return t != text[0] }) {
			init = " = fill(" + text[0] + ")" // one value throughout: no megabytes of text
		}
	}
	v, err := c.alloc(in, in.Shape, init)
	if err != nil {
		return err
	}
	c.bufs[in.Name] = v
	if len(in.Shape.Dims) == 0 && lit != "{...}" && fillable(v.dt, lit) {
		c.literals[v] = lit
	}
	return nil
}

// scalarLiteral is a scalar constant's value as the assembler reads it.
func (c *compiler) scalarLiteral(b *hlo.Instruction) (string, error) {
	text, err := c.literalText(b)
	if err != nil || len(text) != 1 {
		return "", c.fail(b, "bad scalar literal %q", b.Literal)
	}
	if dt, _ := dtypeOf(b.Shape.Elem); !fillable(dt, text[0]) {
		return "", c.fail(b, "the %s constant %s does not fit a vfill immediate (32 bits)", b.Shape.Elem, text[0])
	}
	return text[0], nil
}

var intToken = regexp.MustCompile(`-?[0-9]+`)

// literalText is a constant's elements as the assembler reads them. 64-bit
// integers are copied digit for digit (a float64 would round them), u64
// values past 2^63 written as the s64 of the same bits.
func (c *compiler) literalText(in *hlo.Instruction) ([]string, error) {
	if dt, ok := dtypeOf(in.Shape.Elem); ok && dt.IsWide() {
		toks := intToken.FindAllString(in.Literal, -1)
		if len(toks) == 1 && !strings.HasPrefix(strings.TrimSpace(in.Literal), "{") {
			// One bare value fills the array (hlo's constant).
			for int64(len(toks)) < in.Shape.Elems() {
				toks = append(toks, toks[0])
			}
		}
		if int64(len(toks)) != in.Shape.Elems() {
			return nil, c.fail(in, "bad literal %q", in.Literal)
		}
		for i, t := range toks {
			if u, err := strconv.ParseUint(t, 10, 64); err == nil {
				toks[i] = strconv.FormatInt(int64(u), 10)
			} else if _, err := strconv.ParseInt(t, 10, 64); err != nil {
				return nil, c.fail(in, "literal %s does not fit %s", t, in.Shape.Elem)
			}
		}
		return toks, nil
	}
	vals, err := eval.LiteralValues(in)
	if err != nil {
		return nil, c.fail(in, "bad literal %q", in.Literal)
	}
	text := make([]string, len(vals))
	for i, x := range vals {
		text[i] = asmNumber(x)
	}
	return text, nil
}

// fillableScalar reports whether scalar constant b can be a vfill.
func (c *compiler) fillableScalar(b *hlo.Instruction) bool {
	dt, ok := dtypeOf(b.Shape.Elem)
	if !ok || !dt.IsWide() && dt != isa.F64 {
		return true
	}
	text, err := c.literalText(b)
	return err == nil && len(text) == 1 && fillable(dt, text[0])
}

// fillable reports whether a scalar literal of dtype dt fits vfill's 32-bit
// immediate (sign-extended for s64, zero-extended for u64; f64 values an
// f32 holds exactly).
func fillable(dt isa.DType, lit string) bool {
	if dt == isa.F64 {
		x, err := strconv.ParseFloat(lit, 64)
		return err == nil && (x != x || float64(float32(x)) == x)
	}
	if !dt.IsWide() {
		return true
	}
	v, err := strconv.ParseInt(lit, 10, 64)
	if dt == isa.U64 {
		return err == nil && v >= 0 && v <= math.MaxUint32
	}
	return err == nil && v >= math.MinInt32 && v <= math.MaxInt32
}

// asmNumber prints a value as the assembler reads it.
func asmNumber(x float64) string {
	switch {
	case math.IsNaN(x) && math.Signbit(x):
		return "-nan" // a sort's total order tells it from nan
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	case x == math.Trunc(x) && math.Abs(x) < 1<<62 && !(x == 0 && math.Signbit(x)):
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// locateKernels finds each kernel's instruction range from the origin its
// instructions carry (the kernel's HLO instruction name).
func (c *compiler) locateKernels() {
	p := c.res.Program
	at := map[string]int{}
	for i := range c.res.Kernels {
		at[c.res.Kernels[i].Name] = i
		c.res.Kernels[i].FirstPC, c.res.Kernels[i].EndPC = -1, -1
	}
	for pc, d := range p.Debug {
		if i, ok := at[d.Origin]; ok {
			k := &c.res.Kernels[i]
			if k.FirstPC < 0 {
				k.FirstPC = pc
			}
			k.EndPC = pc + 1
		}
	}
	c.kernelVMEMBytes()
}

// kernelVMEMBytes finds each kernel's VMEMBytes: the VMEM arrays its
// instructions name (each counted whole once, at most its Bytes), by
// name: the arena reuses addresses, so an address alone may be a tensor
// that lived there before (the kernels that read and write VMEM in place
// were credited with the wrong one, and their roofs fell below their
// times).
func (c *compiler) kernelVMEMBytes() {
	size := map[string]int64{}
	for _, s := range c.res.Program.Symbols {
		if isResident(s.Name) {
			size[s.Name] = s.Bytes()
		}
	}
	if len(size) == 0 {
		return
	}
	// kernel (origin) -> VMEM tensors named, as written (the first
	// operand) or read: one written in place counts as both, as its bytes
	// do in the kernel's Bytes.
	type use struct {
		name    string
		written bool
	}
	refs := map[string]map[use]bool{}
	origin := ""
	for _, line := range strings.Split(c.res.Asm, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, ".origin "):
			origin, _ = strconv.Unquote(strings.TrimSpace(t[len(".origin "):]))
		case t == "" || strings.HasPrefix(t, ".") || strings.HasPrefix(t, ";"):
		default:
			first := firstOperandEnd(t)
			for _, at := range residentName.FindAllStringIndex(t, -1) {
				name := t[at[0]:at[1]]
				if size[name] == 0 {
					continue
				}
				if refs[origin] == nil {
					refs[origin] = map[use]bool{}
				}
				refs[origin][use{name, at[0] < first}] = true
			}
		}
	}
	for i := range c.res.Kernels {
		k := &c.res.Kernels[i]
		var n int64
		for u := range refs[k.Name] {
			n += size[u.name]
		}
		k.VMEMBytes = min(n, k.Bytes)
	}
}

// firstOperandEnd is where an instruction's first operand ends: the first
// comma outside brackets and braces after its mnemonic (the line's end if
// none).
func firstOperandEnd(inst string) int {
	depth := 0
	for i, r := range inst {
		switch r {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return len(inst)
}

// residentName matches a VMEM tensor's name in an instruction.
var residentName = regexp.MustCompile(`\b` + residentPrefix + `[A-Za-z0-9_]+`)

// kernelCost is what the HLO says a kernel costs: the FLOPs of its body
// instructions and the bytes of the operands it reads and of its result
// (each HBM buffer read once and written once). An operand whose parameter
// the body does not hold is not read: a piece split out of a fusion
// (split.go) carries all the fusion's operands but reads only its own.
func (c *compiler) kernelCost(in *hlo.Instruction, body []*hlo.Instruction) (flops, bytes int64) {
	bc := &hlo.Computation{Instructions: body}
	// Operand shapes by name, found once: OperandShapes scans the body per
	// operand, and a body of the whole entry (40,000 instructions) made
	// that quadratic (issue 44, 7).
	shapeOf := make(map[string]*hlo.Shape, len(body))
	for _, b := range body {
		if _, dup := shapeOf[b.Name]; !dup {
			shapeOf[b.Name] = b.Shape
		}
	}
	for _, b := range body {
		if b.Opcode == hlo.OpParameter || b.Shape == nil {
			continue
		}
		ops := make([]*hlo.Shape, len(b.Operands))
		for i, o := range b.Operands {
			ops[i] = o.Shape
			if ops[i] == nil {
				ops[i] = shapeOf[o.Name]
			}
		}
		flops += analysis.InstructionCost(bc, b, ops).FLOPs
	}
	// An operand the body only slices is read only in part, also through
	// reshapes and bitcasts (the same bytes: a convolution's windows are
	// slices of its padded input flattened to rows).
	sliced := map[int64]int64{} // parameter number -> bytes its slices read, -1 if used whole
	params := map[string]int64{}
	views := map[string]int64{} // reshapes and bitcasts of a parameter
	for _, b := range body {
		if b.Opcode == hlo.OpParameter {
			params[b.Name] = b.ParamNumber
		}
	}
	for _, b := range body {
		if (b.Opcode == hlo.OpReshape || b.Opcode == hlo.OpBitcast) && len(b.Operands) == 1 {
			if p, ok := params[b.Operands[0].Name]; ok {
				views[b.Name] = p
			} else if p, ok := views[b.Operands[0].Name]; ok {
				views[b.Name] = p
			}
		}
	}
	for _, b := range body {
		if _, ok := views[b.Name]; ok {
			continue // its readers decide
		}
		for _, o := range b.Operands {
			p, ok := params[o.Name]
			if !ok {
				p, ok = views[o.Name]
			}
			switch {
			case !ok || sliced[p] < 0:
			case b.Opcode == hlo.OpSlice && b.Shape != nil:
				sliced[p] += b.Shape.Bytes()
			default:
				sliced[p] = -1
			}
		}
	}
	// A body without parameters reads the operands it names directly (an
	// instruction lowered as it stands), or none: a piece split out of a
	// fusion that computes from constants alone (MobileNet-v2's
	// select.2341, a scalar 1/49) read nothing, and counting the fusion's
	// two 480 KiB operands made it claim 1,084% of its roof.
	named := map[string]bool{}
	if len(params) == 0 {
		for _, b := range body {
			for _, o := range b.Operands {
				named[o.Name] = true
			}
		}
	}
	seen := map[string]bool{}
	for i, o := range in.Operands {
		_, read := sliced[int64(i)]
		if len(params) > 0 && !read && !paramIn(body, int64(i)) || len(params) == 0 && !named[o.Name] {
			continue
		}
		if v := c.bufs[o.Name]; v != nil && v.shape != nil && !seen[v.tensor] {
			seen[v.tensor] = true
			if part, ok := sliced[int64(i)]; ok && part >= 0 && part < v.shape.Bytes() {
				bytes += part
				continue
			}
			bytes += v.shape.Bytes()
		}
	}
	return flops, bytes + in.Shape.Bytes()
}
