package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/lowering"
)

// Point is one workload on one chip configuration.
type Point struct {
	// Index is the point's place in the whole sweep (workloads outermost,
	// then the axes with the last varying fastest), before sharding.
	Index    int
	Workload *Workload
	Values   []string // one per axis, in the spec's order (shared by the workloads)
	// ID identifies the point across runs: its workload's content, the
	// chip's full configuration and the mode. --resume skips points whose
	// ID is already in results.jsonl.
	ID string
	// Target identifies what the compiler sees of the point's chip
	// (lowering.Target): points of one workload and one target share an
	// executable.
	Target string
}

// Plan is an expanded sweep.
type Plan struct {
	Spec      *Spec
	Workloads []*Workload
	Points    []*Point // every point the constraints keep, in order
	Dropped   int      // points the constraints dropped
	// Hash identifies the sweep's points (not the shard): shards merge only
	// when their hashes agree.
	Hash string

	template *config.Template // the base chip's source, parsed once
}

// Chip builds a point's chip: the base chip, the spec's sets, then the
// point's axis values. Expand built and checked every one already; points
// do not keep them, so a plan's memory is a few dozen bytes a point.
func (pl *Plan) Chip(p *Point) (*config.Chip, error) {
	return pl.template.Chip(pl.sets(p.Values))
}

func (pl *Plan) sets(vals []string) []string {
	sets := append([]string(nil), pl.Spec.Set...)
	for i, a := range pl.Spec.Axes {
		sets = append(sets, a.Key+"="+vals[i])
	}
	return sets
}

// maxPoints bounds a sweep's size, so that a product of long axes is an
// error rather than a machine out of memory.
const maxPoints = 10_000_000

// Expand checks a spec and lists its points. Everything that can be wrong
// with a spec is found here, before any point runs: unknown keys, values
// out of range, empty axes, zip groups of different lengths, constraints
// that do not compile or that drop every point.
func Expand(s *Spec) (*Plan, error) {
	if s.Chip == "" {
		return nil, fmt.Errorf("no chip: give --chip NAME|FILE or chip: in the spec")
	}
	base, err := config.Load(s.Chip, s.Set)
	if err != nil {
		return nil, err
	}
	ws, err := LoadWorkloads(s.Workloads)
	if err != nil {
		return nil, err
	}
	dims, err := dimensions(s)
	if err != nil {
		return nil, err
	}
	var progs []*vm.Program
	env := chipEnv(base)
	for _, c := range s.Constraints {
		p, err := expr.Compile(c, expr.Env(env), expr.AsBool())
		if err != nil {
			return nil, fmt.Errorf("constraint %q: %v", c, firstLine(err.Error()))
		}
		progs = append(progs, p)
	}
	tpl, err := config.NewTemplate(s.Chip, chipSource(s.Chip))
	if err != nil {
		return nil, err
	}
	plan := &Plan{Spec: s, Workloads: ws, template: tpl}
	total := 1
	for _, d := range dims {
		total *= len(d.values)
		if total > maxPoints {
			return nil, fmt.Errorf("the axes make more than %d points", maxPoints)
		}
	}
	// Chips are built once per combination to check them and hash them,
	// a batch at a time over the host's cores (a chip takes about a
	// millisecond, the serial start of a big sweep otherwise), then taken
	// in order, so the first error and the points are the same whatever
	// the cores.
	var combos []combo
	seen := map[string][]string{}
	idx := make([]int, len(dims))
	batch := make([]combo, 0, expandBatch)
	for n := 0; n < total; n++ {
		vals := make([]string, len(s.Axes))
		for di, d := range dims {
			for j, ax := range d.axes {
				vals[ax] = d.values[idx[di]][j]
			}
		}
		batch = append(batch, combo{values: vals})
		for di := len(dims) - 1; di >= 0; di-- {
			idx[di]++
			if idx[di] < len(dims[di].values) {
				break
			}
			idx[di] = 0
		}
		if len(batch) < expandBatch && n+1 < total {
			continue
		}
		plan.checkCombos(batch, progs)
		for _, c := range batch {
			switch {
			case c.err != nil:
				return nil, c.err
			case !c.keep:
				plan.Dropped++
				continue
			}
			// A point's id is its chip's hash, so two values that name one
			// chip (1000 and 1000.0, 1e3) would share a row of results: one
			// point lost, another labelled with the wrong value.
			if prev, dup := seen[c.hash]; dup {
				return nil, fmt.Errorf("points %s and %s give the same chip configuration; give each value once", describe(s, prev), describe(s, c.values))
			}
			seen[c.hash] = c.values
			combos = append(combos, combo{values: c.values, hash: c.hash, target: c.target})
		}
		batch = batch[:0]
	}
	if len(combos) == 0 {
		return nil, fmt.Errorf("the constraints drop every one of the %d chip configurations", total)
	}
	mode := "timing-only"
	if s.Values {
		mode = "values"
	}
	h := sha256.New()
	for _, w := range ws {
		for _, c := range combos {
			p := &Point{Index: len(plan.Points), Workload: w, Values: c.values, Target: c.target}
			p.ID = contentHash([]byte(w.Name), []byte(w.Hash), []byte(c.hash), []byte(mode), []byte(fmt.Sprint(s.MaxCycles)))
			plan.Points = append(plan.Points, p)
			fmt.Fprintln(h, p.ID)
		}
	}
	for _, a := range s.Axes {
		fmt.Fprintln(h, a.Key)
	}
	plan.Hash = hex.EncodeToString(h.Sum(nil))[:16]
	return plan, nil
}

// combo is one combination of axis values and what building its chip
// found.
type combo struct {
	values []string
	hash   string // of the chip's full configuration
	target string // of what the compiler sees of it (lowering.Target)
	keep   bool   // the constraints keep it
	err    error
}

// expandBatch is how many combinations Expand checks at once: enough to
// keep every core busy; the chips are dropped as soon as they are hashed.
const expandBatch = 4096

// checkCombos builds each combination's chip, hashes it and runs the
// constraints on it, spread over the host's cores.
func (pl *Plan) checkCombos(batch []combo, progs []*vm.Program) {
	s := pl.Spec
	parallel(len(batch), func(i int) {
		c := &batch[i]
		chip, err := pl.template.Chip(pl.sets(c.values))
		if err != nil {
			c.err = fmt.Errorf("point %s: %v", describe(s, c.values), err)
			return
		}
		c.keep = true
		if len(progs) > 0 {
			env := chipEnv(chip)
			for _, p := range progs {
				out, err := expr.Run(p, env)
				if err != nil {
					c.err = fmt.Errorf("constraint %q at %s: %v", p.Source().String(), describe(s, c.values), err)
					return
				}
				if b, _ := out.(bool); !b {
					c.keep = false
					return
				}
			}
		}
		c.hash, c.target = chipHash(chip), chipHash(lowering.Target(chip))
	})
}

// chipHash identifies a chip's full configuration by its JSON, which
// costs a tenth of its YAML's time and allocation (a sweep hashes every
// point's chip and its compile target). A chip JSON cannot write (a NaN
// or infinite value) is hashed by its YAML.
func chipHash(c *config.Chip) string {
	b, err := json.Marshal(c)
	if err != nil {
		return contentHash([]byte("yaml"), c.YAML())
	}
	return contentHash(b)
}

// dimension is one independent direction of the grid: an axis, or a zip
// group of axes that move together.
type dimension struct {
	axes   []int      // indices into Spec.Axes
	values [][]string // values[i][j]: the i-th step's value of axes[j]
}

func dimensions(s *Spec) ([]dimension, error) {
	pos := map[string]int{}
	for i, a := range s.Axes {
		if _, ok := config.LookupKey(a.Key); !ok {
			return nil, fmt.Errorf("axis %s: unknown config key (pulse chip keys lists them)", a.Key)
		}
		if _, dup := pos[a.Key]; dup {
			return nil, fmt.Errorf("axis %s is given twice", a.Key)
		}
		if len(a.Values) == 0 {
			return nil, fmt.Errorf("axis %s: no values", a.Key)
		}
		pos[a.Key] = i
	}
	group := map[int]int{} // axis -> zip group
	for gi, g := range s.Zip {
		if len(g) < 2 {
			return nil, fmt.Errorf("zip %v: a zip group names at least two axes", g)
		}
		for _, k := range g {
			i, ok := pos[k]
			if !ok {
				return nil, fmt.Errorf("zip %v: %s is not an axis", g, k)
			}
			if prev, ok := group[i]; ok {
				return nil, fmt.Errorf("zip: %s is in two groups (%v and %v)", k, s.Zip[prev], g)
			}
			if n, m := len(s.Axes[i].Values), len(s.Axes[pos[g[0]]].Values); n != m {
				return nil, fmt.Errorf("zip %v: %s has %d values, %s has %d; zipped axes move together", g, g[0], m, k, n)
			}
			group[i] = gi
		}
	}
	var dims []dimension
	done := map[int]bool{}
	for i, a := range s.Axes {
		if done[i] {
			continue
		}
		members := []int{i}
		if gi, ok := group[i]; ok {
			members = nil
			for _, k := range s.Zip[gi] {
				members = append(members, pos[k])
			}
		}
		d := dimension{axes: members}
		for step := range a.Values {
			var row []string
			for _, m := range members {
				row = append(row, s.Axes[m].Values[step])
				done[m] = true
			}
			d.values = append(d.values, row)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// chipEnv is a chip's keys as nested maps, for constraint expressions
// (mxu.rows is env["mxu"]["rows"]).
func chipEnv(c *config.Chip) map[string]any {
	env := map[string]any{}
	for _, k := range config.Keys() {
		v, err := c.Get(k.Name)
		if err != nil {
			continue
		}
		if i, ok := v.(int64); ok {
			v = int(i)
		}
		parts := strings.Split(k.Name, ".")
		m := env
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	return env
}

// chipSource is the base chip's YAML text: a preset's or a file's.
func chipSource(nameOrPath string) []byte {
	if b, ok := config.PresetYAML(nameOrPath); ok {
		return b
	}
	b, _ := inputs.ReadFile(nameOrPath, inputs.Configs) // Load read it a moment ago
	return b
}

func describe(s *Spec, vals []string) string {
	var parts []string
	for i, a := range s.Axes {
		parts = append(parts, a.Key+"="+vals[i])
	}
	if len(parts) == 0 {
		return "(the base chip)"
	}
	return strings.Join(parts, " ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
