// Package bench runs performance-regression benchmarks: suites of
// workloads on chips, whose simulated metrics (deterministic: compared
// exactly) and host metrics (wall time, allocations: compared
// statistically, as benchstat does) are recorded, compared, exported in
// Go's benchmark format and charted over revisions (docs/bench.md).
package bench

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/examples"
	"github.com/pulse-sim/pulse/internal/inputs"
	"go.yaml.in/yaml/v3"
)

//go:embed suites/*.yaml workloads/*.hlo workloads/dots/*.hlo workloads/silicon/*.hlo
var builtin embed.FS

// Suite is a list of benchmark entries (bench/suites/*.yaml).
type Suite struct {
	Name    string       `yaml:"name"`
	Include []string     `yaml:"include"` // built-in suites whose entries come first
	Entries []SuiteEntry `yaml:"entries"`

	dir     string // the suite file's directory ("" for a built-in)
	builtin bool
}

// SuiteEntry names a workload, the chips it runs on, overrides and mode.
type SuiteEntry struct {
	Name     string   `yaml:"name"`     // default: the workload's file name (gemm.hlo)
	Workload string   `yaml:"workload"` // relative to the suite file, the working directory, or built in
	Chips    []string `yaml:"chips"`
	Chip     string   `yaml:"chip"` // one chip (or chips)
	Set      []string `yaml:"set"`
	Mode     string   `yaml:"mode"`     // timing-only (default) or values
	Count    int      `yaml:"count"`    // repetitions (default: the run's --count)
	Optional bool     `yaml:"optional"` // a missing workload is recorded as skipped
	// RandomInputs gives a timing-only run random parameter values (seed
	// 1) for the control flow that depends on them (token ids, dynamic
	// offsets): its cycles are exact for those inputs.
	RandomInputs bool `yaml:"random_inputs"`
	// MeasuredUs is the workload's time measured on the silicon its chip
	// stands for, in microseconds, and Measured where that comes from
	// (a table and line of ../shared/reference/silicon): the entry's
	// error against it counts to the suite's MAPE (the silicon suite).
	MeasuredUs float64 `yaml:"measured_us"`
	Measured   string  `yaml:"measured"`
	// HostUs is the host overhead measured_us holds (validate's
	// Measurement.HostUs): the simulated time plus it is what is compared.
	HostUs float64 `yaml:"host_us"`
}

// Entry is one workload on one chip: a row of results.
type Entry struct {
	Name     string // workload base name / chip [/ sets] [/ mode]
	Workload string // the path as written
	Chip     string
	Sets     []string
	Mode     string
	Count    int
	Optional bool
	// RandomInputs, MeasuredUs, Measured, HostUs: see SuiteEntry.
	RandomInputs bool
	MeasuredUs   float64
	Measured     string
	HostUs       float64

	src  []byte // the workload's text ("" when optional and missing)
	file string // where it was read from
}

// BuiltinSuites lists the suites shipped in the binary.
func BuiltinSuites() []string {
	ents, _ := builtin.ReadDir("suites")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return out
}

// LoadSuite reads a built-in suite by name or a suite file.
func LoadSuite(nameOrPath string) (*Suite, error) {
	if b, err := builtin.ReadFile("suites/" + nameOrPath + ".yaml"); err == nil && !strings.ContainsAny(nameOrPath, "/.") {
		s, err := ParseSuite(nameOrPath+".yaml", b)
		if err != nil {
			return nil, err
		}
		s.builtin = true
		return s, nil
	}
	b, err := inputs.ReadFile(nameOrPath, inputs.Configs)
	if err != nil {
		if !strings.ContainsAny(nameOrPath, "/.") {
			return nil, fmt.Errorf("unknown suite %q (built in: %s; or give a .yaml file)", nameOrPath, strings.Join(BuiltinSuites(), ", "))
		}
		return nil, fmt.Errorf("suite: %v", err)
	}
	s, err := ParseSuite(nameOrPath, b)
	if err != nil {
		return nil, err
	}
	s.dir = filepath.Dir(nameOrPath)
	return s, nil
}

// ParseSuite decodes a suite; unknown keys are errors naming the line.
func ParseSuite(file string, b []byte) (*Suite, error) {
	var s Suite
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if s.Name == "" {
		return nil, fmt.Errorf("%s: name: a suite needs a name", file)
	}
	return &s, nil
}

// Expand lists the suite's entries (its includes' first), reading every
// workload and checking every chip and key, so that a bad suite fails
// before anything runs. A set "key=value" applies to every entry; one
// written "CHIP:key=value" only to the entries on that chip (a what-if of
// one preset's HBM must not slow or speed the others' entries too). Each
// entry's Sets record what it ran with.
func (s *Suite) Expand(sets []string, count int) ([]*Entry, error) {
	scoped := map[string][]string{}
	var global []string
	for _, set := range sets {
		key, _, _ := strings.Cut(set, "=")
		if chip, _, ok := strings.Cut(key, ":"); ok && chip != "" {
			scoped[chip] = append(scoped[chip], strings.TrimPrefix(set, chip+":"))
			continue
		}
		global = append(global, set)
	}
	out, err := s.expand(global, scoped, count)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, e := range out {
		used[e.Chip] = true
	}
	for _, set := range sets {
		key, _, _ := strings.Cut(set, "=")
		if chip, _, ok := strings.Cut(key, ":"); ok && chip != "" && !used[chip] {
			return nil, fmt.Errorf("--set %s: no entry of suite %s runs on chip %s", set, s.Name, chip)
		}
	}
	return out, nil
}

func (s *Suite) expand(sets []string, scoped map[string][]string, count int) ([]*Entry, error) {
	var out []*Entry
	seen := map[string]bool{}
	for _, inc := range s.Include {
		sub, err := LoadSuite(inc)
		if err != nil {
			return nil, fmt.Errorf("suite %s: include %s: %v", s.Name, inc, err)
		}
		es, err := sub.expand(sets, scoped, count)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			seen[e.Name] = true
		}
		out = append(out, es...)
	}
	for i, se := range s.Entries {
		where := fmt.Sprintf("suite %s: entry %d (%s)", s.Name, i+1, se.Workload)
		if se.Workload == "" {
			return nil, fmt.Errorf("suite %s: entry %d: workload: missing", s.Name, i+1)
		}
		chips := se.Chips
		if se.Chip != "" {
			chips = append(chips, se.Chip)
		}
		if len(chips) == 0 {
			return nil, fmt.Errorf("%s: chips: give at least one chip", where)
		}
		mode := se.Mode
		switch mode {
		case "":
			mode = "timing-only"
		case "timing-only", "values":
		default:
			return nil, fmt.Errorf("%s: mode: %q is not timing-only or values", where, mode)
		}
		if se.Count < 0 {
			return nil, fmt.Errorf("%s: count: %d is negative", where, se.Count)
		}
		if !finite(se.MeasuredUs) || se.MeasuredUs < 0 || se.MeasuredUs > 0 && len(chips) != 1 {
			return nil, fmt.Errorf("%s: measured_us: a positive time of one chip's run", where)
		}
		if !finite(se.HostUs) || se.HostUs < 0 || se.HostUs > 0 && se.MeasuredUs == 0 {
			return nil, fmt.Errorf("%s: host_us: a positive overhead of a measured_us", where)
		}
		src, file, err := s.read(se.Workload)
		if err != nil && !se.Optional {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		for _, chip := range chips {
			all := append(append(append([]string(nil), se.Set...), sets...), scoped[chip]...)
			if _, err := config.Load(chip, all); err != nil {
				return nil, fmt.Errorf("%s: chip %s: %v", where, chip, err)
			}
			e := &Entry{Workload: se.Workload, Chip: chip, Sets: all, Mode: mode, Count: se.Count, Optional: se.Optional, RandomInputs: se.RandomInputs,
				MeasuredUs: se.MeasuredUs, Measured: se.Measured, HostUs: se.HostUs, src: src, file: file}
			if e.Count == 0 {
				e.Count = max(count, 1)
			}
			e.Name = se.Name
			if e.Name == "" {
				e.Name = path.Base(filepath.ToSlash(se.Workload))
			}
			e.Name += "/" + chip
			if len(se.Set) > 0 {
				e.Name += "/" + strings.Join(se.Set, ",")
			}
			if mode != "timing-only" {
				e.Name += "/" + mode
			}
			if seen[e.Name] {
				return nil, fmt.Errorf("%s: entry %s is listed twice", where, e.Name)
			}
			seen[e.Name] = true
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("suite %s has no entries", s.Name)
	}
	return out, nil
}

// read finds a workload: beside the suite file, in the working directory,
// then among the built-in workloads and example kernels.
func (s *Suite) read(p string) ([]byte, string, error) {
	var tried []string
	if s.dir != "" && !filepath.IsAbs(p) {
		f := filepath.Join(s.dir, p)
		if b, err := inputs.ReadFile(f, inputs.Sources); err == nil {
			return b, f, nil
		}
		tried = append(tried, f)
	}
	if b, err := inputs.ReadFile(p, inputs.Sources); err == nil {
		return b, p, nil
	}
	tried = append(tried, p)
	slash := filepath.ToSlash(p)
	for _, fsys := range []struct {
		prefix string
		fs     fs.FS
	}{{"bench/", builtin}, {"examples/", examples.Kernels}} {
		if rest, ok := strings.CutPrefix(slash, fsys.prefix); ok {
			if b, err := fs.ReadFile(fsys.fs, rest); err == nil {
				return b, p, nil
			}
		}
	}
	return nil, "", fmt.Errorf("workload not found (tried %s, and the built-in workloads)", strings.Join(tried, ", "))
}

// finite: v is a number a time can be (YAML's .nan and .inf are not).
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
