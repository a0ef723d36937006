package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sameChip requires the template's direct decode of the tree and the
// strict decode through its text to agree: the same chip, or the same
// error.
func sameChip(t *testing.T, tpl *Template, sets []string) {
	t.Helper()
	fast, ferr := tpl.chip(sets, false)
	slow, serr := tpl.chip(sets, true)
	if serr != nil || ferr != nil {
		require.Error(t, ferr, "%s %v: the strict decode refuses: %v", tpl.origin, sets, serr)
		require.Error(t, serr, "%s %v: the direct decode refuses: %v", tpl.origin, sets, ferr)
		require.Equal(t, serr.Error(), ferr.Error(), "%s %v", tpl.origin, sets)
		return
	}
	require.Equal(t, string(slow.YAML()), string(fast.YAML()), "%s %v", tpl.origin, sets)
}

// Every preset and example chip, with every key set to its own value, to
// an odd value and to a value of the wrong type, builds the same chip (or
// the same error) by the template's direct decode as by the strict one.
func TestTemplateMatchesStrictDecode(t *testing.T) {
	type source struct {
		origin string
		src    []byte
	}
	var srcs []source
	for _, n := range Presets() {
		b, _ := PresetYAML(n)
		srcs = append(srcs, source{n, b})
	}
	files, _ := filepath.Glob("../examples/chips/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		srcs = append(srcs, source{f, b})
	}
	srcs = append(srcs,
		source{"anchors.yaml", []byte("name: a\nmxu: &m\n  rows: 8\n  cols: 8\nclock_mhz: 1000\n")},
		source{"unknown.yaml", []byte("name: a\nmxu:\n  rowz: 8\n")},
		source{"merge.yaml", []byte("name: a\nclock_mhz: 900\n<<: {description: x}\n")},
		source{"wrongtype.yaml", []byte("name: a\nmxu:\n  rows: [1, 2]\n")},
	)
	for si, s := range srcs {
		tpl, err := NewTemplate(s.origin, s.src)
		require.NoError(t, err, s.origin)
		sameChip(t, tpl, nil)
		base, err := tpl.chip(nil, true)
		if err != nil {
			continue
		}
		odd := []string{"1.5", "x", "-1", "1e3", "\"q\"", "a: b", "true", "", "[1]"}
		for i, k := range Keys() {
			v, err := base.Get(k.Name)
			require.NoError(t, err, k.Name)
			own := fmt.Sprint(v)
			if l, ok := v.([]string); ok && len(l) > 0 {
				own = l[0]
			}
			// Each key with its own value and one odd one, the odd values
			// taking turns over the keys.
			sameChip(t, tpl, []string{k.Name + "=" + own})
			sameChip(t, tpl, []string{k.Name + "=" + odd[(i+si)%len(odd)]})
		}
		sameChip(t, tpl, []string{"mxu.rowz=8"})
		sameChip(t, tpl, []string{"mxu=8"})
	}
}
