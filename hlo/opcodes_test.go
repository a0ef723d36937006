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
