package core_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/core"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/conformance"
	"github.com/pulse-sim/pulse/ref"
	"github.com/stretchr/testify/require"
)

func both(t *testing.T, chipName string, prog *exe.Program, sets ...string) (*ref.Machine, error, *core.Model, error) {
	t.Helper()
	chip, err := config.Load(chipName, sets)
	require.NoError(t, err)
	rm, err := ref.New(chip, prog)
	require.NoError(t, err)
	rerr := rm.Run(ref.Options{MaxSteps: 10_000_000})
	cm, err := core.New(chip, prog, core.Options{MaxCycles: 50_000_000})
	require.NoError(t, err)
	cerr := cm.Run()
	return rm, rerr, cm, cerr
}

// TestDifferentialConformance: every conformance program ends in the same
// state on the timing model as on the functional executor, byte for byte,
// or fails the same way.
func TestDifferentialConformance(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	for _, c := range cases {
		if c.Name == "fault_steps.s" || c.Name == "fault_queue.s" {
			continue // the executor's step and queue guards; the timing model has --max-cycles and real queues
		}
		t.Run(c.Name, func(t *testing.T) {
			prog, err := c.Assemble()
			require.NoError(t, err)
			rm, rerr, cm, cerr := both(t, c.Chip, prog, c.Sets...)
			if rerr != nil {
				require.Error(t, cerr, "ref failed with %v", rerr)
				var rd, cd *ref.Deadlock
				if errors.As(rerr, &rd) {
					require.ErrorAs(t, cerr, &cd)
				} else {
					require.Equal(t, rerr.Error(), cerr.Error())
				}
				return
			}
			require.NoError(t, cerr)
			require.Empty(t, ref.Diff(rm, cm.Arch))
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			require.Equal(t, rm.Retired, cm.Retired())
			require.Greater(t, cm.Cycles(), int64(0))
		})
	}
}

func TestDifferentialExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/kernels/*.s")
	for _, f := range files {
		if filepath.Base(f) == "gemm4096.s" {
			continue // 6.9e10 MACs: a timing-only kernel (TestGEMM4096 in chip/)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			prog, err := asm.Assemble(f, src, asm.Options{})
			require.NoError(t, err)
			chip, sets := kernelChip(src)
			rm, rerr, cm, cerr := both(t, chip, prog, sets...)
			require.NoError(t, rerr)
			require.NoError(t, cerr)
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			// Every moment of every unit is attributed to exactly one state.
			for _, u := range cm.Units {
				require.Equal(t, cm.End(), u.Accounting().Total(), "%s", u.Name)
			}
		})
	}
}

func TestMaxCycles(t *testing.T) {
	// A long count-down: it would end, but not within the limit.
	prog, err := asm.Assemble("count.s", []byte("  li r1, 100000\nl: addi r1, r1, -1\n  bne r1, r0, l\n  halt\n"), asm.Options{})
	require.NoError(t, err)
	chip, _ := config.Load("teach16", nil)
	m, err := core.New(chip, prog, core.Options{MaxCycles: 1000})
	require.NoError(t, err)
	err = m.Run()
	var mc *core.MaxCyclesError
	require.ErrorAs(t, err, &mc)
	require.Contains(t, err.Error(), "max-cycles")
	// The same with no limit given ends.
	m, err = core.New(chip, prog, core.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Run())
}

// A sequencer that loops on its own with nothing changing stops at once,
// not at the cycle limit; loops that change registers, or wait on units,
// run on.
func TestEndlessLoop(t *testing.T) {
	chip, _ := config.Load("teach16", nil)
	cases := []struct {
		name, src string
		endless   bool
	}{
		{"jmp to itself", "top: jmp top\n", true},
		{"a loop body with no effect", "  li r1, 3\nl: addi r2, r1, 1\n  ld r3, [0]\n  jmp l\n", true},
		{"a loop that counts", "  li r1, 0\nl: addi r1, r1, 1\n  jmp l\n", false},
		{"a loop that stores", "  li r1, 3\nl: st r1, [0]\n  jmp l\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prog, err := asm.Assemble("l.s", []byte(c.src), asm.Options{})
			require.NoError(t, err)
			m, err := core.New(chip, prog, core.Options{MaxCycles: 200_000})
			require.NoError(t, err)
			err = m.Run()
			var el *core.EndlessLoopError
			if c.endless {
				require.ErrorAs(t, err, &el)
				require.Less(t, el.Cycles, int64(100))
				return
			}
			var mc *core.MaxCyclesError
			require.ErrorAs(t, err, &mc)
		})
	}
}

// kernelChip is an example kernel's chip: teach16 or its "; chip: NAME"
// line, with its "; set: KEY=VALUE" overrides.
func kernelChip(src []byte) (string, []string) {
	chip, sets := "teach16", []string(nil)
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "; chip: "); ok {
			chip = strings.TrimSpace(rest)
		}
		if rest, ok := strings.CutPrefix(line, "; set: "); ok {
			sets = append(sets, strings.TrimSpace(rest))
		}
	}
	return chip, sets
}

// TestDifferentialBankedHBM: with the bank-level DRAM model the timing
// changes and the values do not.
func TestDifferentialBankedHBM(t *testing.T) {
	for _, f := range []string{"gemm256.s", "softmax.s", "vadd.s"} {
		t.Run(f, func(t *testing.T) {
			path := "../examples/kernels/" + f
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			prog, err := asm.Assemble(path, src, asm.Options{})
			require.NoError(t, err)
			name := "teach16"
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(line, "; chip: "); ok {
					name = strings.TrimSpace(rest)
				}
			}
			chip, err := config.Load(name, []string{"hbm.model=banked"})
			require.NoError(t, err)
			rm, err := ref.New(chip, prog)
			require.NoError(t, err)
			require.NoError(t, rm.Run(ref.Options{}))
			cm, err := core.New(chip, prog, core.Options{})
			require.NoError(t, err)
			require.NoError(t, cm.Run())
			require.Equal(t, rm.Snapshot(), cm.Arch.Snapshot())
			require.Greater(t, cm.HBM.Stats().Accesses, int64(0))
		})
	}
}

// sameTiming requires two runs of one program to agree on every timing
// figure: cycles, instructions, each unit's time in each state, HBM
// traffic and bank conflicts.
func sameTiming(t *testing.T, want, got *core.Model) {
	t.Helper()
	require.Equal(t, want.Cycles(), got.Cycles(), "cycles")
	require.Equal(t, want.End(), got.End(), "end time")
	require.Equal(t, want.Retired(), got.Retired(), "instructions")
	require.Equal(t, want.FLOPs(), got.FLOPs(), "FLOPs")
	require.Equal(t, want.Seq.Accounting().T, got.Seq.Accounting().T, "sequencer accounting")
	for i, u := range want.Units {
		require.Equal(t, u.Accounting().T, got.Units[i].Accounting().T, "%s accounting", u.Name)
		require.Equal(t, u.Instructions, got.Units[i].Instructions, "%s instructions", u.Name)
	}
	require.Equal(t, want.HBM.Stats(), got.HBM.Stats(), "HBM")
	require.Equal(t, want.SRAMBanks.ConflictCycles, got.SRAMBanks.ConflictCycles, "SRAM conflicts")
	require.Equal(t, want.ACCBanks.ConflictCycles, got.ACCBanks.ConflictCycles, "ACC conflicts")
}

// bothModes runs prog with values and timing-only and requires the same
// outcome: the same error, or the same timing to the picosecond.
func bothModes(t *testing.T, chip *config.Chip, prog *exe.Program) *core.Model {
	t.Helper()
	vm, verr := core.Simulate(chip, prog, core.Options{MaxCycles: 50_000_000}, nil)
	tm, terr := core.Simulate(chip, prog, core.Options{MaxCycles: 50_000_000, TimingOnly: true}, nil)
	if verr != nil {
		require.Error(t, terr, "the value run failed with %v", verr)
		require.Equal(t, verr.Error(), terr.Error())
		return tm
	}
	require.NoError(t, terr)
	sameTiming(t, vm, tm)
	return tm
}

// TestTimingOnlyConformance: every conformance program gives the same
// cycles, accounting and faults timing-only as with values.
func TestTimingOnlyConformance(t *testing.T) {
	cases, err := conformance.Cases()
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			prog, err := c.Assemble()
			require.NoError(t, err)
			chip, err := config.Load(c.Chip, c.Sets)
			require.NoError(t, err)
			bothModes(t, chip, prog)
		})
	}
}

// TestTimingOnlyExamples: the example kernels, on their own chip and on
// others (where they may fault: the same fault).
func TestTimingOnlyExamples(t *testing.T) {
	files, _ := filepath.Glob("../examples/kernels/*.s")
	for _, f := range files {
		if filepath.Base(f) == "gemm4096.s" {
			continue // 6.9e10 MACs: too slow with values
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		prog, err := asm.Assemble(f, src, asm.Options{})
		require.NoError(t, err)
		own, ownSets := kernelChip(src)
		for _, ch := range []struct{ name, set string }{{"teach16", ""}, {"tpuv4core", ""}, {"tpuv4core", "hbm.model=banked"},
			{"teach16", "mxu.rows=8"}, {"trn1nc", ""}, {"tpuv4core", "mxu.dataflow=os"}, {"tpuv4core", "mxu.dataflow=is"}, {own, "own"}} {
			t.Run(filepath.Base(f)+"/"+ch.name+ch.set, func(t *testing.T) {
				var sets []string
				switch ch.set {
				case "":
				case "own":
					sets = ownSets
				default:
					sets = append(sets, ch.set)
				}
				chip, err := config.Load(ch.name, sets)
				require.NoError(t, err)
				bothModes(t, chip, prog)
			})
		}
	}
}

// An oversized weight tile faults timing-only as it does with values (it
// used to run to the end and report an MXU utilization).
func TestTimingOnlyChecksTiles(t *testing.T) {
	prog, err := asm.Assemble("k.s", []byte(`
.tensor W sram 0x0 bf16[16,16]
  mxu.ldw sram[r0]:bf16[16,16]
  halt
`), asm.Options{})
	require.NoError(t, err)
	chip, err := config.Load("teach16", []string{"mxu.rows=8", "mxu.cols=8"})
	require.NoError(t, err)
	_, err = core.Simulate(chip, prog, core.Options{TimingOnly: true}, nil)
	require.ErrorContains(t, err, "oversized weight tile")
}

// A memory that never answers (here a refresh interval shorter than the
// refresh, which config validation refuses but a hand-built chip can
// have) ends the run with each unit's state, not a hang.
func TestWatchdog(t *testing.T) {
	chip, err := config.Load("tpuv4core", []string{"hbm.model=banked"})
	require.NoError(t, err)
	chip.HBM.Timing.REFI = 1
	src, err := os.ReadFile("../examples/kernels/vadd.s")
	require.NoError(t, err)
	prog, err := asm.Assemble("vadd.s", src, asm.Options{})
	require.NoError(t, err)
	m, err := core.New(chip, prog, core.Options{TimingOnly: true, WatchdogCycles: 100_000})
	require.NoError(t, err)
	err = m.Run()
	var se *core.StuckError
	require.ErrorAs(t, err, &se)
	require.Contains(t, err.Error(), "no progress")
	require.Regexp(t, `dma0: \d+ instructions in flight`, err.Error())
}

// f64 arithmetic costs vpu.f64_cost times the f32 op; moving f64 data costs
// two passes of the 32-bit lanes; a chip whose cost is 0 refuses f64
// arithmetic on both executors.
func TestF64Cost(t *testing.T) {
	src := func(op, dt string) []byte {
		return []byte("  " + op + " sram[0]:" + dt + "[1024], sram[0x4000]:" + dt + "[1024]" +
			map[bool]string{true: ", sram[0x8000]:" + dt + "[1024]"}[op == "vadd"] + "\n  halt\n")
	}
	cycles := func(op, dt string, cost string) int64 {
		prog, err := asm.Assemble("f.s", src(op, dt), asm.Options{})
		require.NoError(t, err)
		_, rerr, cm, cerr := both(t, "teach16", prog, "vpu.f64_cost="+cost, "vpu.latency=0")
		require.NoError(t, rerr)
		require.NoError(t, cerr)
		return cm.Cycles()
	}
	// teach16: 16 lanes, 1024 elements: 64 element groups.
	require.Equal(t, int64(64*8), cycles("vadd", "f64", "16")-cycles("vadd", "f64", "8"))
	require.Equal(t, cycles("vcopy", "f64", "8"), cycles("vcopy", "f64", "16"), "a copy does no arithmetic")
	prog, err := asm.Assemble("f.s", src("vadd", "f64"), asm.Options{})
	require.NoError(t, err)
	_, rerr, _, cerr := both(t, "teach16", prog, "vpu.f64_cost=0")
	require.ErrorContains(t, rerr, "vpu.f64_cost is 0")
	require.ErrorContains(t, cerr, "vpu.f64_cost is 0")
}

// vpu.f16_convert_cost: each f16 operand read and f16 result written adds
// its cost per element group (lanes that emulate f16); a vcvt pays one
// conversion, an f16 add three, a copy none (it moves the bits). (Measured
// between two costs: at 0 the banks, not the lanes, may bound it.)
func TestF16ConvertCost(t *testing.T) {
	cycles := func(line, cost string) int64 {
		prog, err := asm.Assemble("h.s", []byte("  "+line+"\n  halt\n"), asm.Options{})
		require.NoError(t, err)
		_, rerr, cm, cerr := both(t, "teach16", prog, "vpu.f16_convert_cost="+cost, "vpu.latency=0")
		require.NoError(t, rerr)
		require.NoError(t, cerr)
		return cm.Cycles()
	}
	// teach16: 16 lanes, 1024 elements: 64 element groups.
	for _, c := range []struct {
		line  string
		convs int64
	}{
		{"vcvt    sram[0]:f32[1024], sram[0x4000]:f16[1024]", 1},
		{"vcvt    sram[0]:f16[1024], sram[0x4000]:f32[1024]", 1},
		{"vadd    sram[0]:f16[1024], sram[0x4000]:f16[1024], sram[0x8000]:f16[1024]", 3},
		{"vadd    sram[0]:f32[1024], sram[0x4000]:f32[1024], sram[0x8000]:f32[1024]", 0},
		{"vcopy   sram[0]:f16[1024], sram[0x4000]:f16[1024]", 0},
	} {
		require.Equal(t, 64*10*c.convs, cycles(c.line, "20")-cycles(c.line, "10"), c.line)
	}
}

// mxu.ldwt shifts in the K rows of the weights it holds, as mxu.ldw does:
// a [N=16, K=4] transposed tile loads as fast as the [4, 16] tile it holds,
// and four times faster than a [16, 16] one (ldw_cycles_per_row 1).
func TestTransposedLoadCycles(t *testing.T) {
	cycles := func(ldw, tile string) int64 {
		prog, err := asm.Assemble("l.s", []byte("  "+ldw+" sram[0]:bf16["+tile+"]\n  barrier\n  halt\n"), asm.Options{})
		require.NoError(t, err)
		_, rerr, cm, cerr := both(t, "teach16", prog, "mxu.ldw_cycles_per_row=8")
		require.NoError(t, rerr)
		require.NoError(t, cerr)
		return cm.Cycles()
	}
	require.Equal(t, cycles("mxu.ldw", "4,16"), cycles("mxu.ldwt", "16,4"))
	require.Equal(t, cycles("mxu.ldw", "16,16"), cycles("mxu.ldwt", "16,16"))
	require.Equal(t, int64(12*8), cycles("mxu.ldw", "16,16")-cycles("mxu.ldwt", "16,4"))
}

// An f32 stream of N bf16 passes costs N bf16 rows per row, or the chip's
// own f32 rate where that is less (tpuv4core: bf16 1, f32 4 cycles a row),
// on both executors; the values are the f32 products whatever the passes.
func TestStreamPasses(t *testing.T) {
	cycles := func(dt, passes string) int64 {
		src := ".tensor w sram 0 " + dt + "[128,128]\n.tensor x sram 0x10000 " + dt + "[512,128]\n" +
			"  mxu.ldw w\n  mxu.mm acc[0]:f32[512,128], x" + passes + "\n  barrier\n  halt\n"
		prog, err := asm.Assemble("p.s", []byte(src), asm.Options{})
		require.NoError(t, err)
		_, rerr, cm, cerr := both(t, "tpuv4core", prog)
		require.NoError(t, rerr)
		require.NoError(t, cerr)
		return cm.Cycles()
	}
	bf16, f32 := cycles("bf16", ""), cycles("f32", "")
	require.Equal(t, bf16, cycles("f32", " passes 1"))
	require.Equal(t, int64(2*511), cycles("f32", " passes 3")-bf16, "3 passes: 2 more cycles a row (the last result lands (M-1) x rate after the start)")
	require.Equal(t, f32, cycles("f32", " passes 6"), "6 passes cost more than the f32 rate")
	require.Equal(t, int64(3*511), f32-bf16)
}

// A vector instruction's source of stride 0 (a broadcast read) costs the
// SRAM banks its distinct lines, not a line per element: a vadd of 32,768
// f32 elements with a scalar broadcast operand takes the time of its other
// operand and result (3 lines a vreg read as 2), not 32,768 more lines;
// operands in the vector registers take no bank time at all; and a source
// of a small stride costs the lines it spans (spannedLines).
func TestBroadcastAndRegisterOperandsBankTime(t *testing.T) {
	cycles := func(src string) int64 {
		prog, err := asm.Assemble("b.s", []byte(src+"\n  halt\n"), asm.Options{})
		require.NoError(t, err)
		_, rerr, cm, cerr := both(t, "tpuv4core", prog, "vpu.latency=0")
		require.NoError(t, rerr)
		require.NoError(t, cerr)
		return cm.Cycles()
	}
	full := cycles("  vadd sram[0]:f32[32768], sram[0x20000]:f32[32768], sram[0x40000]:f32[32768]")
	bcast := cycles("  vadd sram[0]:f32[32768], sram[0x20000]:f32[32768], sram[0x40000]:f32[32768]{0}")
	regs := cycles("  vadd vreg[0]:f32[32768], vreg[0]:f32[32768], vreg[0]:f32[32768]{0}")
	// tpuv4core: 32 banks of 128 B serve one 4 KiB vreg a cycle; 32 vregs.
	require.InDelta(t, 96, full, 4, "two operands and a result: 3 x 32 lines of 4 KiB")
	require.InDelta(t, 64, bcast, 4, "the broadcast operand is one line")
	require.InDelta(t, 32, regs, 4, "the lanes' own time")
	// A source of stride 2 (a strided convolution's window) spans twice a
	// dense one's lines and reads each once, not a line an element; a
	// stride of a line or more reads a line an element.
	strided := cycles("  vadd vreg[0]:f32[32768], sram[0]:f32[32768]{2}, vreg[0]:f32[32768]")
	wide := cycles("  vadd vreg[0]:f32[4096], sram[0]:f32[4096]{32}, vreg[0]:f32[4096]")
	require.InDelta(t, 64, strided, 4, "64 KiB of lines for 32768 elements of stride 2")
	require.InDelta(t, 128, wide, 4, "4096 lines of 128 B for 4096 elements a line apart")
}
