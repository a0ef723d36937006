package pass_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/pass"
)

const module = `HloModule m

ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT n = f32[2,3] negate(a)
}
`

func parse(t *testing.T) *hlo.Module {
	m, err := hlo.Parse("m.hlo", module)
	require.NoError(t, err)
	return m
}

// renameRoot is a well-behaved pass; breakShape leaves a module whose root
// no longer has the shape its operand gives it.
var (
	renameRoot = pass.Pass{Name: "rename-root", Run: func(m *hlo.Module) error { m.Entry.Root.Name = "r"; return nil }}
	breakShape = pass.Pass{Name: "break-shape", Run: func(m *hlo.Module) error {
		m.Entry.Root.Shape = &hlo.Shape{Elem: "f32", Dims: []int64{3, 2}}
		return nil
	}}
	refuse = pass.Pass{Name: "refuse", Run: func(*hlo.Module) error { return errors.New("cannot expand x") }}
)

func TestRunNamesTheFailingPass(t *testing.T) {
	for _, c := range []struct {
		name   string
		passes []pass.Pass
		verify bool
		want   string // "" for success
		isPass bool   // the error is the pass's own
	}{
		{"all well", []pass.Pass{renameRoot}, true, "", false},
		{"a refusal is the pass's error as it gave it", []pass.Pass{renameRoot, refuse}, true, "cannot expand x", true},
		{"a broken module is caught after the pass that broke it", []pass.Pass{breakShape, renameRoot}, true, "pass break-shape of the test pipeline left a module that does not verify", false},
		{"without verification it goes unnoticed", []pass.Pass{breakShape, renameRoot}, false, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &pass.Pipeline{Name: "test", Passes: c.passes}
			err := p.Run("m.hlo", parse(t), pass.Options{Verify: c.verify})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.want)
			e, ok := pass.Failed(err)
			require.True(t, ok)
			require.Equal(t, !c.isPass, e.Verify)
		})
	}
}

func TestDumpAfterMatchesWholeNames(t *testing.T) {
	p := &pass.Pipeline{Name: "test", Passes: []pass.Pass{
		{Name: "expand-a", Run: func(*hlo.Module) error { return nil }},
		renameRoot,
		{Name: "expand-ab", Run: func(*hlo.Module) error { return nil }},
	}}
	re := regexp.MustCompile(`expand-a|rename-root`)
	require.Equal(t, []string{"expand-a", "rename-root"}, p.Matching(re))
	var dumps []string
	err := p.Run("m.hlo", parse(t), pass.Options{DumpAfter: re, Dump: func(i int, name string, m *hlo.Module) error {
		dumps = append(dumps, name)
		if name == "rename-root" {
			require.Equal(t, 2, i)
			require.True(t, strings.Contains(m.String(), "ROOT r "), m.String())
		}
		return nil
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"expand-a", "rename-root"}, dumps)
}

func TestCheckRefusesAmbiguousNames(t *testing.T) {
	p := &pass.Pipeline{Name: "test", Passes: []pass.Pass{renameRoot, renameRoot}}
	require.ErrorContains(t, p.Run("m.hlo", parse(t), pass.Options{}), "two passes named rename-root")
	p = &pass.Pipeline{Name: "test", Passes: []pass.Pass{{Name: "", Run: renameRoot.Run}}}
	require.ErrorContains(t, p.Check(), "pass 1 has no name")
}
