package grade

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteText prints the result for a terminal: each test with its points
// and its feedback, then the total.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "lab %s on %s: %s (seed %d)\n\n", r.Lab, r.Chip, r.Dir, r.Seed)
	for _, t := range r.Tests {
		mark := "PASS"
		switch {
		case t.Score == 0:
			mark = "FAIL"
		case !t.Passed():
			mark = "PART"
		}
		fmt.Fprintf(&b, "%s  %6.2f / %-6.2f %s\n", mark, t.Score, t.MaxScore, t.Name)
		for _, line := range strings.Split(strings.TrimRight(t.Output, "\n"), "\n") {
			fmt.Fprintf(&b, "      %s\n", line)
		}
	}
	fmt.Fprintf(&b, "\nscore %.2f / %.2f\n", r.Score, r.MaxScore)
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON is the result as `--format json` prints it: score, max_score and
// the tests (name, score, max_score, output), with the run's details.
func (r *Result) JSON() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

// gradescope is Gradescope's autograder results.json
// (gradescope-autograders.readthedocs.io, "Autograder Specifications").
type gradescope struct {
	Score         float64          `json:"score"`
	ExecutionTime int              `json:"execution_time"`
	Output        string           `json:"output"`
	OutputFormat  string           `json:"output_format"`
	Visibility    string           `json:"visibility"`
	Tests         []gradescopeTest `json:"tests"`
}

type gradescopeTest struct {
	Score      float64  `json:"score"`
	MaxScore   float64  `json:"max_score"`
	Status     string   `json:"status"`
	Name       string   `json:"name"`
	Number     string   `json:"number"`
	Output     string   `json:"output"`
	Tags       []string `json:"tags"`
	Visibility string   `json:"visibility"`
}

// Gradescope is the result as Gradescope's results.json.
func (r *Result) Gradescope() []byte {
	g := gradescope{
		Score:         r.Score,
		ExecutionTime: int(math.Ceil(r.Seconds)),
		Output:        fmt.Sprintf("Pulse lab %s on %s, seed %d (rerun with: pulse lab check %s DIR --seed %d)", r.Lab, r.Chip, r.Seed, r.Lab, r.Seed),
		OutputFormat:  "text",
		Visibility:    "visible",
		Tests:         []gradescopeTest{},
	}
	for i, t := range r.Tests {
		status := "passed"
		if !t.Passed() {
			status = "failed"
		}
		tags := []string{}
		if t.Cause != "" {
			tags = append(tags, t.Cause)
		}
		g.Tests = append(g.Tests, gradescopeTest{
			Score: t.Score, MaxScore: t.MaxScore, Status: status, Name: t.Name,
			Number: fmt.Sprint(i + 1), Output: t.Output, Tags: tags, Visibility: "visible",
		})
	}
	b, _ := json.MarshalIndent(g, "", "  ")
	return append(b, '\n')
}
