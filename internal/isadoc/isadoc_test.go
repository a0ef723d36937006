package isadoc

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/isa.md")

// TestDocsUpToDate fails when docs/isa.md no longer matches the instruction table.
func TestDocsUpToDate(t *testing.T) {
	const path = "../../docs/isa.md"
	got := Markdown()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), got, "docs/isa.md is stale: run go test ./internal/isadoc -update")
}
