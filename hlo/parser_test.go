package hlo_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/corpus"
	"github.com/stretchr/testify/require"
)

func TestParseForms(t *testing.T) {
	src := `HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3]{0}}

%add.1 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY main {
  p = f32[2,3]{1,0:T(8,128)S(1)} parameter(0) /* a comment */
  c = f32[] constant(-inf) // another
  r = f32[3]{0} reduce(p, c), dimensions={0}, to_apply=%add.1,
      metadata={op_type="Sum" op_name="x/y"}
  cv = f32[1,4,4,8] convolution(f32[1,4,4,8] x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  g = (f32[3], s32[]) tuple(r, i)
  d = f32[<=4,?] parameter(1)
  ROOT v = negate(r), sharding={devices=[2,1]<=[2]}
}
`
	m, err := hlo.Parse("m.hlo", src)
	require.NoError(t, err)
	require.Equal(t, "m", m.Name)
	require.Len(t, m.Computations, 2)
	e := m.Entry
	require.Equal(t, "main", e.Name)
	require.Equal(t, "v", e.Root.Name)
	p := e.Instructions[0]
	require.Equal(t, "f32", p.Shape.Elem)
	require.Equal(t, []int64{2, 3}, p.Shape.Dims)
	require.Equal(t, "T(8,128)S(1)", p.Shape.Layout.Tail)
	r := e.Instructions[2]
	require.Equal(t, "reduce", r.Opcode)
	v, _ := r.Attr("to_apply")
	require.Equal(t, "%add.1", v)
	v, _ = r.Attr("metadata")
	require.Equal(t, `{op_type="Sum" op_name="x/y"}`, v)
	cv := e.Instructions[3]
	v, _ = cv.Attr("dim_labels")
	require.Equal(t, "b01f_01io->b01f", v)
	v, _ = cv.Attr("window")
	require.Equal(t, "{size=3x3 pad=1_1x1_1}", v)
	require.Equal(t, []int64{1, 4, 4, 8}, cv.Operands[0].Shape.Dims)
	require.Equal(t, 14, cv.Operands[0].Pos.Line)
	require.True(t, e.Instructions[4].Shape.IsTuple)
	require.Equal(t, []hlo.DimKind{hlo.Bounded, hlo.Unbounded}, e.Instructions[5].Shape.DimKinds)
	require.Nil(t, e.Root.Shape, "left to inference")
	require.Equal(t, "-inf", e.Instructions[1].Literal)
	// Printing gives text that parses back to the same module.
	m2, err := hlo.Parse("printed", m.String())
	require.NoError(t, err)
	require.Equal(t, m.String(), m2.String())
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		src, msg string
	}{
		{"ENTRY e {\n  x = f32[2 parameter(0)\n}\n", "2:13: expected \",\""},
		{"ENTRY e {\n  x = g32[] parameter(0)\n}\n", "2:7: expected a shape"},
		{"ENTRY e {\n  x = f32[] parameter(0)\n", "computation e is not closed"},
		{"ENTRY e {\n  x = f32[] parameter(0)\n  x = f32[] parameter(1)\n}\n", "instruction x defined twice"},
		{"ENTRY e {\n  ROOT x = f32[] parameter(0)\n  ROOT y = f32[] parameter(1)\n}\n", "second ROOT"},
		{"ENTRY a {\n x = f32[] parameter(0)\n}\nENTRY b {\n y = f32[] parameter(0)\n}\n", "a second ENTRY computation b"},
		{"HloModule m, entry_computation_layout={()->f32[]}\nc {\n x = f32[] parameter(0)\n}\n", "no ENTRY computation"},
		{"ENTRY e {\n x = f32[] constant(\"oops)\n}\n", "unterminated string"},
		{"", "no computation"},
		// Arrays beyond what anything could hold, named with their size.
		{"ENTRY e {\n  ROOT a = f32[4294967296,4294967296] parameter(0)\n}\n", "2:12: a: the array f32[4294967296,4294967296] has 1.845e+19 elements"},
		{"ENTRY e {\n  ROOT a = f32[9223372036854775807,2] parameter(0)\n}\n", "has 1.845e+19 elements"},
		{"ENTRY e {\n  ROOT a = s32[3037000500,3037000500] parameter(0)\n}\n", "has 9.223e+18 elements, beyond the 2^50"},
		{"ENTRY e {\n  a = (f32[], s32[1125899906842625]) parameter(0)\n}\n", "a: the array s32[1125899906842625]"},
		// Nesting: an error, not a stack overflow.
		{"ENTRY e {\n  ROOT a = " + strings.Repeat("(", 100) + "f32[]" + strings.Repeat(")", 100) + " parameter(0)\n}\n", "2:76: tuple shapes nested more than 64 deep"},
		{"ENTRY e {\n  ROOT a = f32[] parameter(0), x=" + strings.Repeat("{", 300) + "\n}\n", "brackets nested more than 256 deep"},
	}
	for _, c := range cases {
		_, err := hlo.Parse("t.hlo", c.src)
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.msg, c.src)
		require.Contains(t, err.Error(), "t.hlo:")
	}
	// The largest real array of the corpus still parses (Llama-2's scores).
	_, err := hlo.Parse("t.hlo", "ENTRY e {\n  ROOT a = f32[1024,32,4096,4096] parameter(0)\n}\n")
	require.NoError(t, err)
	// Five million open parentheses end in well under a second.
	start := time.Now()
	_, err = hlo.Parse("t.hlo", "ENTRY e {\n  ROOT a = "+strings.Repeat("(", 5_000_000)+"f32[]"+strings.Repeat(")", 5_000_000)+" parameter(0)\n}\n")
	require.ErrorContains(t, err, "nested more than")
	require.Less(t, time.Since(start), 2*time.Second)
	// Several errors, each positioned, in one pass.
	_, err = hlo.Parse("t.hlo", "ENTRY e {\n a = f32[2 parameter(0)\n b = q[] parameter(1)\n c = f32[] add(a, b)\n}\n")
	require.Len(t, err.(hlo.ErrorList), 2)
}

func FuzzParse(f *testing.F) {
	f.Add("ENTRY e {\n  ROOT x = f32[2]{0} parameter(0)\n}\n")
	files := corpus.Glob("hlo/*.hlo")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 20000 {
			f.Add(string(b))
		}
	}
	for _, text := range corpus.XLACaseTexts(300) {
		f.Add(text)
	}
	// Issue 44's input kinds: integer constants at and beyond their
	// type's range, and splats of arrays too large to write out.
	for _, c := range []string{
		"s8[3] constant({127, -128, 128})", "u8[2] constant({255, -1})", "s4[2] constant({7, -9})",
		"u64[] constant(18446744073709551615)", "s64[] constant(-9223372036854775809)", "pred[2] constant({1, 2})",
		"u32[] constant(1.5)", "f32[100000,100000] constant(1)", "s32[100000,100000] constant(99999999999)",
	} {
		f.Add("ENTRY e {\n  ROOT c = " + c + "\n}\n")
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := hlo.Parse("fuzz.hlo", src)
		if err != nil {
			if list, ok := err.(hlo.ErrorList); !ok || len(list) == 0 || len(list) > hlo.MaxErrors {
				t.Fatalf("bad error list: %v", err)
			}
			return
		}
		_ = verify.Verify("fuzz.hlo", m) // must not panic
		// What parses prints to text that parses to the same text.
		m2, err := hlo.Parse("printed", m.String())
		if err != nil {
			t.Fatalf("printed module does not parse: %v\n%s", err, m.String())
		}
		if m2.String() != m.String() {
			t.Fatalf("print is not stable:\n%s\n---\n%s", m.String(), m2.String())
		}
	})
}

// TestCompareTotalOrderSpelling: JAX 0.11 prints a sort comparator's total
// order as order=TOTAL; Pulse reads it as type=TOTALORDER, and leaves an
// explicit type alone.
func TestCompareTotalOrderSpelling(t *testing.T) {
	m, err := hlo.Parse("t.hlo", `HloModule m
c {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  lt = pred[] compare(a, b), direction=LT, order=TOTAL
  ROOT f = pred[] compare(a, b), direction=LT, type=FLOAT, order=TOTAL
}
ENTRY e {
  ROOT p = f32[] parameter(0)
}
`)
	require.NoError(t, err)
	c := m.Computation("c")
	typ, _ := c.Instructions[2].Attr("type")
	require.Equal(t, "TOTALORDER", typ)
	typ, _ = c.Root.Attr("type")
	require.Equal(t, "FLOAT", typ)
}
