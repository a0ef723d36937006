package pulse_test

// The package graph, written down and enforced, as Go's
// go/build/deps_test.go does for the standard library. docs/architecture.md
// draws it. A change that adds an import between Pulse's packages must
// add it here too, where a reviewer sees it; the principles below say
// which additions are never right.

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/pulse-sim/pulse"

// allowedImports lists, for every package of the module (by its path in the
// module, "" for the root), the module's packages its non-test files may
// import directly.
var allowedImports = map[string][]string{
	// Leaves: the ISA, the event engine, the systolic array, host helpers.
	"isa":              {},
	"sim":              {},
	"systolic":         {},
	"internal/host":    {},
	"internal/corpus":  {"hlo", "internal/npy"},
	"internal/docfigs": {},
	"internal/hlogen":  {},
	"labs":             {},
	"examples":         {},

	// The machine: programs, memories, engines, cores, chips and their
	// reports. None of it knows HLO or the compiler.
	"exe":                  {"isa"},
	"internal/npy":         {"isa"},
	"internal/isatest":     {"isa"},
	"internal/inputs":      {"internal/host"},
	"config":               {"internal/inputs", "isa"},
	"memory":               {"isa", "sim"},
	"dma":                  {"isa", "memory", "sim"},
	"ref":                  {"config", "exe", "isa"},
	"core":                 {"config", "dma", "exe", "isa", "memory", "ref", "sim", "systolic"},
	"energy":               {"config", "core", "isa"},
	"chip":                 {"config", "core", "energy", "exe", "ref"},
	"traces":               {"chip", "config", "core", "energy", "exe", "isa", "sim"},
	"membench":             {"config", "core", "memory", "sim"},
	"asm":                  {"exe", "internal/inputs", "internal/npy", "isa"},
	"internal/conformance": {"asm", "exe", "isa"},
	"internal/isadoc":      {"asm", "isa"},

	// HLO: the IR at the bottom, each job above it in a package of its own.
	"hlo":               {"isa"},
	"hlo/verify":        {"hlo"},
	"hlo/analysis":      {"hlo"},
	"hlo/rewrite":       {"hlo"},
	"hlo/fusion":        {"hlo"},
	"hlo/pass":          {"hlo", "hlo/verify"},
	"hlo/expand":        {"hlo", "hlo/rewrite"},
	"hlo/eval/scalar":   {"hlo", "isa"},
	"hlo/eval":          {"hlo", "hlo/analysis", "hlo/eval/scalar", "hlo/expand", "hlo/rewrite", "hlo/verify", "isa"},
	"hlo/eval/spmd":     {"hlo", "hlo/eval"},
	"hlo/partition":     {"hlo"},
	"hlo/eval/check":    {"hlo", "hlo/eval", "hlo/eval/scalar", "isa"},
	"hlo/eval/evaltest": {"hlo", "hlo/eval", "hlo/eval/check", "hlo/rewrite", "hlo/verify"},
	"hlo/stablehlo":     {"hlo", "hlo/eval", "hlo/eval/check", "hlo/eval/scalar", "hlo/verify", "internal/inputs"},

	// The compiler, the interconnect and what runs them.
	"lowering/legalize": {"hlo", "hlo/eval", "hlo/rewrite", "isa"},
	"lowering":          {"asm", "config", "exe", "hlo", "hlo/analysis", "hlo/eval", "hlo/expand", "hlo/fusion", "hlo/pass", "hlo/rewrite", "isa", "lowering/legalize"},
	"scalesim":          {"config", "hlo", "hlo/verify", "runtime"},
	"serving":           {"config", "hlo", "hlo/eval", "lowering", "runtime"},
	"ici":               {"config", "core", "hlo", "hlo/eval", "hlo/eval/spmd", "isa", "lowering", "sim"},
	"runtime":           {"chip", "config", "core", "exe", "hlo", "hlo/eval", "hlo/stablehlo", "hlo/verify", "ici", "internal/inputs", "isa", "lowering", "ref", "sim", "traces"},
	"sweep":             {"", "runtime", "chip", "config", "core", "exe", "hlo", "hlo/eval", "hlo/stablehlo", "hlo/verify", "internal/host", "internal/inputs", "lowering", "ref", "scalesim", "traces"},
	"bench":             {"", "runtime", "chip", "config", "core", "examples", "hlo/eval", "hlo/stablehlo", "hlo/verify", "internal/host", "internal/inputs", "lowering", "sweep", "traces", "validate"},
	"validate":          {"config", "hlo", "hlo/verify", "runtime", "traces"},
	"grade":             {"asm", "chip", "config", "core", "exe", "hlo", "hlo/eval", "internal/inputs", "isa", "labs", "ref"},
	"":                  {"asm", "config", "exe", "internal/inputs", "internal/npy", "ref"},
	"internal/cli": {"", "runtime", "asm", "bench", "chip", "config", "core", "energy", "exe", "grade", "hlo", "hlo/analysis", "hlo/eval",
		"hlo/eval/check", "hlo/eval/spmd", "hlo/fusion", "hlo/partition", "hlo/stablehlo", "hlo/verify", "internal/host", "internal/inputs", "internal/npy", "isa", "labs", "lowering",
		"membench", "ref", "scalesim", "serving", "sweep", "traces", "validate"},
	"cmd/pulse": {"internal/cli"},
}

// A principle: no package of from may depend, directly or not, on a
// package of to.
type principle struct {
	why      string
	from, to []string
}

var principles = []principle{
	{"the evaluator judges the compiler and must not sit inside it",
		[]string{"hlo/eval", "hlo/eval/spmd", "hlo/eval/check", "hlo/eval/scalar"}, []string{"lowering", "lowering/legalize", "hlo/fusion", "ici", "runtime"}},
	{"the machine and its reports know nothing of HLO or the compiler",
		[]string{"chip", "traces", "core", "energy", "memory", "dma", "ref", "exe", "config", "membench"},
		[]string{"hlo", "lowering", "ici", "runtime", "hlo/eval"}},
	{"the IR imports nothing built on it",
		[]string{"hlo"}, []string{"hlo/verify", "hlo/analysis", "hlo/rewrite", "hlo/expand", "hlo/fusion", "hlo/eval", "lowering"}},
	{"op expansions define ops for every backend; the chip's choices are the compiler's",
		[]string{"hlo/expand"}, []string{"lowering", "lowering/legalize", "hlo/eval"}},
	{"the leaves import no package of Pulse",
		[]string{"isa", "sim", "systolic"}, []string{"*"}},
}

// moduleGraph reads the module's packages and their non-test imports of
// the module's packages, from the source tree at root.
func moduleGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		var deps []string
		for _, imp := range pkg.Imports {
			if imp == module {
				deps = append(deps, "")
			} else if p, ok := strings.CutPrefix(imp, module+"/"); ok {
				deps = append(deps, p)
			}
		}
		graph[rel] = deps
		return nil
	})
	require.NoError(t, err)
	return graph
}

// depViolations lists every import of graph that allowed or principles
// refuse, one line each naming the offending import.
func depViolations(graph, allowed map[string][]string, principles []principle) []string {
	var out []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	show := func(p string) string {
		if p == "" {
			return module
		}
		return p
	}
	for _, p := range pkgs {
		ok, listed := allowed[p]
		if !listed {
			out = append(out, fmt.Sprintf("%s: a package the graph does not list (add it to allowedImports in deps_test.go)", show(p)))
			continue
		}
		for _, imp := range graph[p] {
			if !slices.Contains(ok, imp) {
				out = append(out, fmt.Sprintf("%s imports %s, which allowedImports does not allow", show(p), show(imp)))
			}
		}
	}
	for p := range allowed {
		if _, ok := graph[p]; !ok {
			out = append(out, fmt.Sprintf("%s: listed in allowedImports but not in the module", show(p)))
		}
	}
	// Transitive principles: walk each from-package's dependencies.
	for _, pr := range principles {
		for _, from := range pr.from {
			path := map[string]string{from: ""} // package -> the one that imported it
			queue := []string{from}
			for len(queue) > 0 {
				p := queue[0]
				queue = queue[1:]
				for _, imp := range graph[p] {
					if _, seen := path[imp]; seen {
						continue
					}
					path[imp] = p
					queue = append(queue, imp)
					if slices.Contains(pr.to, imp) || slices.Contains(pr.to, "*") {
						chain := []string{show(imp)}
						for q := p; q != ""; q = path[q] {
							chain = append([]string{show(q)}, chain...)
							if q == from {
								break
							}
						}
						out = append(out, fmt.Sprintf("%s depends on %s (%s): %s", show(from), show(imp), strings.Join(chain, " -> "), pr.why))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestPackageGraph: every import between Pulse's packages is one the graph
// above allows, and no package breaks a principle.
func TestPackageGraph(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	graph := moduleGraph(t, wd)
	require.Contains(t, graph, "hlo/eval")
	if v := depViolations(graph, allowedImports, principles); len(v) > 0 {
		t.Fatalf("the package graph is broken:\n\t%s", strings.Join(v, "\n\t"))
	}
}

// TestPackageGraphCatches: the check fails, naming the offending import,
// when the evaluator imports the compiler or the chip's report reaches it
// through the interconnect.
func TestPackageGraphCatches(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	graph := moduleGraph(t, wd)
	for _, c := range []struct {
		from, imp string
		want      []string
	}{
		{"hlo/eval", "lowering", []string{
			"hlo/eval imports lowering, which allowedImports does not allow",
			"hlo/eval depends on lowering (hlo/eval -> lowering): the evaluator judges the compiler and must not sit inside it"}},
		{"chip", "ici", []string{
			"chip imports ici, which allowedImports does not allow",
			"chip depends on lowering (chip -> ici -> lowering): the machine and its reports know nothing of HLO or the compiler"}},
		{"isa", "exe", []string{"isa imports exe, which allowedImports does not allow",
			"isa depends on exe (isa -> exe): the leaves import no package of Pulse"}},
	} {
		g := map[string][]string{}
		for p, deps := range graph {
			g[p] = slices.Clone(deps)
		}
		g[c.from] = append(g[c.from], c.imp)
		v := depViolations(g, allowedImports, principles)
		for _, w := range c.want {
			require.Contains(t, v, w, "adding %s -> %s", c.from, c.imp)
		}
	}
}

// The package graph section of docs/architecture.md is generated from the
// module's imports, so that it matches go list for every package.
const (
	graphBegin = "<!-- package graph: generated from the imports by TestArchitectureGraph (go test . -run TestArchitectureGraph -update) -->"
	graphEnd   = "<!-- end of package graph -->"
)

// graphDoc draws graph: a Mermaid diagram of its transitive reduction (an
// edge only where no longer path exists) and, level by level, every
// package's direct imports.
func graphDoc(graph map[string][]string) string {
	show := func(p string) string {
		if p == "" {
			return "pulse"
		}
		return p
	}
	level := map[string]int{}
	var levelOf func(p string) int
	levelOf = func(p string) int {
		if l, ok := level[p]; ok {
			return l
		}
		level[p] = 0
		l := 0
		for _, imp := range graph[p] {
			l = max(l, levelOf(imp)+1)
		}
		level[p] = l
		return l
	}
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
		levelOf(p)
	}
	sort.Slice(pkgs, func(i, j int) bool {
		if level[pkgs[i]] != level[pkgs[j]] {
			return level[pkgs[i]] < level[pkgs[j]]
		}
		return pkgs[i] < pkgs[j]
	})
	reach := func(from, to string, skip string) bool { // a path from -> to not using the edge from -> skip first
		seen := map[string]bool{}
		var walk func(p string, first bool) bool
		walk = func(p string, first bool) bool {
			for _, imp := range graph[p] {
				if first && imp == skip {
					continue
				}
				if imp == to {
					return true
				}
				if !seen[imp] {
					seen[imp] = true
					if walk(imp, false) {
						return true
					}
				}
			}
			return false
		}
		return walk(from, true)
	}
	id := func(p string) string { return "p_" + strings.ReplaceAll(show(p), "/", "_") }
	var b strings.Builder
	b.WriteString(graphBegin + "\n\n")
	b.WriteString("Each package's direct imports of Pulse's packages, level by level (a\npackage imports only packages of lower levels):\n\n")
	b.WriteString("| level | package | imports |\n|---|---|---|\n")
	for _, p := range pkgs {
		deps := slices.Clone(graph[p])
		for i := range deps {
			deps[i] = show(deps[i])
		}
		sort.Strings(deps)
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", level[p], show(p), strings.Join(deps, ", "))
	}
	b.WriteString("\nThe same graph drawn without the edges a longer path implies:\n\n```mermaid\ngraph BT\n")
	for _, p := range pkgs {
		deps := slices.Clone(graph[p])
		sort.Strings(deps)
		for _, imp := range deps {
			if !reach(p, imp, imp) {
				fmt.Fprintf(&b, "  %s[%s] --> %s[%s]\n", id(p), show(p), id(imp), show(imp))
			}
		}
	}
	b.WriteString("```\n\n" + graphEnd)
	return b.String()
}

// TestArchitectureGraph: docs/architecture.md draws the graph the imports
// make.
func TestArchitectureGraph(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	want := graphDoc(moduleGraph(t, wd))
	path := filepath.Join("docs", "architecture.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(doc)
	a, b := strings.Index(text, graphBegin), strings.Index(text, graphEnd)
	require.True(t, a >= 0 && b > a, "docs/architecture.md has no generated package graph section")
	got := text[a : b+len(graphEnd)]
	if *updateDocs {
		require.NoError(t, os.WriteFile(path, []byte(text[:a]+want+text[b+len(graphEnd):]), 0o644))
		return
	}
	require.Equal(t, want, got, "docs/architecture.md's package graph is stale: go test . -run TestArchitectureGraph -update")
}
