package runtime_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/spmd"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/stretchr/testify/require"
)

// devicesCases are modules of several devices, each run on the chips and
// checked against the evaluator's RunDevices, device by device.
var devicesCases = []struct {
	name, src string
	devs      hlo.Devices
}{
	{"all-reduce", `HloModule ar
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,128] parameter(0)
  m = f32[8,128] multiply(x, x)
  r = f32[8,128] all-reduce(m), replica_groups={}, to_apply=add
  ROOT o = f32[8,128] add(r, x)
}`, hlo.Devices{Replicas: 4, Partitions: 1}},
	{"gather-scatter-groups", `HloModule gs
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[4,16] parameter(0)
  g = f32[8,16] all-gather(x), replica_groups={{0,2},{1,3}}, dimensions={0}
  s = f32[2,16] reduce-scatter(g), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=mx
  ROOT t = (f32[8,16], f32[2,16]) tuple(g, s)
}`, hlo.Devices{Replicas: 4, Partitions: 1}},
	{"ids-permute-all-to-all", `HloModule ids
ENTRY e {
  x = s32[4,8] parameter(0)
  r = u32[] replica-id()
  p = u32[] partition-id()
  rs = s32[] convert(r)
  ps = s32[] convert(p)
  k = s32[] multiply(rs, ps)
  b = s32[4,8] broadcast(k), dimensions={}
  y = s32[4,8] add(x, b)
  c = s32[4,8] collective-permute(y), channel_id=1, source_target_pairs={{0,1},{1,0}}
  a = s32[4,8] all-to-all(c), channel_id=2, replica_groups={{0,1}}, dimensions={0}
  ROOT t = (s32[4,8], u32[], u32[]) tuple(a, r, p)
}`, hlo.Devices{Replicas: 2, Partitions: 2}},
	{"loop-of-all-reduces", `HloModule loop
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[16] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.5)
  hb = f32[16] broadcast(h), dimensions={}
  w = f32[16] multiply(v, hb)
  r = f32[16] all-reduce-start(w), replica_groups={}, to_apply=add
  d = f32[16] all-reduce-done(r)
  ROOT t = (s32[], f32[16]) tuple(j, d)
}
ENTRY e {
  x = f32[16] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[16]) tuple(z, x)
  w = (s32[], f32[16]) while(t), condition=cond, body=body
  ROOT v = f32[16] get-tuple-element(w), index=1
}`, hlo.Devices{Replicas: 3, Partitions: 1}},
	{"dot-all-reduce-gather", `HloModule dar
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[256,128] parameter(0)
  w = f32[128,256] parameter(1)
  d = f32[256,256] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[256,256] all-reduce(d), replica_groups={}, to_apply=add
  e = f32[256,256] exponential(r)
  ROOT g = f32[512,256] all-gather(d), replica_groups={{0,1}}, dimensions={0}
}`, hlo.Devices{Replicas: 2, Partitions: 1}},
}

// TestExecuteDevices: every case on single-core chips and on a chip of
// two cores (tpuv4), whose kernels split across its cores and whose
// collectives run on core 0 while core 1 waits at the kernel's barrier.
func TestExecuteDevices(t *testing.T) {
	for _, chipName := range []string{"teach16", "tpuv4core", "tpuv4"} {
		chip, err := config.Load(chipName, nil)
		require.NoError(t, err)
		client := &runtime.Client{Chip: chip}
		for _, tc := range devicesCases {
			t.Run(chipName+"/"+tc.name, func(t *testing.T) {
				m, err := hlo.Parse(tc.name+".hlo", tc.src)
				require.NoError(t, err)
				require.NoError(t, verify.Verify(tc.name+".hlo", m))
				comp, err := lowering.CompileDevices(tc.name+".hlo", m, chip, tc.devs)
				require.NoError(t, err)
				x := &runtime.Executable{Compiled: comp}
				require.Equal(t, tc.devs, x.Devices)
				n := tc.devs.N()
				rng := rand.New(rand.NewPCG(1, 2))
				args := make([][]*eval.Value, n)
				for i := range n {
					for _, p := range x.Inputs {
						v := &eval.Value{Shape: p.Shape, Data: make([]float64, p.Shape.Elems())}
						for k := range v.Data {
							v.Data[k] = float64(rng.IntN(17) - 8)
						}
						args[i] = append(args[i], v)
					}
				}
				ev := &eval.Evaluator{File: tc.name, M: m}
				want, err := spmd.RunDevices(ev, tc.devs, args)
				require.NoError(t, err)
				got, err := client.ExecuteDevices(x, args, runtime.ExecOptions{})
				require.NoError(t, err)
				require.Len(t, got.Devices, n)
				for i := range n {
					leaves := eval.Leaves(want[i])
					require.Len(t, got.Devices[i].Outputs, len(leaves))
					for k, l := range leaves {
						require.Equal(t, l.Data, got.Devices[i].Outputs[k].Data, "device %d output %d", i, k)
					}
					st := got.Devices[i].Report.Interconnect
					require.NotNil(t, st)
					require.Positive(t, st.Collectives, "device %d", i)
					require.Positive(t, st.BusyCycles, "device %d", i)
				}
				require.Positive(t, got.Cycles)
				if chip.NumCores() > 1 {
					for i := range n {
						cores := got.Devices[i].Model.Cores
						require.Len(t, cores, chip.NumCores(), "device %d", i)
						require.Positive(t, cores[1].Cycles(), "device %d core 1", i)
					}
				}
			})
		}
	}
}

// TestExecuteDevicesDeadlock: devices that do not run the same collectives
// (a branch on the replica id) end in a deadlock that names the collective
// and who waits for whom, as the evaluator reports it; a chip without an
// interconnect refuses several devices.
func TestExecuteDevicesDeadlock(t *testing.T) {
	const src = `HloModule dl
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
b0 {
  p = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(p), replica_groups={}, to_apply=add
}
b1 {
  ROOT p = f32[8] parameter(0)
}
ENTRY e {
  x = f32[8] parameter(0)
  r = u32[] replica-id()
  i = s32[] convert(r)
  ROOT c = f32[8] conditional(i, x, x), branch_computations={b0, b1}
}`
	m, err := hlo.Parse("dl.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("dl.hlo", m))
	d := hlo.Devices{Replicas: 2, Partitions: 1}
	args := [][]*eval.Value{{{Shape: m.Entry.Instructions[0].Shape, Data: make([]float64, 8)}}, {{Shape: m.Entry.Instructions[0].Shape, Data: make([]float64, 8)}}}
	_, evErr := spmd.RunDevices((&eval.Evaluator{File: "dl.hlo", M: m}), d, args)
	require.ErrorContains(t, evErr, "devices [0] wait for devices [1]")
	for _, name := range []string{"teach16", "tpuv4core"} {
		chip, err := config.Load(name, nil)
		require.NoError(t, err)
		client := &runtime.Client{Chip: chip}
		x, err := client.CompileDevices("dl.hlo", m, d)
		require.NoError(t, err)
		_, err = client.ExecuteDevices(x, args, runtime.ExecOptions{})
		require.Error(t, err)
		require.Contains(t, err.Error(), "dl.hlo:9:3: c/branch0/r: all-reduce: devices [0] wait for devices [1], which finished, failed or wait elsewhere")
		require.Contains(t, err.Error(), "(deadlock)")
	}
	chip, err := config.Load("tpuv1", nil)
	require.NoError(t, err)
	client := &runtime.Client{Chip: chip}
	x, err := client.CompileDevices("dl.hlo", m, d)
	require.NoError(t, err)
	_, err = client.ExecuteDevices(x, args, runtime.ExecOptions{})
	require.ErrorContains(t, err, "chip tpuv1 has no interconnect")
}

// BenchmarkExecuteDevices: the evaluator benchmark's module (hlo's
// BenchmarkRunDevices) simulated on 8 tpuv4core chips: a 256^3 f32 dot on
// each, an all-reduce of it and an all-gather to 2048 x 256.
func BenchmarkExecuteDevices(b *testing.B) {
	const src = `HloModule m, replica_count=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[256,256] parameter(0)
  d = f32[256,256] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[256,256] all-reduce(d), replica_groups={}, to_apply=add
  ROOT g = f32[2048,256] all-gather(s), replica_groups={}, dimensions={0}
}`
	m, err := hlo.Parse("b.hlo", src)
	require.NoError(b, err)
	require.NoError(b, verify.Verify("b.hlo", m))
	chip, err := config.Load("tpuv4core", nil)
	require.NoError(b, err)
	client := &runtime.Client{Chip: chip}
	x, err := client.Compile("b.hlo", m)
	require.NoError(b, err)
	args := make([][]*eval.Value, x.Devices.N())
	for i := range args {
		a, err := eval.RandomArgs(m, uint64(i+1))
		require.NoError(b, err)
		args[i] = a
	}
	b.ReportAllocs()
	var cycles int64
	for b.Loop() {
		r, err := client.ExecuteDevices(x, args, runtime.ExecOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cycles = r.Cycles
	}
	b.ReportMetric(float64(cycles), "cycles")
}

// TestCompileDevicesRefuses: what several devices cannot run is refused at
// compile time, positioned, not after the compilation succeeded.
func TestCompileDevicesRefuses(t *testing.T) {
	chip, err := config.Load("teach16", nil)
	require.NoError(t, err)
	d := hlo.Devices{Replicas: 2, Partitions: 1}
	for _, tc := range []struct{ src, want string }{
		{"HloModule m\nENTRY e {\n  tok = token[] after-all()\n  in = (f32[4], token[]) infeed(tok)\n  ROOT v = f32[4] get-tuple-element(in), index=0\n}",
			"m.hlo:4:3: in: infeed: cannot lower: infeed and outfeed on 2 devices are not simulated"},
		{"HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT c = (f32[4], f32[4]) collective-permute(x, x), source_target_pairs={{0,1},{1,0}}\n}",
			"m.hlo:4:3: c: collective-permute: cannot lower: a collective-permute of 2 operands (the combined or in-place form) is not lowered on several devices"},
		{"HloModule m\nENTRY e {\n  x = c64[4] parameter(0)\n  ROOT r = c64[4] negate(x)\n}",
			"m.hlo:1:1: complex numbers on 2 devices are not simulated"},
	} {
		m, err := hlo.Parse("m.hlo", tc.src)
		require.NoError(t, err)
		_, err = lowering.CompileDevices("m.hlo", m, chip, d)
		require.ErrorContains(t, err, tc.want)
	}
}

// TestLongCollectiveFinishes: a collective that keeps every device
// waiting for longer than the run's stretch between failure checks (2^20
// cycles) finishes: the loop that drove the devices counted each stretch
// from the last event, ran none, and spun for ever (GPT-3's
// tensor-parallel layer at its first all-gather).
func TestLongCollectiveFinishes(t *testing.T) {
	chip, err := config.Load("teach16", []string{"ici.link_gbps=0.001"})
	require.NoError(t, err)
	const src = `HloModule slow, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[1024] parameter(0)
  ROOT r = f32[1024] all-reduce(x), replica_groups={}, to_apply=add
}
`
	m, err := hlo.Parse("slow.hlo", src)
	require.NoError(t, err)
	comp, err := lowering.CompileDevices("slow.hlo", m, chip, hlo.Devices{Replicas: 2, Partitions: 1})
	require.NoError(t, err)
	x := &runtime.Executable{Compiled: comp}
	args := make([][]*eval.Value, 2)
	for i := range args {
		args[i] = []*eval.Value{{Shape: x.Inputs[0].Shape, Data: make([]float64, 1024)}}
	}
	got, err := (&runtime.Client{Chip: chip}).ExecuteDevices(x, args, runtime.ExecOptions{})
	require.NoError(t, err)
	require.Greater(t, got.Cycles, int64(1<<20), "the all-reduce takes longer than a stretch")
}
