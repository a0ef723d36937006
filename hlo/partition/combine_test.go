package partition

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
)

// TestCombineAllReduces: independent all-reduces over the same devices
// with the same reduction merge into one of a tuple; dependent ones, other
// groups, other reductions and a 257th operand do not.
func TestCombineAllReduces(t *testing.T) {
	const head = `HloModule m, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

`
	ar := func(name, x, dims, groups, red string) string {
		return "  " + name + " = f32[" + dims + "] all-reduce(" + x + "), channel_id=1, replica_groups=" + groups + ", use_global_device_ids=true, to_apply=" + red + "\n"
	}
	const all, halves = "{{0,1,2,3}}", "{{0,1},{2,3}}"
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(ar("r"+strconv.Itoa(i), "p", "8", all, "add"))
		}
		return b.String()
	}
	cases := []struct {
		name, body string
		want       []string // the collectives after combining: name and bytes
	}{
		{"independent", "  p = f32[8] parameter(0)\n  q = f32[4] parameter(1)\n" + ar("a", "p", "8", all, "add") + "  n = f32[8] negate(a)\n" + ar("b", "q", "4", all, "sum") +
			"  ROOT t = (f32[8], f32[4]) tuple(n, b)\n", []string{"a.combined 48"}},
		{"dependent", "  p = f32[8] parameter(0)\n" + ar("a", "p", "8", all, "add") + "  n = f32[8] negate(a)\n" + ar("b", "n", "8", all, "add") +
			"  ROOT t = (f32[8], f32[8]) tuple(a, b)\n", []string{"a 32", "b 32"}},
		{"other groups", "  p = f32[8] parameter(0)\n" + ar("a", "p", "8", all, "add") + ar("b", "p", "8", halves, "add") +
			"  ROOT t = (f32[8], f32[8]) tuple(a, b)\n", []string{"a 32", "b 32"}},
		{"other reduction", "  p = f32[8] parameter(0)\n" + ar("a", "p", "8", all, "add") + ar("b", "p", "8", all, "max") +
			"  ROOT t = (f32[8], f32[8]) tuple(a, b)\n", []string{"a 32", "b 32"}},
		{"past 256 operands", "  p = f32[8] parameter(0)\n" + many(257) + "  ROOT t = f32[8] add(r0, r256)\n", []string{"r0.combined 8192", "r256 32"}},
		{"three, one dependent", "  p = f32[8] parameter(0)\n" + ar("a", "p", "8", all, "add") + ar("b", "a", "8", all, "add") + ar("c", "p", "8", all, "add") +
			"  ROOT t = (f32[8], f32[8], f32[8]) tuple(a, b, c)\n", []string{"a.combined 64", "b 32"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := head + "ENTRY e {\n" + c.body + "}\n"
			m, err := hlo.Parse("m.hlo", src)
			require.NoError(t, err)
			var colls []Collective
			for _, in := range m.Entry.Instructions {
				if in.Opcode == "all-reduce" {
					colls = append(colls, Collective{Name: in.Name, Kind: "all-reduce", For: in.Name, Bytes: shapeBytes(in.Shape)})
				}
			}
			out, list, err := combineAllReduces(m, colls)
			require.NoError(t, err)
			var got []string
			for _, cl := range list {
				got = append(got, cl.Name+" "+strconv.FormatInt(cl.Bytes, 10))
			}
			require.Equal(t, c.want, got)
			require.NoError(t, verify.Verify("combined", out), "%s", out)
			// Every instruction follows its operands.
			seen := map[string]bool{}
			for _, in := range out.Entry.Instructions {
				for _, o := range in.Operands {
					require.True(t, seen[o.Name], "%s uses %s before it is defined:\n%s", in.Name, o.Name, out)
				}
				seen[in.Name] = true
			}
			require.Equal(t, len(c.want), strings.Count(out.String(), " all-reduce("))
		})
	}
}
