package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tutorialCommands extracts docs/tutorial.md's runnable parts: every line
// of a ```sh block that starts with "pulse " (comments after # dropped),
// and the ```asm block the text saves as first.s.
func tutorialCommands(t *testing.T, doc string) (cmds [][]string, firstS string) {
	t.Helper()
	var block, lang string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang, block = true, strings.TrimPrefix(line, "```"), ""
		case in && strings.HasPrefix(line, "```"):
			in = false
			if lang == "asm" && firstS == "" {
				firstS = block
			}
		case in:
			block += line + "\n"
			if lang != "sh" {
				continue
			}
			cmd, _, _ := strings.Cut(line, "#")
			cmd = strings.TrimSpace(cmd)
			if rest, ok := strings.CutPrefix(cmd, "pulse "); ok {
				cmds = append(cmds, strings.Fields(rest))
			}
		}
	}
	return cmds, firstS
}

// TestTutorialCommands runs every command of docs/tutorial.md as written,
// in a folder holding the repository's examples and labs, as a reader
// following it would.
func TestTutorialCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "tutorial.md"))
	require.NoError(t, err)
	cmds, firstS := tutorialCommands(t, string(doc))
	require.GreaterOrEqual(t, len(cmds), 10, "the tutorial's commands were found")
	require.NotEmpty(t, firstS, "the tutorial's first kernel was found")

	dir := t.TempDir()
	for _, d := range []string{"examples", "labs"} {
		require.NoError(t, os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "first.s"), []byte(firstS), 0o644))
	t.Chdir(dir)
	for _, args := range cmds {
		code, out, errs := runCLI(args...)
		require.Zerof(t, code, "pulse %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, errs)
	}
	for _, f := range []string{"mylab/kernel.s", "mylab/README.md", "vadd.json", "vadd.pb.gz", "vadd.png"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, "the tutorial's commands make %s", f)
	}
}
