// Package labs holds Pulse's teaching labs: one folder per lab with its
// handout (README.md), its grading spec (lab.yaml), the starter files a
// student gets and the reference solution. They are embedded so that
// `pulse lab` works from any directory; grade/ grades a student's folder
// against a lab. docs/labs.md is the instructors' guide.
package labs

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// content is every lab's handout, spec, starter and solution, and the
// files (modules, data) both hand out. Wrong
// solutions used by the tests live in testdata/, outside the binary.
//
//go:embed */lab.yaml */README.md */starter */solution */files
var content embed.FS

// Lab is one lab's grading spec (lab.yaml).
type Lab struct {
	Name    string   `yaml:"name"`
	Title   string   `yaml:"title"`
	Order   int      `yaml:"order"`
	Chip    string   `yaml:"chip"`
	Minutes int      `yaml:"minutes"` // lab time a course should plan
	Kernel  string   `yaml:"kernel"`  // the file graded, in the student's folder
	Goals   []string `yaml:"goals"`
	// Reference names the float64 reference (grade/reference.go) that
	// computes the outputs from the inputs.
	Reference string   `yaml:"reference"`
	Inputs    []Tensor `yaml:"inputs"`
	Outputs   []Tensor `yaml:"outputs"`
	// Cases are the fixed edge cases graded beside the random inputs.
	Cases []Case `yaml:"cases"`
	// Variants are chip configurations the kernel must be correct and fast
	// on (none: the chip as it is).
	Variants    []Variant   `yaml:"variants"`
	Score       Score       `yaml:"score"`
	Performance Performance `yaml:"performance"`
	// Robustness runs the kernel again with these config changes and
	// requires the same bits: a race shows as a different result.
	Robustness []Variant `yaml:"robustness"`
	// MaxCyclesFactor caps every run at this multiple of the reference
	// solution's cycles: a kernel past it scores zero on that test.
	MaxCyclesFactor float64 `yaml:"max_cycles_factor"`
	// Sections name the handout section the feedback points to, by cause
	// (missing-wait, off-by-one, dtype, race, overflow, limit, fault,
	// deadlock, unwritten, performance).
	Sections map[string]string `yaml:"sections"`
	// Hints add the lab's own advice to a failure's feedback, by cause
	// (for patterns the grader cannot tell apart on its own).
	Hints map[string]string `yaml:"hints"`
	// Grades says in a few words what the grader measures (pulse lab list).
	Grades string `yaml:"grades"`

	dir string // folder in the embedded content
}

// Tensor is a kernel tensor the grader fills or reads, in hbm.
type Tensor struct {
	Name  string    `yaml:"name"`
	DType string    `yaml:"dtype"`
	Shape []int     `yaml:"shape"`
	Range []float64 `yaml:"range"` // inputs: random values are uniform in [lo, hi)
	// Outputs: an element passes when |got - want| <= atol + rtol * scale,
	// scale the reference's magnitude for that element (grade/reference.go).
	RTol float64 `yaml:"rtol"`
	ATol float64 `yaml:"atol"`
}

// Elems is the tensor's element count.
func (t Tensor) Elems() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// ShapeString prints the tensor's type as the assembler does: f32[64,128].
func (t Tensor) ShapeString() string {
	s := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = fmt.Sprint(d)
	}
	return t.DType + "[" + strings.Join(s, ",") + "]"
}

// Case is a fixed input: per input tensor a fill (grade/inputs.go lists them).
type Case struct {
	Name string            `yaml:"name"`
	Fill map[string]string `yaml:"fill"`
	// Why says what the case catches, shown when it fails.
	Why string `yaml:"why"`
}

// Variant is a named set of config changes (--set key=value).
type Variant struct {
	Name string   `yaml:"name"`
	Set  []string `yaml:"set"`
}

// Score splits a lab's points between the rubric's parts.
type Score struct {
	// Runs: the kernel assembles with the lab's tensors, and finishes
	// every test without a fault, a deadlock or reaching the cycle limit.
	Runs        float64 `yaml:"runs"`
	Correctness float64 `yaml:"correctness"`
	Performance float64 `yaml:"performance"`
	Robustness  float64 `yaml:"robustness"`
}

// Performance sets the performance tiers: full marks at or under Full
// times the reference solution's cycles; then each tier's fraction of the
// marks at or under its ratio; nothing past the last.
type Performance struct {
	Full  float64 `yaml:"full"`
	Tiers []Tier  `yaml:"tiers"`
}

// Tier is a performance step.
type Tier struct {
	Ratio    float64 `yaml:"ratio"`
	Fraction float64 `yaml:"fraction"`
}

// All returns every lab in course order.
func All() ([]*Lab, error) {
	ents, err := fs.ReadDir(content, ".")
	if err != nil {
		return nil, err
	}
	var out []*Lab
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		l, err := load(e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}

// Get returns the lab called name (or numbered so: "3" is the third).
func Get(name string) (*Lab, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range all {
		if l.Name == name || fmt.Sprint(l.Order) == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	return nil, fmt.Errorf("no lab named %q (labs: %s)", name, strings.Join(names, ", "))
}

func load(dir string) (*Lab, error) {
	b, err := content.ReadFile(path.Join(dir, "lab.yaml"))
	if err != nil {
		return nil, err
	}
	var l Lab
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("labs/%s/lab.yaml: %v", dir, err)
	}
	l.dir = dir
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("labs/%s/lab.yaml: %v", dir, err)
	}
	return &l, nil
}

func (l *Lab) validate() error {
	switch {
	case l.Name == "" || l.Title == "" || l.Chip == "" || l.Kernel == "" || l.Reference == "":
		return fmt.Errorf("name, title, chip, kernel and reference are required")
	case len(l.Inputs) == 0 || len(l.Outputs) == 0:
		return fmt.Errorf("inputs and outputs are required")
	case l.Performance.Full < 1:
		return fmt.Errorf("performance.full %g: must be at least 1 (a multiple of the reference's cycles)", l.Performance.Full)
	case l.MaxCyclesFactor < 2:
		return fmt.Errorf("max_cycles_factor %g: must be at least 2", l.MaxCyclesFactor)
	}
	for _, t := range append(append([]Tensor{}, l.Inputs...), l.Outputs...) {
		if t.Name == "" || t.DType == "" || len(t.Shape) == 0 {
			return fmt.Errorf("tensor %q: name, dtype and shape are required", t.Name)
		}
	}
	return nil
}

// Handout returns the lab's README.md.
func (l *Lab) Handout() string {
	b, _ := content.ReadFile(path.Join(l.dir, "README.md"))
	return string(b)
}

// Solution reads the reference solution's kernel.
func (l *Lab) Solution() ([]byte, error) {
	return content.ReadFile(path.Join(l.dir, "solution", l.Kernel))
}

// Starter reads the starter kernel.
func (l *Lab) Starter() ([]byte, error) {
	return content.ReadFile(path.Join(l.dir, "starter", l.Kernel))
}

// Start copies the handout and the starter files into dir, which must not
// hold any of them already (a student's work is never overwritten).
func (l *Lab) Start(dir string) ([]string, error) {
	return l.copyInto(dir, "starter")
}

// WriteSolution copies the handout and the reference solution into dir.
func (l *Lab) WriteSolution(dir string) ([]string, error) {
	return l.copyInto(dir, "solution")
}

func (l *Lab) copyInto(dir, part string) ([]string, error) {
	type file struct {
		name string
		data []byte
	}
	readme, err := content.ReadFile(path.Join(l.dir, "README.md"))
	if err != nil {
		return nil, err
	}
	files := []file{{"README.md", readme}}
	for _, sub := range []string{"files", part} {
		root := path.Join(l.dir, sub)
		if _, err := fs.Stat(content, root); err != nil {
			continue
		}
		err = fs.WalkDir(content, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := content.ReadFile(p)
			files = append(files, file{strings.TrimPrefix(p, root+"/"), b})
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a folder", dir)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.name)); err == nil {
			return nil, fmt.Errorf("%s already exists: not overwriting it (pick an empty folder)", filepath.Join(dir, f.name))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var wrote []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return wrote, err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return wrote, err
		}
		wrote = append(wrote, p)
	}
	return wrote, nil
}

// File reads one of the files the lab hands out (its files/ folder).
func (l *Lab) File(name string) ([]byte, error) {
	return content.ReadFile(path.Join(l.dir, "files", name))
}
