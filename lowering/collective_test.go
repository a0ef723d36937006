package lowering_test

import (
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"

	"github.com/stretchr/testify/require"
)

// TestOneDeviceCollectives: on one device collectives, their async halves,
// copy-start/-done, async wrappers and add-dependency move no data, and
// partition-id and replica-id read 0 — checked against the evaluator.
func TestOneDeviceCollectives(t *testing.T) {
	const src = `HloModule one, replica_count=1, num_partitions=1
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped {
  p = f32[8,16] parameter(0)
  ROOT n = f32[8,16] negate(p)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  y = f32[8,16] parameter(1)
  ar = f32[8,16] all-reduce(x), replica_groups={{0}}, to_apply=sum
  ars = f32[8,16] all-reduce-start(y), replica_groups={}, to_apply=sum
  ard = f32[8,16] all-reduce-done(ars)
  ag = f32[8,16] all-gather(ar), dimensions={0}, replica_groups={{0}}
  cps = (f32[8,16], f32[8,16], u32[], u32[]) collective-permute-start(ard), source_target_pairs={{0,0}}
  cpd = f32[8,16] collective-permute-done(cps)
  cs = (f32[8,16], f32[8,16], u32[]) copy-start(cpd)
  cd = f32[8,16] copy-done(cs)
  as = ((f32[8,16]), f32[8,16], s32[]) async-start(cd), calls=wrapped
  ad = f32[8,16] async-done(as)
  tok = token[] after-all()
  dep = f32[8,16] add-dependency(ad, tok)
  pid = u32[] partition-id()
  rid = u32[] replica-id()
  ids = u32[] add(pid, rid)
  idf = f32[] convert(ids)
  b = f32[8,16] broadcast(idf), dimensions={}
  s = f32[8,16] add(ag, dep)
  ROOT r = f32[8,16] add(s, b)
}
`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			r := runChecked(t, chip, src)
			require.NotEmpty(t, r.Kernels)
		})
	}
}

// TestCollectiveAcrossDevicesIsAnError: replica groups larger than one
// device are refused with the op named.
func TestCollectiveAcrossDevicesIsAnError(t *testing.T) {
	const src = `HloModule two
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT ar = f32[8] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
}
`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "t.hlo:9:3: ar: all-reduce: cannot lower: the module runs on several devices (this all-reduce spans 2)")
}

// TestPermuteAcrossDevicesIsAnError: a permute that names other devices
// says the module is a multi-device one.
func TestPermuteAcrossDevicesIsAnError(t *testing.T) {
	const src = `HloModule two
ENTRY e {
  x = f32[8] parameter(0)
  ROOT cp = f32[8] collective-permute(x), source_target_pairs={{0,1},{1,0}}
}
`
	_, err := compileErr(t, "teach16", src)
	require.ErrorContains(t, err, "t.hlo:4:3: cp: collective-permute: cannot lower: the module runs on several devices (this collective-permute spans 2)")
}

// TestShardedCollectiveShapesNameDevices: an all-gather or reduce-scatter
// over every device (empty replica_groups, no header counts) whose shapes
// grow or shrink is a multi-device module: the compiler and the evaluator
// say so, with the device count its shapes imply.
func TestShardedCollectiveShapesNameDevices(t *testing.T) {
	for _, c := range []struct{ name, op, want string }{
		{"all-gather", "f32[128,128]{0,1} all-gather(x), replica_groups={}, dimensions={1}", "all-gather spans 4"},
		{"reduce-scatter", "f32[32,32] reduce-scatter(x), replica_groups={}, dimensions={0}, to_apply=sum", "reduce-scatter spans 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = ` + map[string]string{"all-gather": "f32[128,32]{0,1}", "reduce-scatter": "f32[128,32]"}[c.name] + ` parameter(0)
  ROOT r = ` + c.op + `
}
`
			_, err := compileErr(t, "teach16", src)
			require.ErrorContains(t, err, "t.hlo:9:3: r: "+c.name+": cannot lower: the module runs on several devices (this "+c.want+")")
			m, err := hlo.Parse("t.hlo", src)
			require.NoError(t, err)
			args, err := eval.RandomArgs(m, 1)
			require.NoError(t, err)
			_, err = (&eval.Evaluator{File: "t.hlo", M: m}).Run(args)
			require.ErrorContains(t, err, "t.hlo:9:3: r: "+c.name+": a collective across 4 devices: evaluate it on them")
		})
	}
}

// TestRaggedAllToAllOneDevice: a ragged-all-to-all whose replica groups
// hold one device each runs on the chips as the evaluator computes it;
// one across devices is named as a multi-device module.
func TestRaggedAllToAllOneDevice(t *testing.T) {
	src := `HloModule m
ENTRY e {
  input = f32[64,8] parameter(0)
  output = f32[48,8] parameter(1)
  io = s32[3] constant({10, 0, 40})
  ss = s32[3] constant({5, 12, 24})
  oo = s32[3] constant({0, 20, 24})
  rs = s32[3] constant({5, 12, 24})
  ROOT r = f32[48,8] ragged-all-to-all(input, output, io, ss, oo, rs), replica_groups={{0},{1}}
}`
	for _, chip := range chips {
		runChecked(t, chip, src)
	}
	_, err := compileErr(t, "teach16", `HloModule m
ENTRY e {
  input = f32[4] parameter(0)
  output = f32[4] parameter(1)
  o = s32[2] parameter(2)
  ROOT r = f32[4] ragged-all-to-all(input, output, o, o, o, o), replica_groups={{0,1}}
}`)
	require.ErrorContains(t, err, "t.hlo:6:3: r: ragged-all-to-all: cannot lower: the module runs on several devices (this ragged-all-to-all spans 2)")
}

// TestAllToAllTupleOfOne: all-to-all's tuple form returns a tuple even of
// one operand (XLA's hlo_parser_test.cc:2257); on one device it is that
// operand. The chips had returned no output at all, and the evaluator
// refused it, so nothing checked them.
func TestAllToAllTupleOfOne(t *testing.T) {
	src := `HloModule AllToAll
ENTRY AllToAll {
  input = f32[128,32]{0,1} parameter(0)
  ROOT a2a = (f32[128,32]{0,1}) all-to-all(input), replica_groups={}
}`
	for _, chip := range chips {
		t.Run(chip, func(t *testing.T) {
			r := runChecked(t, chip, src)
			require.Len(t, r.Outputs, 1)
		})
	}
}
