package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/labs"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// folder writes kernel as the lab's kernel file in a fresh folder.
func folder(t *testing.T, l *labs.Lab, kernel []byte) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, l.Kernel), kernel, 0o644))
	return dir
}

func causes(r *Result) []string {
	var out []string
	for _, t := range r.Tests {
		if t.Cause != "" {
			out = append(out, t.Cause)
		}
	}
	return out
}

// starterCause is the feedback each lab's starter is meant to draw.
var starterCause = map[string]string{
	"vadd":      "unwritten",
	"overlap":   "performance",
	"gemm":      "unwritten",
	"dataflows": "fault",
	"memory":    "performance",
	"numerics":  "overflow",
	"hlo":       "wrong",
}

// wrongSolution is a plausible wrong solution, as edits of the lab's
// reference solution (../labs/testdata/LAB/wrong.yaml).
type wrongSolution struct {
	Name  string `yaml:"name"`
	Bug   string `yaml:"bug"`
	Cause string `yaml:"cause"` // the cause the feedback must name
	Edits []struct {
		Old string `yaml:"old"`
		New string `yaml:"new"`
	} `yaml:"edits"`
}

// wrongSolutions builds lab's wrong solutions from the reference solution.
func wrongSolutions(t *testing.T, lab string, sol []byte) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "labs", "testdata", lab, "wrong.yaml"))
	require.NoError(t, err)
	var ws []wrongSolution
	require.NoError(t, yaml.Unmarshal(b, &ws))
	out := map[string][]byte{}
	for _, w := range ws {
		src := string(sol)
		require.NotEmpty(t, w.Edits, w.Name)
		for _, e := range w.Edits {
			require.Contains(t, src, e.Old, "%s: the edit's old text is in the solution", w.Name)
			src = strings.ReplaceAll(src, e.Old, e.New)
		}
		require.NotEqual(t, string(sol), src, w.Name)
		out[w.Name+"\x00"+w.Cause] = []byte(src)
	}
	return out
}

// TestLabs holds every lab to its promises: the reference solution scores
// full marks; the starter scores less with the feedback the lab intends;
// every wrong solution scores partial marks and names its cause.
func TestLabs(t *testing.T) {
	all, err := labs.All()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(all), 7)
	for _, l := range all {
		t.Run(l.Name, func(t *testing.T) {
			t.Parallel()
			sol, err := l.Solution()
			require.NoError(t, err)
			r, err := Grade(l, folder(t, l, sol), Options{Seed: 11})
			require.NoError(t, err)
			for _, tt := range r.Tests {
				require.Truef(t, tt.Passed(), "reference solution: %s: %s", tt.Name, tt.Output)
			}
			require.Equal(t, r.MaxScore, r.Score)
			require.InDelta(t, 100, r.MaxScore, 0.01, "every lab is out of 100")

			st, err := l.Starter()
			require.NoError(t, err)
			r, err = Grade(l, folder(t, l, st), Options{Seed: 12})
			require.NoError(t, err)
			require.Less(t, r.Score, r.MaxScore, "starter")
			require.Contains(t, causes(r), starterCause[l.Name], "starter feedback")

			wrong := wrongSolutions(t, l.Name, sol)
			require.GreaterOrEqual(t, len(wrong), 3, "at least three wrong solutions")
			for key, src := range wrong {
				name, want, _ := strings.Cut(key, "\x00")
				r, err := Grade(l, folder(t, l, src), Options{Seed: 13})
				require.NoError(t, err)
				require.Greater(t, r.Score, 0.0, "%s: partial marks", name)
				require.Less(t, r.Score, r.MaxScore, "%s: partial marks", name)
				require.Contains(t, causes(r), want, "%s: feedback %v", name, r.Tests)
				for _, tt := range r.Tests {
					if tt.Cause == want && l.Sections[want] != "" {
						require.Contains(t, tt.Output, "See README.md, section", "%s: feedback points to the handout", name)
						require.Contains(t, l.Handout(), "**"+l.Sections[want]+".**", "%s: the handout has the section", name)
					}
				}
			}
		})
	}
}

// TestHandoutSections checks that every section a lab's feedback names
// exists in its handout, as a bold paragraph title.
func TestHandoutSections(t *testing.T) {
	all, err := labs.All()
	require.NoError(t, err)
	for _, l := range all {
		for cause, sec := range l.Sections {
			require.Containsf(t, l.Handout(), "**"+sec+".**", "lab %s: section %q (cause %s) is not in README.md", l.Name, sec, cause)
		}
	}
}

func gradeWrong(t *testing.T, lab, name string, seed uint64) *Result {
	t.Helper()
	l, err := labs.Get(lab)
	require.NoError(t, err)
	sol, err := l.Solution()
	require.NoError(t, err)
	for key, src := range wrongSolutions(t, lab, sol) {
		if n, _, _ := strings.Cut(key, "\x00"); n == name {
			r, err := Grade(l, folder(t, l, src), Options{Seed: seed})
			require.NoError(t, err)
			return r
		}
	}
	t.Fatalf("lab %s has no wrong solution %s", lab, name)
	return nil
}

// TestGradescopeSchema validates --format gradescope against the format
// Gradescope documents, and checks that the schema can fail.
func TestGradescopeSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "gradescope-results.schema.json"))
	require.NoError(t, err)
	r := gradeWrong(t, "overlap", "race", 3)
	var doc any
	require.NoError(t, json.Unmarshal(r.Gradescope(), &doc))
	require.NoError(t, sch.Validate(doc))
	m := doc.(map[string]any)
	require.InDelta(t, r.Score, m["score"], 1e-9)
	tests := m["tests"].([]any)
	require.Len(t, tests, len(r.Tests))
	var passed, failed int
	for _, x := range tests {
		switch x.(map[string]any)["status"] {
		case "passed":
			passed++
		case "failed":
			failed++
		}
	}
	require.Positive(t, passed)
	require.Positive(t, failed)

	// The schema rejects what Gradescope would: a status it does not know,
	// a field it does not document.
	bad := map[string]any{"score": 1.0, "tests": []any{map[string]any{"name": "x", "score": 1.0, "status": "ok"}}}
	require.Error(t, sch.Validate(bad))
	bad = map[string]any{"score": 1.0, "points": 3.0}
	require.Error(t, sch.Validate(bad))
}

// TestJSONFormat checks the fields --format json promises.
func TestJSONFormat(t *testing.T) {
	r := gradeWrong(t, "vadd", "off_by_one", 4)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(r.JSON(), &doc))
	for _, k := range []string{"score", "max_score", "tests", "seed", "lab", "chip"} {
		require.Contains(t, doc, k)
	}
	for _, x := range doc["tests"].([]any) {
		for _, k := range []string{"name", "score", "max_score", "output"} {
			require.Contains(t, x.(map[string]any), k)
		}
	}
	var sum float64
	for _, tt := range r.Tests {
		sum += tt.Score
	}
	require.InDelta(t, sum, r.Score, 0.01)
}

// TestSeeds: the same seed grades the same, a fresh seed (0) picks a new one.
func TestSeeds(t *testing.T) {
	a := gradeWrong(t, "vadd", "wrong_dtype", 99)
	b := gradeWrong(t, "vadd", "wrong_dtype", 99)
	a.Seconds, b.Seconds, a.Dir, b.Dir = 0, 0, "", ""
	require.Equal(t, string(a.JSON()), string(b.JSON()))
	c := gradeWrong(t, "vadd", "wrong_dtype", 0)
	require.NotZero(t, c.Seed)
	require.NotEqual(t, c.Tests[2].Output, a.Tests[2].Output, "fresh inputs give other values")
}

// TestLimits: a kernel that never ends, deadlocks, faults or does not
// assemble scores zero on its tests with the reason, and the grader returns.
func TestLimits(t *testing.T) {
	l, err := labs.Get("vadd")
	require.NoError(t, err)
	head := ".tensor x hbm 0x000000 f32[4096]\n.tensor y hbm 0x010000 f32[4096]\n.tensor z hbm 0x020000 f32[4096]\n"
	for _, tc := range []struct{ name, body, cause, text string }{
		{"endless", "top:\n        jmp top\n", "limit", "endless loop"},
		{"spin", "        li r1, 0\ntop:\n        addi r1, r1, 1\n        jmp top\n", "limit", "limit of"},
		{"deadlock", "        wait s3, 1\n        halt\n", "deadlock", "deadlock"},
		{"fault", "        dma sram[0]:f32[4096], hbm[0x7fffffff00]:f32[4096]\n        halt\n", "fault", "fault"},
		{"syntax", "        vadd sram[0]\n", "load", "does not assemble"},
		{"shape", ".tensor w hbm 0 f32[4]\n        halt\n", "load", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body
			if tc.name == "shape" {
				src = ".tensor x hbm 0x000000 f32[4095]\n.tensor y hbm 0x010000 f32[4096]\n.tensor z hbm 0x020000 bf16[4096]\n        halt\n"
			}
			r, err := Grade(l, folder(t, l, []byte(src)), Options{Seed: 1})
			require.NoError(t, err)
			require.Less(t, r.Score, 15.0)
			require.Contains(t, causes(r), tc.cause)
			var out strings.Builder
			require.NoError(t, r.WriteText(&out))
			require.Contains(t, out.String(), tc.text)
			if tc.name == "shape" {
				require.Contains(t, out.String(), "tensor x is f32[4095]; the lab's is f32[4096]")
				require.Contains(t, out.String(), "tensor z is bf16[4096]; the lab's is f32[4096]")
			}
		})
	}
}

// TestMissingKernel: an empty folder is graded, not an error.
func TestMissingKernel(t *testing.T) {
	l, err := labs.Get("gemm")
	require.NoError(t, err)
	r, err := Grade(l, t.TempDir(), Options{Seed: 1})
	require.NoError(t, err)
	require.Zero(t, r.Score)
	require.Contains(t, r.Tests[0].Output, "cannot read the kernel")
}

// TestSubmissionConfined: a submission reaches nothing outside its folder
// (issue 44, 9): .include "/etc/passwd" had put that file's words into
// results.json, "/dev/stdin" hung the grader and "/dev/zero" crashed it.
func TestSubmissionConfined(t *testing.T) {
	l, err := labs.Get("vadd")
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "secret.s")
	require.NoError(t, os.WriteFile(outside, []byte("TOPSECRETWORD\n"), 0o644))
	head := ".tensor x hbm 0x000000 f32[4096]\n.tensor y hbm 0x010000 f32[4096]\n.tensor z hbm 0x020000 f32[4096]\n"
	for _, tc := range []struct{ name, line, text string }{
		{"absolute", `.include "/etc/passwd"`, "an absolute path leaves the folder"},
		{"stdin", `.include "/dev/stdin"`, "an absolute path leaves the folder"},
		{"zero", `.include "/dev/zero"`, "an absolute path leaves the folder"},
		{"parent", `.include "PARENT"`, "the path leaves the folder"},
		{"symlink out", `.include "link.s"`, "through a symbolic link"},
		{"npy out", `.tensor w hbm 0x30000 f32[4] = npy("/etc/passwd")`, "an absolute path leaves the folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rel, err := filepath.Rel(dir, outside)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, l.Kernel), []byte(head+strings.Replace(tc.line, "PARENT", rel, 1)+"\n        halt\n"), 0o644))
			require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.s")))
			done := make(chan *Result, 1)
			go func() {
				r, err := Grade(l, dir, Options{Seed: 1})
				require.NoError(t, err)
				done <- r
			}()
			var r *Result
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the grader hangs")
			}
			var out strings.Builder
			require.NoError(t, r.WriteText(&out))
			require.Contains(t, out.String(), tc.text)
			require.NotContains(t, out.String(), "TOPSECRETWORD")
			require.NotContains(t, out.String(), "root:")
			require.Contains(t, causes(r), "load")
		})
	}
	// The kernel itself, a link to a file outside, is not read either.
	dir := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, l.Kernel)))
	r, err := Grade(l, dir, Options{Seed: 1})
	require.NoError(t, err)
	require.Contains(t, r.Tests[0].Output, "through a symbolic link")
}
