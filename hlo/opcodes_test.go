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
