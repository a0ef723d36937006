// Package sweep runs architecture what-if studies: a set of workloads on
// every point of a grid of chip configurations, in parallel, resumably,
// sharded across machines, with results as JSON lines, CSV and charts.
//
// A Spec names the workloads, the base chip and the axes; Expand turns it
// into Points (checked before anything runs); Run simulates them.
package sweep

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pulse-sim/pulse/internal/inputs"
)

// Spec is a sweep: what `pulse sweep` reads from its YAML file and flags
// (docs/sweeps.md).
type Spec struct {
	// Workloads: HLO modules (.hlo), assembly kernels (.s), executables
	// (.pulse) and SCALE-Sim topology files (.csv, every layer a workload).
	Workloads []string   `yaml:"workloads" json:"workloads"`
	Chip      string     `yaml:"chip" json:"chip"`         // preset name or config file
	Set       []string   `yaml:"set" json:"set,omitempty"` // key=value applied to every point
	Axes      Axes       `yaml:"axes" json:"axes"`         // in order: the last varies fastest
	Zip       [][]string `yaml:"zip" json:"zip,omitempty"` // keys that move together
	// Constraints drop the points where any is false: expressions over
	// config keys, e.g. "mxu.rows * mxu.cols <= 65536".
	Constraints []string `yaml:"constraints" json:"constraints,omitempty"`
	// Metrics to put in results.csv (default DefaultMetrics); every
	// metric is in results.jsonl.
	Metrics   []string `yaml:"metrics" json:"metrics,omitempty"`
	Jobs      int      `yaml:"jobs" json:"-"`                          // workers (0: the host's cores)
	Values    bool     `yaml:"values" json:"values"`                   // value runs instead of timing-only
	Kernels   bool     `yaml:"kernels" json:"kernels"`                 // keep the per-kernel table in results.jsonl
	MaxCycles int64    `yaml:"max_cycles" json:"max_cycles,omitempty"` // per point (0: the default limit)
}

// Axis is one swept key and its values, as --set takes them.
type Axis struct {
	Key    string   `yaml:"key" json:"key"`
	Values []string `yaml:"values" json:"values"`
}

// UnmarshalYAML reads axes written as a mapping in order
// (`mxu.rows: [32, 64]` or `hbm.bandwidth_gbps: "100:1000:100"`).
func (a *Axes) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: axes is a mapping from config key to values", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var vals []string
		switch v.Kind {
		case yaml.ScalarNode:
			var err error
			if vals, err = ParseValues(v.Value); err != nil {
				return fmt.Errorf("line %d: axis %s: %v", v.Line, k.Value, err)
			}
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					return fmt.Errorf("line %d: axis %s: values are scalars", e.Line, k.Value)
				}
				vals = append(vals, e.Value)
			}
		default:
			return fmt.Errorf("line %d: axis %s: want a list or a range", v.Line, k.Value)
		}
		*a = append(*a, Axis{Key: k.Value, Values: vals})
	}
	return nil
}

// Axes is the ordered list of a spec's axes.
type Axes []Axis

// specFile is Spec as YAML holds it (axes as an ordered mapping).
type specFile struct {
	Workloads   []string   `yaml:"workloads"`
	Chip        string     `yaml:"chip"`
	Set         yaml.Node  `yaml:"set"`
	Axes        Axes       `yaml:"axes"`
	Zip         [][]string `yaml:"zip"`
	Constraints []string   `yaml:"constraints"`
	Metrics     []string   `yaml:"metrics"`
	Jobs        int        `yaml:"jobs"`
	Values      bool       `yaml:"values"`
	Kernels     bool       `yaml:"kernels"`
	MaxCycles   int64      `yaml:"max_cycles"`
}

// LoadSpec reads a spec file. Unknown keys are errors; `set` may be a
// list of key=value or a mapping.
func LoadSpec(path string) (*Spec, error) {
	b, err := inputs.ReadFile(path, inputs.Configs)
	if err != nil {
		return nil, err
	}
	return ParseSpec(path, b)
}

// ParseSpec decodes a spec from YAML text.
func ParseSpec(file string, b []byte) (*Spec, error) {
	var f specFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	s := &Spec{Workloads: f.Workloads, Chip: f.Chip, Axes: f.Axes, Zip: f.Zip, Constraints: f.Constraints,
		Metrics: f.Metrics, Jobs: f.Jobs, Values: f.Values, Kernels: f.Kernels, MaxCycles: f.MaxCycles}
	switch f.Set.Kind {
	case 0:
	case yaml.SequenceNode:
		for _, e := range f.Set.Content {
			s.Set = append(s.Set, e.Value)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(f.Set.Content); i += 2 {
			s.Set = append(s.Set, f.Set.Content[i].Value+"="+f.Set.Content[i+1].Value)
		}
	default:
		return nil, fmt.Errorf("%s:%d: set is a list of key=value or a mapping", file, f.Set.Line)
	}
	if s.MaxCycles < 0 {
		// core.Options reads a negative limit as none: a spec must not
		// switch the runaway guard off (issue 44, 6).
		return nil, fmt.Errorf("%s: max_cycles: %d: the limit must be a positive number of cycles (0: the default)", file, s.MaxCycles)
	}
	if s.Jobs < 0 {
		return nil, fmt.Errorf("%s: jobs: %d is negative", file, s.Jobs)
	}
	return s, nil
}
