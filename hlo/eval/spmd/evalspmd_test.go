package spmd

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/eval/evaltest"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

const spmdAdd = "add {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b)\n}\n"

// spmdRun evaluates src on d with device i's parameter 0 filled by fill(i).
func spmdRun(t *testing.T, src string, d hlo.Devices, fill func(dev int) *eval.Value) ([]*eval.Value, error) {
	t.Helper()
	m, err := hlo.Parse("s.hlo", src)
	require.NoError(t, err)
	require.NoError(t, verify.Verify("s.hlo", m))
	args := make([][]*eval.Value, d.N())
	for i := range args {
		if fill != nil {
			args[i] = []*eval.Value{fill(i)}
		}
	}
	return RunDevices((&eval.Evaluator{File: "s.hlo", M: m}), d, args)
}

// iotaOf is f32[n] holding base, base+1, ...
func iotaOf(n int, base float64) *eval.Value {
	v := eval.NewArray(&hlo.Shape{Elem: "f32", Dims: []int64{int64(n)}})
	for i := range v.Data {
		v.Data[i] = base + float64(i)
	}
	return v
}

// TestSPMDCollectives: each collective across devices against results
// worked out by hand from XLA's semantics (operation_semantics.md): device
// i brings [10i, 10i+1] (or as the case says).
func TestSPMDCollectives(t *testing.T) {
	two := func(i int) *eval.Value { return iotaOf(2, float64(10*i)) }
	for _, tc := range []struct {
		name string
		devs hlo.Devices
		body string // the entry's instructions after x = f32[2] parameter(0)
		want [][]float64
	}{
		{"all-reduce over every replica", hlo.Devices{Replicas: 4, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add",
			[][]float64{{60, 64}, {60, 64}, {60, 64}, {60, 64}}},
		{"all-reduce in listed groups", hlo.Devices{Replicas: 4, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups={{0,2},{1,3}}, to_apply=add",
			[][]float64{{20, 22}, {40, 42}, {20, 22}, {40, 42}}},
		{"all-reduce in iota groups, transposed", hlo.Devices{Replicas: 4, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add",
			[][]float64{{20, 22}, {40, 42}, {20, 22}, {40, 42}}},
		{"all-reduce max", hlo.Devices{Replicas: 3, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=max",
			[][]float64{{20, 21}, {20, 21}, {20, 21}}},
		{"all-gather in group order", hlo.Devices{Replicas: 4, Partitions: 1},
			"ROOT r = f32[4] all-gather(x), replica_groups={{3,0},{1,2}}, dimensions={0}",
			[][]float64{{30, 31, 0, 1}, {10, 11, 20, 21}, {10, 11, 20, 21}, {30, 31, 0, 1}}},
		{"reduce-scatter deals blocks in group order", hlo.Devices{Replicas: 2, Partitions: 1},
			"ROOT r = f32[1] reduce-scatter(x), replica_groups={{1,0}}, dimensions={0}, to_apply=add",
			[][]float64{{12}, {10}}},
		{"all-to-all array form", hlo.Devices{Replicas: 2, Partitions: 1},
			"ROOT r = f32[2] all-to-all(x), replica_groups={{0,1}}, dimensions={0}",
			[][]float64{{0, 10}, {1, 11}}},
		{"collective-permute ring, device 0 receives nothing", hlo.Devices{Replicas: 3, Partitions: 1},
			"ROOT r = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,2}}",
			[][]float64{{0, 0}, {0, 1}, {10, 11}}},
		{"collective-broadcast from the group's first", hlo.Devices{Replicas: 2, Partitions: 1},
			"ROOT r = f32[2] collective-broadcast(x), replica_groups={{1,0}}",
			[][]float64{{10, 11}, {10, 11}}},
		{"cross-partition permute (channel_id)", hlo.Devices{Replicas: 2, Partitions: 2},
			"ROOT r = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,0}}",
			// devices (replica, partition): 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1): partitions swap within a replica
			[][]float64{{10, 11}, {0, 1}, {30, 31}, {20, 21}}},
		{"cross-replica-and-partition (channel_id, replica groups)", hlo.Devices{Replicas: 2, Partitions: 2},
			"ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0},{1}}, to_apply=add",
			// replica 0's group is its two partitions: devices 0 and 1
			[][]float64{{10, 12}, {10, 12}, {50, 52}, {50, 52}}},
		{"flattened ids (use_global_device_ids)", hlo.Devices{Replicas: 2, Partitions: 2},
			"ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=add",
			[][]float64{{30, 32}, {30, 32}, {30, 32}, {30, 32}}},
		{"replica-id and partition-id", hlo.Devices{Replicas: 2, Partitions: 3},
			"r = u32[] replica-id()\n p = u32[] partition-id()\n rf = f32[] convert(r)\n pf = f32[] convert(p)\n ROOT t = f32[2] concatenate(f32[1] reshape(rf), f32[1] reshape(pf)), dimensions={0}",
			[][]float64{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}},
		{"send and recv pass data along pairs of global ids, whatever the channels", hlo.Devices{Replicas: 3, Partitions: 1},
			"tok = token[] after-all()\n s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,2}}\"}\n r = (f32[2], u32[], token[]) recv(tok), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,2}}\"}\n sd = token[] send-done(s), channel_id=1\n rd = (f32[2], token[]) recv-done(r), channel_id=2\n ROOT o = f32[2] get-tuple-element(rd), index=0",
			[][]float64{{0, 0}, {0, 1}, {10, 11}}},
		{"a collective in a loop meets once per iteration", hlo.Devices{Replicas: 2, Partitions: 1},
			"z = s32[] constant(0)\n s = (s32[], f32[2]) tuple(z, x)\n w = (s32[], f32[2]) while(s), condition=cond, body=body\n ROOT o = f32[2] get-tuple-element(w), index=1",
			// three doublings of the sum: (0+10)*... each step sums both devices' values
			[][]float64{{40, 48}, {40, 48}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := spmdAdd + "max {\n a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] maximum(a, b)\n}\n" +
				"cond {\n p = (s32[], f32[2]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n n = s32[] constant(3)\n ROOT c = pred[] compare(i, n), direction=LT\n}\n" +
				"body {\n p = (s32[], f32[2]) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n one = s32[] constant(1)\n j = s32[] add(i, one)\n v = f32[2] get-tuple-element(p), index=1\n r = f32[2] all-reduce(v), replica_groups={}, to_apply=add\n ROOT t = (s32[], f32[2]) tuple(j, r)\n}\n" +
				"ENTRY e {\n x = f32[2] parameter(0)\n " + tc.body + "\n}\n"
			got, err := spmdRun(t, src, tc.devs, two)
			require.NoError(t, err)
			require.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				require.Equal(t, w, got[i].Data, "device %d", i)
			}
		})
	}
}

// TestSPMDTupleForms: variadic all-reduce and all-gather, and all-to-all's
// tuple form (operand j goes to device j).
func TestSPMDTupleForms(t *testing.T) {
	src := spmdAdd + `ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] negate(x)
  a = (f32[2], f32[2]) all-reduce(x, y), replica_groups={}, to_apply=add
  g = (f32[4], f32[4]) all-gather(x, y), replica_groups={}, dimensions={0}
  t = (f32[2], f32[2]) all-to-all(x, y), replica_groups={}
  ROOT o = ((f32[2], f32[2]), (f32[4], f32[4]), (f32[2], f32[2])) tuple(a, g, t)
}
`
	got, err := spmdRun(t, src, hlo.Devices{Replicas: 2, Partitions: 1}, func(i int) *eval.Value { return iotaOf(2, float64(10*i)) })
	require.NoError(t, err)
	leaves := func(v *eval.Value) [][]float64 {
		var out [][]float64
		for _, l := range eval.Leaves(v) {
			out = append(out, l.Data)
		}
		return out
	}
	require.Equal(t, [][]float64{{10, 12}, {-10, -12}, {0, 1, 10, 11}, {0, -1, -10, -11}, {0, 1}, {10, 11}}, leaves(got[0]))
	require.Equal(t, [][]float64{{10, 12}, {-10, -12}, {0, 1, 10, 11}, {0, -1, -10, -11}, {-0.0, -1}, {-10, -11}}, leaves(got[1]))
}

// TestSPMDAsyncForms: -start/-done pairs give what the op gives.
func TestSPMDAsyncForms(t *testing.T) {
	src := spmdAdd + `ENTRY e {
  x = f32[2] parameter(0)
  s = f32[2] all-reduce-start(x), replica_groups={}, to_apply=add
  d = f32[2] all-reduce-done(s)
  gs = (f32[2], f32[4]) all-gather-start(x), replica_groups={}, dimensions={0}
  gd = f32[4] all-gather-done(gs)
  ps = (f32[2], f32[2], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  pd = f32[2] collective-permute-done(ps)
  ROOT o = (f32[2], f32[4], f32[2]) tuple(d, gd, pd)
}
`
	got, err := spmdRun(t, src, hlo.Devices{Replicas: 2, Partitions: 1}, func(i int) *eval.Value { return iotaOf(2, float64(10*i)) })
	require.NoError(t, err)
	require.Equal(t, []float64{10, 12}, got[1].Tuple[0].Data)
	require.Equal(t, []float64{0, 1, 10, 11}, got[1].Tuple[1].Data)
	require.Equal(t, []float64{0, 1}, got[1].Tuple[2].Data)
	require.Equal(t, []float64{10, 11}, got[0].Tuple[2].Data)
}

// TestSPMDFailures: devices that do not run the same collectives are a
// deadlock named at the collective; a device's own error names the device;
// groups that do not fit the devices are positioned errors. Each is the
// same message on every run, whatever GOMAXPROCS.
func TestSPMDFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		devs hlo.Devices
		body string
		want string
	}{
		{"only replica 0 reaches the all-reduce", hlo.Devices{Replicas: 2, Partitions: 1},
			"r = u32[] replica-id()\n z = u32[] constant(0)\n p = pred[] compare(r, z), direction=EQ\n ROOT c = f32[2] conditional(p, x, x), true_computation=reduce0, false_computation=keep",
			"s.hlo:8:2: r: all-reduce: devices [0] wait for devices [1], which finished, failed or wait elsewhere"},
		{"a device fails", hlo.Devices{Replicas: 2, Partitions: 1},
			"r = u32[] replica-id()\n z = u32[] constant(1)\n p = pred[] compare(r, z), direction=EQ\n ROOT c = f32[2] conditional(p, x, x), true_computation=fail, false_computation=reduce0",
			"s.hlo:16:2: device 1 (replica 1, partition 0): g: custom-call: custom-call target \"NoSuchTarget\" cannot be evaluated"},
		{"a recv whose send never comes", hlo.Devices{Replicas: 2, Partitions: 1},
			"tok = token[] after-all()\n r = (f32[2], u32[], token[]) recv(tok), channel_id=2, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1}}\"}\n rd = (f32[2], token[]) recv-done(r), channel_id=2\n ROOT o = f32[2] get-tuple-element(rd), index=0",
			"s.hlo:21:2: r: recv: device 1 waits for send 1 from device 0, which never comes (deadlock)"},
		{"groups name a device beyond the module's", hlo.Devices{Replicas: 2, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups={{0,5}}, to_apply=add",
			"replica_groups name device 5; the module runs on 2 replicas x 1 partition"},
		{"a device left out of every group", hlo.Devices{Replicas: 3, Partitions: 1},
			"ROOT r = f32[2] all-reduce(x), replica_groups={{0,1}}, to_apply=add",
			"replica_groups {{0,1}} leave out 2"},
		{"a gather whose shapes want more devices", hlo.Devices{Replicas: 2, Partitions: 1},
			"ROOT r = f32[6] all-gather(x), replica_groups={}, dimensions={0}",
			"the devices' parts make 4 along dimension 0, the result f32[6] has 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := spmdAdd +
				"reduce0 {\n x = f32[2] parameter(0)\n ROOT r = f32[2] all-reduce(x), replica_groups={}, to_apply=add\n}\n" +
				"keep {\n ROOT x = f32[2] parameter(0)\n}\n" +
				"fail {\n x = f32[2] parameter(0)\n i = s32[1] constant({7})\n ROOT g = f32[2] custom-call(x), custom_call_target=\"NoSuchTarget\"\n}\n" +
				"ENTRY e {\n x = f32[2] parameter(0)\n " + tc.body + "\n}\n"
			var first string
			for _, procs := range []int{1, 2, 8} {
				old := runtime.GOMAXPROCS(procs)
				_, err := spmdRun(t, src, tc.devs, func(i int) *eval.Value { return iotaOf(2, float64(i)) })
				runtime.GOMAXPROCS(old)
				require.Error(t, err)
				require.ErrorContains(t, err, tc.want)
				if first == "" {
					first = err.Error()
				}
				require.Equal(t, first, err.Error(), "GOMAXPROCS=%d", procs)
			}
		})
	}
}

// TestParseReplicaGroups: the listed and iota forms.
func TestParseReplicaGroups(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]int
		err  string
	}{
		{"{}", nil, ""},
		{"{{0,1},{2,3}}", [][]int{{0, 1}, {2, 3}}, ""},
		{"[2,4]<=[8]", [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, ""},
		{"[4,2]<=[2,4]T(1,0)", [][]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, ""},
		{"[2,4]<=[2,2,2]T(2,1,0)", [][]int{{0, 4, 2, 6}, {1, 5, 3, 7}}, ""},
		{"[2,4]<=[7]", nil, "want [G,S]<=[dims]"},
		{"[2,2]<=[2,2]T(0,0)", nil, "want [G,S]<=[dims]"},
		{"{{0,x}}", nil, `"x" is not a device id`},
		{"{{0,99999}}", nil, `"99999" is not a device id`},
	} {
		got, err := hlo.ParseReplicaGroups(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

// TestImpliedDevices: a module that declares no devices implies them by
// its collectives' groups and shapes.
func TestImpliedDevices(t *testing.T) {
	for _, tc := range []struct {
		body string
		want hlo.Devices
	}{
		{"ROOT r = f32[2] negate(x)", hlo.Devices{Replicas: 1, Partitions: 1}},
		{"ROOT r = f32[2] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add", hlo.Devices{Replicas: 4, Partitions: 1}},
		{"ROOT r = f32[2] all-reduce(x), replica_groups={{0},{1}}, to_apply=add", hlo.Devices{Replicas: 1, Partitions: 1}},
		{"ROOT r = f32[8] all-gather(x), replica_groups={}, dimensions={0}", hlo.Devices{Replicas: 4, Partitions: 1}},
		{"ROOT r = f32[2] collective-permute(x), source_target_pairs={{0,5}}", hlo.Devices{Replicas: 6, Partitions: 1}},
		{"ROOT r = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,2}}", hlo.Devices{Replicas: 1, Partitions: 3}},
		{"ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3,4}}, use_global_device_ids=true, to_apply=add", hlo.Devices{Replicas: 5, Partitions: 1}},
	} {
		m, err := hlo.Parse("s.hlo", spmdAdd+"ENTRY e {\n x = f32[2] parameter(0)\n "+tc.body+"\n}\n")
		require.NoError(t, err)
		require.Equal(t, tc.want, hlo.ImpliedDevices(m), tc.body)
	}
}

func ExampleRunDevices() {
	m, _ := hlo.Parse("sum.hlo", `HloModule sum, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  id = u32[] replica-id()
  x = f32[] convert(id)
  ROOT total = f32[] all-reduce(x), replica_groups={}, to_apply=add
}
`)
	d, _ := hlo.ModuleDevices(m)
	out, _ := RunDevices((&eval.Evaluator{File: "sum.hlo", M: m}), d, make([][]*eval.Value, d.N()))
	for i, v := range out {
		fmt.Printf("device %d: %v\n", i, v.Data)
	}
	// Output:
	// device 0: [6]
	// device 1: [6]
	// device 2: [6]
	// device 3: [6]
}

// TestVariadicStartForms: on one device, a variadic all-reduce-start is its
// results (XLA's shape), a variadic all-gather-start ((operands), (results)),
// and each -done the results (the evaluator had wrapped the first).
func TestVariadicStartForms(t *testing.T) {
	v := evaltest.Run(t, spmdAdd+`ENTRY e {
  a = f32[2] constant({1, 2})
  b = f32[2] constant({3, 4})
  s = (f32[2], f32[2]) all-reduce-start(a, b), to_apply=add
  d = (f32[2], f32[2]) all-reduce-done(s)
  gs = ((f32[2], f32[2]), (f32[2], f32[2])) all-gather-start(a, b), dimensions={0}
  gd = (f32[2], f32[2]) all-gather-done(gs)
  ROOT o = ((f32[2], f32[2]), (f32[2], f32[2])) tuple(d, gd)
}
`)
	var got [][]float64
	for _, l := range eval.Leaves(v) {
		got = append(got, l.Data)
	}
	require.Equal(t, [][]float64{{1, 2}, {3, 4}, {1, 2}, {3, 4}}, got)
}

// TestSPMDRaggedAllToAll: JAX's ragged_all_to_all tests
// (tests/ragged_collective_test.py: test_ragged_all_to_all and
// test_ragged_all_to_all_axis_index_groups), whose expected outputs XLA
// computed on GPUs.
func TestSPMDRaggedAllToAll(t *testing.T) {
	s32 := func(xs ...float64) *eval.Value {
		return &eval.Value{Shape: &hlo.Shape{Elem: "s32", Dims: []int64{int64(len(xs))}}, Data: xs}
	}
	for _, tc := range []struct {
		groups string
		args   [][]*eval.Value // per device: operand, output, input_offsets, send_sizes, output_offsets, recv_sizes
		want   [][]float64
	}{
		{"{{0,1}}", [][]*eval.Value{
			{s32(1, 2, 2), s32(0, 0, 0, 0), s32(0, 1), s32(1, 2), s32(0, 0), s32(1, 1)},
			{s32(3, 4, 0), s32(0, 0, 0, 0), s32(0, 1), s32(1, 1), s32(1, 2), s32(2, 1)},
		}, [][]float64{{1, 3, 0, 0}, {2, 2, 4, 0}}},
		{"{{0,1},{2,3}}", [][]*eval.Value{
			{s32(1, 2, 2), s32(0, 0, 0, 0), s32(0, 1), s32(1, 2), s32(0, 0), s32(1, 1)},
			{s32(3, 4, 0), s32(0, 0, 0, 0), s32(0, 1), s32(1, 1), s32(1, 2), s32(2, 1)},
			{s32(10, 20, 20), s32(0, 0, 0, 0), s32(0, 1), s32(1, 2), s32(0, 0), s32(1, 1)},
			{s32(30, 40, 0), s32(0, 0, 0, 0), s32(0, 1), s32(1, 1), s32(1, 2), s32(2, 1)},
		}, [][]float64{{1, 3, 0, 0}, {2, 2, 4, 0}, {10, 30, 0, 0}, {20, 20, 40, 0}}},
	} {
		src := `ENTRY e {
  x = s32[3] parameter(0)
  o = s32[4] parameter(1)
  io = s32[2] parameter(2)
  ss = s32[2] parameter(3)
  oo = s32[2] parameter(4)
  rs = s32[2] parameter(5)
  ROOT r = s32[4] ragged-all-to-all(x, o, io, ss, oo, rs), replica_groups=` + tc.groups + `
}
`
		m, err := hlo.Parse("r.hlo", src)
		require.NoError(t, err)
		require.NoError(t, verify.Verify("r.hlo", m))
		got, err := RunDevices((&eval.Evaluator{File: "r.hlo", M: m}), hlo.Devices{Replicas: len(tc.args), Partitions: 1}, tc.args)
		require.NoError(t, err, tc.groups)
		for i, w := range tc.want {
			require.Equal(t, w, got[i].Data, "%s device %d", tc.groups, i)
		}
	}
}

// TestStartFormsNeedTheirDevices: an all-gather-start whose result holds
// two operands, or a variadic all-gather that gathers four, spans that
// many devices: on one it is refused, not answered with the operand under
// the result's shape (both the evaluator and the chips had done so).
func TestStartFormsNeedTheirDevices(t *testing.T) {
	for _, body := range []string{
		"ags = (u32[1,2], u32[2,2]) all-gather-start(a), dimensions={0}, channel_id=3\n ROOT r = u32[2,2] all-gather-done(ags)",
		"ROOT ag = (u32[4,2], u32[4,2]) all-gather(a, a), replica_groups={}, dimensions={0}",
	} {
		m, err := hlo.Parse("a.hlo", "ENTRY e {\n a = u32[1,2] parameter(0)\n "+body+"\n}\n")
		require.NoError(t, err)
		require.NoError(t, verify.Verify("a.hlo", m))
		_, err = (&eval.Evaluator{File: "a.hlo", M: m}).Run([]*eval.Value{{Shape: &hlo.Shape{Elem: "u32", Dims: []int64{1, 2}}, Data: []float64{1, 2}}})
		require.ErrorContains(t, err, "a collective across", body)
		require.Greater(t, hlo.ImpliedDevices(m).N(), 1, body)
	}
}

// FuzzEvalDevices: whatever parses and verifies evaluates on the devices it
// declares or implies (up to 8) without an internal error or a runaway, and
// twice to the same bits or the same error, whatever the goroutines'
// schedule.
func FuzzEvalDevices(f *testing.F) {
	f.Add(spmdAdd + "ENTRY e {\n x = f32[2] parameter(0)\n g = f32[4] all-gather(x), replica_groups={}, dimensions={0}\n ROOT r = f32[2] reduce-scatter(g), replica_groups={{1,0}}, dimensions={0}, to_apply=add\n}\n")
	f.Add("HloModule m, num_partitions=2\nENTRY e {\n x = f32[2] parameter(0)\n ROOT r = f32[2] collective-permute(x), channel_id=1, source_target_pairs={{0,1},{1,0}}\n}\n")
	f.Add(spmdAdd + "ENTRY e {\n x = f32[2] parameter(0)\n ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add\n}\n")
	f.Add(spmdAdd + "ENTRY e {\n x = f32[2] parameter(0)\n ROOT r = f32[2] all-reduce(x), channel_id=1, replica_groups=mesh['x'=2,'y'=2] {'y'}, use_global_device_ids=true, to_apply=add\n}\n")
	for _, text := range corpus.XLACaseTexts(400) {
		if strings.Contains(text, "all-") || strings.Contains(text, "collective-") || strings.Contains(text, "send(") {
			f.Add(text)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := hlo.Parse("fuzz.hlo", src)
		if err != nil || verify.Verify("fuzz.hlo", m) != nil || eval.ParamElements(m) > 1<<10 {
			return
		}
		d, err := hlo.ModuleDevices(m)
		if err != nil {
			return
		}
		if need := hlo.ImpliedDevices(m); d.N() < need.N() {
			if d.N() > 1 {
				return
			}
			d = need
		}
		if d.N() > 8 {
			return
		}
		one, err := eval.RandomArgsWithin(m, 1, 1<<10)
		if err != nil {
			return
		}
		args := make([][]*eval.Value, d.N())
		for i := range args {
			args[i] = one
		}
		run := func() ([]*eval.Value, error) {
			return RunDevices((&eval.Evaluator{File: "fuzz.hlo", M: m, MaxLiveElements: 1 << 14, MaxWhileIterations: 50}), d, args)
		}
		a, errA := run()
		b, errB := run()
		if errA != nil || errB != nil {
			if errA == nil || errB == nil || errA.Error() != errB.Error() {
				t.Fatalf("two runs differ: %v / %v", errA, errB)
			}
			if strings.Contains(errA.Error(), "internal evaluator error") {
				t.Fatal(errA)
			}
			return
		}
		for i := range a {
			require.Empty(t, eval.BitDiff(a[i], b[i]), fmt.Sprint("device ", i))
		}
	})
}

// BenchmarkRunDevices: eight devices, each a matrix product and an
// all-reduce of its 256x256 result, then an all-gather.
func BenchmarkRunDevices(b *testing.B) {
	src := "HloModule m, replica_count=8\n" + spmdAdd + `ENTRY e {
  x = f32[256,256] parameter(0)
  d = f32[256,256] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[256,256] all-reduce(d), replica_groups={}, to_apply=add
  ROOT g = f32[2048,256] all-gather(s), replica_groups={}, dimensions={0}
}`
	m, err := hlo.Parse("b.hlo", src)
	require.NoError(b, err)
	require.NoError(b, verify.Verify("b.hlo", m))
	d, _ := hlo.ModuleDevices(m)
	args := make([][]*eval.Value, d.N())
	for i := range args {
		a, err := eval.RandomArgs(m, uint64(i+1))
		require.NoError(b, err)
		args[i] = a
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunDevices((&eval.Evaluator{File: "b.hlo", M: m}), d, args); err != nil {
			b.Fatal(err)
		}
	}
}
