package hlo

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpcodeNames: the opcode constants are exactly the opcode table's
// names, each once.
func TestOpcodeNames(t *testing.T) {
	var table []string
	for op := range hloOpcodes {
		table = append(table, op)
	}
	for op := range pulseOpcodes {
		table = append(table, op)
	}
	sort.Strings(table)
	names := append([]string(nil), allOpcodes...)
	sort.Strings(names)
	require.Equal(t, table, names)
}

// TestElemBounds: the table's bounds are the literals the passes wrote
// by hand before it.
func TestElemBounds(t *testing.T) {
	for _, c := range []struct{ elem, lo, hi string }{
		{"pred", "false", "true"}, {"s4", "-8", "7"}, {"u4", "0", "15"}, {"s8", "-128", "127"},
		{"s32", "-2147483648", "2147483647"}, {"s64", "-9223372036854775808", "9223372036854775807"},
		{"u64", "0", "18446744073709551615"}, {"f32", "-inf", "inf"}, {"bf16", "-inf", "inf"},
		{"f8e4m3fn", "-448", "448"}, {"f8e5m2", "-inf", "inf"},
	} {
		et, ok := LookupElem(c.elem)
		require.True(t, ok, c.elem)
		lo, hi, ok := et.Bounds()
		require.True(t, ok, c.elem)
		require.Equal(t, [2]string{c.lo, c.hi}, [2]string{lo, hi}, c.elem)
	}
	for _, e := range []string{"c64", "token"} {
		et, _ := LookupElem(e)
		_, _, ok := et.Bounds()
		require.False(t, ok, e)
	}
	require.Equal(t, 4, ElemBits("f4e2m1fn"))
	require.True(t, IsFloat("c64") && !IsRealFloat("c64") && IsRealFloat("f8e8m0fnu") && IsInteger("u2") && !IsInteger("pred"))
}

// TestCheckLiteralLarge: a large literal's verdict is kept by content (the
// verifier checks a pass's big constant after every later pass) and is
// the same verdict the scan gives, for good and bad literals alike.
func TestCheckLiteralLarge(t *testing.T) {
	vals := func(n int, bad string) string {
		b := []byte("{")
		for i := range n {
			if i > 0 {
				b = append(b, ", "...)
			}
			if i == n/2 && bad != "" {
				b = append(b, bad...)
				continue
			}
			b = append(b, "1.5"...)
		}
		return string(append(b, '}'))
	}
	n := bigLiteral / 4 // values of "1.5, ": past the size whose verdicts are kept
	s := &Shape{Elem: "f32", Dims: []int64{int64(n)}}
	for _, c := range []struct {
		lit, err string
	}{
		{vals(n, ""), ""},
		{vals(n, "x7"), "x7"},
		{vals(n-1, ""), "values for"},
		{vals(n, "nan(0x1)"), ""},
	} {
		require.Greater(t, len(c.lit), bigLiteral)
		for range 2 { // the scan, then the kept verdict
			err := CheckLiteral(c.lit, s)
			if c.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, c.err)
			}
			require.Equal(t, err, checkLiteral(c.lit, s))
		}
	}
	// Other shapes of the same text are judged apart.
	require.Error(t, CheckLiteral(vals(n, ""), &Shape{Elem: "f32", Dims: []int64{int64(n + 1)}}))
	require.Error(t, CheckLiteral(vals(n, ""), &Shape{Elem: "s8", Dims: []int64{int64(n)}}))
}
