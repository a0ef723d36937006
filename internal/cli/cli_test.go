package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func write(t *testing.T, dir, name, content string) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

const goodKernel = `.tensor x hbm 0x0 f32[4] = {1, 2, 3, 4}
.tensor y hbm 0x100 f32[4]
        dma  sram[0x0]:f32[4], x          signal s0
        vmul sram[0x10]:f32[4], sram[0x0]:f32[4], sram[0x0]:f32[4] wait s0 signal s1
        dma  y, sram[0x10]:f32[4]         wait s1
        halt
`

// TestBadInput tries what a new user would get wrong. Every case must give a
// clear message and exit status 1 (2 for usage), never a stack trace.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.s", goodKernel)
	code, _, _ := runCLI("asm", good, "-o", filepath.Join(dir, "good.pulse"))
	require.Equal(t, 0, code)
	bin, _ := os.ReadFile(filepath.Join(dir, "good.pulse"))
	truncated := filepath.Join(dir, "trunc.pulse")
	require.NoError(t, os.WriteFile(truncated, bin[:len(bin)/2], 0o644))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919 + i/13)
	}
	random := filepath.Join(dir, "random.pulse")
	require.NoError(t, os.WriteFile(random, noise, 0o644))
	randomS := filepath.Join(dir, "random.s")
	require.NoError(t, os.WriteFile(randomS, noise, 0o644))
	wrong := filepath.Join(dir, "wrong.npy")
	require.NoError(t, os.WriteFile(wrong, npy.Write(isa.F32, []int{2, 2}, []float64{1, 2, 3, 4}), 0o644))

	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown command", []string{"exce", good}, 2, "unknown command"},
		{"unknown flag", []string{"exec", good, "--chpi", "teach16"}, 2, "unknown flag"},
		{"missing argument", []string{"exec"}, 2, "takes one kernel file"},
		{"missing file", []string{"exec", filepath.Join(dir, "nope.s")}, 1, "no such file"},
		{"typo in mnemonic", []string{"exec", write(t, dir, "typo.s", "  vmull sram[0]:f32[4], sram[0]:f32[4], sram[0]:f32[4]\n  halt\n")}, 1, "typo.s:1:3: unknown instruction \"vmull\" (did you mean vmul?)"},
		{"unknown register", []string{"asm", write(t, dir, "reg.s", "  add r1, r2, r99\n  halt\n")}, 1, "reg.s:1:15: no register r99"},
		{"tile bigger than memory", []string{"exec", write(t, dir, "big.s", "  vfill sram[0x0]:f32[1000000], 0.0\n  halt\n")}, 1, "big.s:1:3: fault at pc 0 on vpu"},
		{"deadlock", []string{"exec", write(t, dir, "dead.s", "  wait s1, 1\n  halt\n")}, 1, "deadlock"},
		{"truncated binary", []string{"exec", truncated}, 1, "truncated executable"},
		{"random binary", []string{"disasm", random}, 1, "not a Pulse executable"},
		{"random bytes as source", []string{"exec", randomS}, 1, "binary file that is not a Pulse executable"},
		{"unknown chip", []string{"exec", good, "--chip", "tpuv9"}, 1, "unknown chip \"tpuv9\""},
		{"unknown config key", []string{"exec", good, "--set", "mxu.rowz=8"}, 1, "unknown key \"mxu.rowz\""},
		{"bad config value", []string{"exec", good, "--set", "mxu.rows=many"}, 1, "mxu.rows: cannot unmarshal !!str `many` into int"},
		{"config out of range", []string{"exec", good, "--set", "dma.engines=0"}, 1, "dma.engines: 0 out of range"},
		{"bad --in binding", []string{"exec", good, "--in", "x"}, 2, "want name=file.npy"},
		{"unknown tensor", []string{"exec", good, "--in", "z=" + wrong}, 1, "no tensor named \"z\""},
		{"wrong shape", []string{"exec", good, "--in", "x=" + wrong}, 1, "has shape [2 2], but tensor x is f32[4]"},
		{"missing npy", []string{"exec", good, "--in", "x=" + filepath.Join(dir, "no.npy")}, 1, "no such file"},
		{"not npy", []string{"exec", good, "--in", "x=" + good}, 1, "not a .npy file"},
		{"max steps", []string{"exec", write(t, dir, "spin.s", "l: jmp l\n"), "--max-steps", "1000"}, 1, "max-steps"},
		{"chip file missing", []string{"chip", "show", "nochip.yaml"}, 1, "no such file"},
		// Issue 44, 5: a stream without end (here /dev/zero) as any input
		// grew until the host's memory ran out; regular files are bounded
		// by their size before reading.
		{"endless stream: hlo stats", []string{"hlo", "stats", "/dev/zero"}, 1, "/dev/zero: not a regular file, and it gives more than the 256 MiB read from one"},
		{"endless stream: exec", []string{"exec", "/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{"endless stream: asm", []string{"asm", "/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{"endless stream: disasm", []string{"disasm", "/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{"endless stream: chip show", []string{"chip", "show", "/dev/zero"}, 1, "/dev/zero: not a regular file, and it gives more than the 16 MiB read from one"},
		{"endless stream: --chip", []string{"exec", good, "--chip", "/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{"endless stream: --in", []string{"exec", good, "--in", "x=/dev/zero"}, 1, "--in x: /dev/zero: not a regular file"},
		{"endless stream: scalesim", []string{"scalesim", "-c", "/dev/zero", "-t", "/dev/zero"}, 1, "/dev/zero: not a regular file"},
		{"endless stream: include", []string{"exec", write(t, dir, "incz.s", ".include \"/dev/zero\"\n  halt\n")}, 1, "/dev/zero: not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, stderr, c.msg)
			require.NotContains(t, stderr, "goroutine")
			require.NotContains(t, stderr, "panic")
		})
	}
}

func TestAsmDisasmExec(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "k.s", goodKernel)
	bin := filepath.Join(dir, "k.pulse")
	code, out, stderr := runCLI("asm", src, "-o", bin)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "4 instructions")

	code, text, stderr := runCLI("disasm", bin)
	require.Equal(t, 0, code, stderr)
	re := write(t, dir, "re.s", text)
	code, _, stderr = runCLI("asm", re, "-o", filepath.Join(dir, "re.pulse"))
	require.Equal(t, 0, code, stderr)
	a, _ := os.ReadFile(bin)
	b, _ := os.ReadFile(filepath.Join(dir, "re.pulse"))
	require.Equal(t, a, b, "disasm | asm changed the bytes")

	in := write(t, dir, "x.npy", string(npy.Write(isa.F32, []int{4}, []float64{-1, 0.5, 2, 3})))
	outNpy := filepath.Join(dir, "y.npy")
	code, out, stderr = runCLI("exec", bin, "--in", "x="+in, "--out", "y="+outNpy)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "completed")
	require.True(t, strings.Contains(out, "y") && strings.Contains(out, "f32[4]"), out)
	data, err := os.ReadFile(outNpy)
	require.NoError(t, err)
	arr, err := npy.Read(data)
	require.NoError(t, err)
	require.Equal(t, []int{4}, arr.Shape)
	require.Equal(t, []float64{1, 0.25, 4, 9}, arr.Values)
}

func TestChips(t *testing.T) {
	code, out, _ := runCLI("chips")
	require.Equal(t, 0, code)
	for _, n := range []string{"teach16", "tpuv1", "tpuv4core", "trn1nc"} {
		require.Contains(t, out, n)
	}
	code, out, _ = runCLI("chip", "show", "tpuv4core", "--set", "mxu.rows=64")
	require.Equal(t, 0, code)
	require.Contains(t, out, "rows: 64")
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "k.s", goodKernel)
	report := filepath.Join(dir, "r.json")
	out := filepath.Join(dir, "y.npy")
	code, stdout, stderr := runCLI("run", src, "--json", report, "--out", "y="+out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "MXU MAC utilization")
	require.Contains(t, stdout, "SEMAPHORE WAIT")
	require.Contains(t, stderr, "simulated")
	b, err := os.ReadFile(report)
	require.NoError(t, err)
	require.Contains(t, string(b), `"schema_version": 2`)
	require.Contains(t, string(b), `"peak_bytes_per_second"`)
	arr, err := npy.Read(mustRead(t, out))
	require.NoError(t, err)
	require.Equal(t, []float64{1, 4, 9, 16}, arr.Values)

	// The same run twice writes the same report.
	report2 := filepath.Join(dir, "r2.json")
	code, _, _ = runCLI("run", src, "--json", report2)
	require.Equal(t, 0, code)
	require.Equal(t, b, mustRead(t, report2))

	racy := write(t, dir, "racy.s", racyFirst)
	for _, cmd := range []string{"run", "exec"} {
		code, _, stderr := runCLI(cmd, racy, "--chip", "teach16", "--race=false")
		require.Equal(t, 0, code, "%s --race=false: %s", cmd, stderr)
	}
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"timing-only with outputs", []string{"run", src, "--timing-only", "--out", "y=" + out}, 2, "--out and --show need values"},
		{"deadlock", []string{"run", write(t, dir, "dl.s", "  vadd sram[0]:f32[4], sram[0]:f32[4], sram[0]:f32[4] wait s2\n  halt\n")}, 1, "deadlock"},
		{"max cycles", []string{"run", write(t, dir, "busy.s", "  li r1, 100000\nl: addi r1, r1, -1\n  bne r1, r0, l\n  halt\n"), "--max-cycles", "100"}, 1, "max-cycles limit of 100 cycles"},
		{"endless loop, run", []string{"run", write(t, dir, "spin.s", "top: jmp top\n")}, 1, "spin.s:1:6: endless loop"},
		{"endless loop with an idle unit, run", []string{"run", write(t, dir, "spin2.s", "  li r1, 5\n  vfill sram[0x0]:f32[4], 0\n  barrier\nl: addi r2, r1, 1\n  jmp l\n")}, 1, "endless loop"},
		{"tensor bound twice", []string{"run", src, "--in", "x=" + out, "--in", "x=" + out}, 2, "--in x=" + out + " and --in x=" + out + " both bind tensor x"},
		{"negative max cycles", []string{"run", write(t, dir, "h.s", "halt\n"), "--max-cycles", "-1"}, 2, "--max-cycles -1: the limit must be a positive number"},
		{"negative max steps", []string{"exec", write(t, dir, "h2.s", "halt\n"), "--max-steps", "-1"}, 2, "--max-steps -1: the limit must be a positive number"},
		{"fault", []string{"run", write(t, dir, "oob.s", "  dma sram[0x3fffc]:f32[4], hbm[0x0]:f32[4]\n  halt\n")}, 1, "oob.s:1:3: fault at pc 0 on dma0"},
		{"bad set", []string{"run", src, "--set", "hbm.model=magic"}, 1, `hbm.model: "magic" is not a known model`},
		{"bad dataflow", []string{"run", src, "--set", "mxu.dataflow=rs"}, 1, "mxu.dataflow"},
		// Issue 44, 4: the tutorial's first.s without its wait printed
		// right values under exec and wrong ones under run, silently.
		{"race, run", []string{"run", racy, "--chip", "teach16"}, 1, "racy.s:6:9 on vpu (pc 2) reads sram[0x0] while " + racy + ":4:9 on dma0 (pc 0), still in flight, writes it"},
		{"race, exec", []string{"exec", racy, "--chip", "teach16"}, 1, "data race: 1 unordered accesses"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(c.args...)
			require.Equal(t, c.code, code, stderr)
			require.Contains(t, stderr, c.msg)
			require.NotContains(t, stderr, "goroutine")
		})
	}
}

// racyFirst is the tutorial's first.s with the vadd's wait s0 taken off.
const racyFirst = `.tensor x hbm 0x0000 f32[256] = random(1)
.tensor y hbm 0x1000 f32[256] = random(2)
.tensor z hbm 0x2000 f32[256]
        dma     sram[0]:f32[256], x
        dma     sram[1024]:f32[256], y                                   signal s0
        vadd    sram[2048]:f32[256], sram[0]:f32[256], sram[1024]:f32[256] signal s1
        dma     z, sram[2048]:f32[256]                                   wait s1
        halt
`

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func TestHLOCommands(t *testing.T) {
	dir := t.TempDir()
	src := write(t, dir, "m.hlo", `HloModule m
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  b = f32[2,2]{1,0} parameter(1)
  d = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[2,2]{1,0} add(d, b)
}
`)
	a := write(t, dir, "a.npy", string(npy.Write(isa.F32, []int{2, 2}, []float64{1, 2, 3, 4})))
	code, out, stderr := runCLI("hlo", "eval", src, "--in", "a="+a, "--in", "1="+a, "--out-dir", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "out.npy: f32[2,2]")
	arr, err := npy.Read(mustRead(t, filepath.Join(dir, "out.npy")))
	require.NoError(t, err)
	require.Equal(t, []float64{1 + 7, 2 + 10, 3 + 15, 4 + 22}, arr.Values) // a@a + a
	// A number fills a parameter: a@2 + 2 with a = [[1,2],[3,4]].
	code, _, stderr = runCLI("hlo", "eval", src, "--in", "a="+a, "--in", "b=2", "--out-dir", dir)
	require.Equal(t, 0, code, stderr)
	arr, err = npy.Read(mustRead(t, filepath.Join(dir, "out.npy")))
	require.NoError(t, err)
	require.Equal(t, []float64{6 + 2, 6 + 2, 14 + 2, 14 + 2}, arr.Values)
	// --perturb: Monte Carlo arithmetic moves a@2 + 2 = 8 by at most an ulp
	// or two of the dot's two-term sums and the add, and the same seed
	// moves it the same way.
	perturbed := func(seed string) []float64 {
		code, _, stderr := runCLI("hlo", "eval", src, "--in", "a="+a, "--in", "b=2", "--perturb", seed, "--out-dir", dir)
		require.Equal(t, 0, code, stderr)
		arr, err := npy.Read(mustRead(t, filepath.Join(dir, "out.npy")))
		require.NoError(t, err)
		return arr.Values
	}
	p1, p2 := perturbed("1"), perturbed("1")
	require.Equal(t, p1, p2)
	require.InDeltaSlice(t, []float64{8, 8, 16, 16}, p1, 16*0x1p-23*3)
	code, out, _ = runCLI("hlo", "stats", src)
	require.Equal(t, 0, code)
	require.Contains(t, out, "dot")
	// The table counts a loop body once; "as run" multiplies it by the
	// trip count.
	loop := write(t, dir, "loop.hlo", `HloModule l
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x = f32[4] get-tuple-element(p), index=1
  y = f32[4] negate(x)
  ROOT t = (s32[], f32[4]) tuple(i2, y)
}
ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
`)
	code, out, _ = runCLI("hlo", "stats", loop)
	require.Equal(t, 0, code)
	require.Regexp(t, `total +\d+ +6 `, out)     // compare 1, add 1, negate 4
	require.Contains(t, out, "as run: 60 FLOPs") // ten trips
	// Sub-byte integers (no Pulse dtype) are written one per byte.
	s4 := write(t, dir, "s4.hlo", "ENTRY e {\n  p = s8[5] parameter(0)\n  ROOT c = s4[5] convert(p)\n}\n")
	code, _, stderr = runCLI("hlo", "eval", s4, "--in", "p=-3", "--out-dir", filepath.Join(dir, "s4out"))
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(dir, "s4out", "out.npy"))
	require.NoError(t, err)
	require.Contains(t, string(b), "'descr': '|i1'")
	require.Equal(t, []byte{0xfd, 0xfd, 0xfd, 0xfd, 0xfd}, b[len(b)-5:])
	code, out, _ = runCLI("hlo", "stats", "--per-instruction", src)
	require.Equal(t, 0, code)
	require.Regexp(t, `m.hlo:5:3 +e +d +dot +f32\[2,2\]\{1,0\} +16 +48`, out) // 2x2x2 multiply-adds; 3 arrays of 16 bytes
	code, out, _ = runCLI("hlo", "fmt", src)
	require.Equal(t, 0, code)
	require.Contains(t, out, "ROOT s = f32[2,2]{1,0} add(d, b)")
	code, out, stderr = runCLI("hlo", "fuse", src)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "fusion(a, b), kind=kOutput, calls=fused_computation")
	require.Contains(t, stderr, "1 fusions (kOutput 1), 2 instructions fused")
	fused := write(t, dir, "fused.hlo", out)
	code, out2, stderr := runCLI("hlo", "fuse", "-q", fused)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, out, out2, "a fused module is printed unchanged")
	require.Empty(t, stderr)
	// x + y is read by the root and outside it: an extra result.
	mo := write(t, dir, "mo.hlo", "ENTRY e {\n  x = f32[8] parameter(0)\n  y = f32[8] parameter(1)\n  s = f32[8] add(x, y)\n  n = f32[8] negate(s)\n  m = f32[8] multiply(n, x)\n  ROOT t = (f32[8], f32[8]) tuple(m, s)\n}\n")
	code, out, stderr = runCLI("hlo", "fuse", "--multi-output", mo)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "(f32[8], f32[8]) fusion(x, y), kind=kLoop")
	require.Contains(t, out, "s = f32[8] get-tuple-element(")
	require.Contains(t, stderr, "1 fusions (kLoop 1, 1 with extra results)")

	bad := write(t, dir, "bad.hlo", "ENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[3] negate(a)\n}\n")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"hlo", "stats", bad}, 1, "bad.hlo:3:3: b: negate produces f32[2], but the instruction says f32[3]"},
		{[]string{"hlo", "eval", src}, 2, "parameter a (number 0) has no --in"},
		{[]string{"hlo", "eval", src, "--in", "zz=" + a}, 1, `no parameter named or numbered "zz"`},
		{[]string{"hlo", "eval", src, "--in", "a=" + write(t, dir, "v.npy", string(npy.Write(isa.F32, []int{3}, []float64{1, 2, 3}))), "--random-inputs", "1"}, 1, "has shape [3], but parameter a is f32[2,2]"},
		{[]string{"hlo", "fmt", write(t, dir, "syntax.hlo", "ENTRY e {\n  a = f32[2 parameter(0)\n}\n")}, 1, "syntax.hlo:2:13"},
		{[]string{"hlo", "fuse", bad}, 1, "bad.hlo:3:3: b: negate produces f32[2]"},
		{[]string{"hlo", "eval", src, "--in", "a=1e39", "--random-inputs", "1"}, 1, "--in a=1e39: parameter a is f32[2,2]{1,0}: 1e+39 is beyond the range of f32"},
		{[]string{"hlo", "eval", src, "--in", "a=./6", "--random-inputs", "1"}, 1, "--in a: open ./6"},
		{[]string{"hlo", "eval", src, "--random-inputs", "1", "--max-memory", "lots"}, 2, "--max-memory lots: want a size such as 512MiB or 8GiB"},
		{[]string{"hlo", "eval", src, "--random-inputs", "1", "--max-memory", "40B"}, 1, "the parameters hold 8 elements (0 MiB as float64), more than the evaluator's budget of 5"},
		{[]string{"hlo", "eval", src, "--random-inputs", "1", "--max-memory", "64B"}, 1, "m.hlo:5:3: d: dot: evaluating this module needs more than 8 live elements"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		require.Equal(t, c.code, code, stderr)
		require.Contains(t, stderr, c.msg)
	}
}
