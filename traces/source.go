// Package traces turns timed runs into what engineers look at: Perfetto
// timelines (Chrome Trace Event JSON), pprof cycle profiles, and roofline
// charts. Its recorders attach to a core.Model through sim hooks
// (core.Options.Observers); no component imports this package, and a run
// with no recorder attached builds no hook context at all.
package traces

import (
	"fmt"
	"path/filepath"

	"github.com/pulse-sim/pulse/exe"
)

// Kernel is a range of instructions that implement one piece of work: an
// HLO fusion or op for compiled modules, the whole program for a
// hand-written kernel.
type Kernel struct {
	Name  string // the HLO fusion or op, or the program's file name
	Label string // the kernel's label in the assembly (k1, k2, ...), if any
	Kind  string // loop, output, input, copy; program for a hand-written kernel
	File  string // where Name is defined (the HLO file)
	Line  int    // its line there (0: unknown)
	FLOPs int64  // the HLO's count for one run (0 for a hand-written kernel)
	Bytes int64  // bytes the HLO op reads and writes in one run
	// VMEMBytes are the part of Bytes in arrays kept in VMEM, which the
	// kernel moves at SRAM speed (lowering/vmem.go).
	VMEMBytes int64
	FirstPC   int
	EndPC     int // one past the last instruction
	// Origin is where the model's program wrote the kernel's work (the
	// Python file and line of the HLO's metadata); zero when unknown.
	Origin Origin
}

// Origin is a place in the program a model was written in: a Python file
// and line, and the framework's name for the op (JAX's name stack,
// PyTorch/XLA's op), from the HLO's metadata or a StableHLO export's debug
// locations.
type Origin struct {
	File string
	Line int
	Op   string
}

// String is "file:line" ("" when the file is unknown).
func (o Origin) String() string {
	switch {
	case o.File == "":
		return ""
	case o.Line <= 0:
		return o.File
	}
	return fmt.Sprintf("%s:%d", o.File, o.Line)
}

// Source says where every instruction of a program came from: its kernel,
// its HLO instruction and its line in the assembly. The recorders use it
// to name slices and stack frames.
type Source struct {
	Prog    *exe.Program
	Kernels []Kernel
	// AsmFile is the assembly the program was assembled from and AsmLines
	// each instruction's line in it; with AsmLines nil the debug map's lines
	// are taken as assembly lines (a hand-written kernel).
	AsmFile  string
	AsmLines []int32
	// HLO is true when the debug map points into an HLO module (its Origin
	// is the HLO instruction each machine instruction implements).
	HLO bool
	// Origins are the model's source lines of the HLO instructions, by
	// their position (line and column) in the HLO: what a machine
	// instruction's debug position finds (nil: none known).
	Origins map[[2]int32]Origin

	kernelOf []int32 // pc -> kernel index, -1 for none
}

// ProgramSource describes a hand-written program assembled from file:
// one kernel, the whole program, named after the file.
func ProgramSource(prog *exe.Program, file string) *Source {
	s := &Source{Prog: prog, AsmFile: file, Kernels: []Kernel{{Name: filepath.Base(file), Kind: "program", File: file, Line: 1, FirstPC: 0, EndPC: len(prog.Code)}}}
	s.index()
	return s
}

// NewSource describes a program whose kernels are known (a compiled HLO
// module's, hlo set: runtime builds them from the compiler's kernels, so
// that traces need not import the compiler); asmLines is each
// instruction's line in asmFile, nil for the debug map's.
func NewSource(prog *exe.Program, asmFile string, asmLines []int32, kernels []Kernel, hlo bool) *Source {
	s := &Source{Prog: prog, AsmFile: asmFile, AsmLines: asmLines, Kernels: kernels, HLO: hlo}
	s.index()
	return s
}

func (s *Source) index() {
	s.kernelOf = make([]int32, len(s.Prog.Code))
	for i := range s.kernelOf {
		s.kernelOf[i] = -1
	}
	for k, kn := range s.Kernels {
		for pc := max(kn.FirstPC, 0); pc < kn.EndPC && pc < len(s.kernelOf); pc++ {
			s.kernelOf[pc] = int32(k)
		}
	}
}

// KernelOf is the kernel instruction pc belongs to (-1: none).
func (s *Source) KernelOf(pc int) int {
	if pc < 0 || pc >= len(s.kernelOf) {
		return -1
	}
	return int(s.kernelOf[pc])
}

// Mnemonic is the instruction's mnemonic ("?" for an unknown pc).
func (s *Source) Mnemonic(pc int) string {
	if pc < 0 || pc >= len(s.Prog.Code) {
		return "?"
	}
	return s.Prog.Code[pc].Op.Info().Mnemonic
}

// AsmLine is the instruction's line in AsmFile (0: unknown).
func (s *Source) AsmLine(pc int) int {
	switch {
	case pc < 0 || pc >= len(s.Prog.Code):
		return 0
	case s.AsmLines != nil:
		if pc < len(s.AsmLines) {
			return int(s.AsmLines[pc])
		}
		return 0
	}
	return int(s.Prog.DebugAt(pc).Line)
}

// HLOOp is the HLO instruction instruction pc implements, qualified by its
// fusion ("fusion.2/reduce_max"), or "" when unknown.
func (s *Source) HLOOp(pc int) string {
	o := s.Prog.DebugAt(pc).Origin
	if o == "" {
		return ""
	}
	if k := s.KernelOf(pc); k >= 0 && s.HLO {
		kn := s.Kernels[k].Name
		if o != kn && !hasPrefix(o, kn+"/") {
			return kn + "/" + o
		}
	}
	return o
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
