package corpus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/internal/corpus"
)

// TestDirBesideTheModule: the corpus is ../shared/corpus from the module
// root, whichever package folder the test runs in.
func TestDirBesideTheModule(t *testing.T) {
	d := corpus.Dir()
	if d == "" {
		t.Skip("../shared/corpus is not present")
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(wd))), "shared", "corpus"), d)
	require.NotEmpty(t, corpus.HLOFiles(t))
	texts := corpus.XLACaseTexts(3)
	require.Len(t, texts, 3)
	n := 0
	corpus.ForEachXLACase(t, func(c corpus.XLACase) {
		if n < 3 {
			require.Equal(t, texts[n], c.Text)
		}
		n++
	})
	require.Greater(t, n, 1000)
}
