package validate

import (
	"fmt"
	"math"
	"sort"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/runtime"
)

// Workload is the HLO JAX emits for m: jnp.matmul(a, b) of [M,K] and
// [K,N] operands of m's dtype is dot(a, b) contracting a's dim 1 with b's
// dim 0, the result in the same dtype, at the default precision.
func Workload(m Measurement) string {
	return fmt.Sprintf(`HloModule jit_matmul, entry_computation_layout={(%[1]s[%[2]d,%[4]d]{1,0}, %[1]s[%[4]d,%[3]d]{1,0})->%[1]s[%[2]d,%[3]d]{1,0}}

ENTRY main {
  a = %[1]s[%[2]d,%[4]d]{1,0} parameter(0)
  b = %[1]s[%[4]d,%[3]d]{1,0} parameter(1)
  ROOT dot = %[1]s[%[2]d,%[3]d]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
`, m.DType, m.M, m.N, m.K)
}

// Row is one measurement with Pulse's prediction.
type Row struct {
	Measurement
	SimChip     string  `json:"sim_chip"` // the preset it was simulated on
	Cycles      int64   `json:"cycles"`
	PredictedUs float64 `json:"predicted_us"`
	Error       float64 `json:"error"` // (predicted - measured) / measured
}

// Group is the error over a set of rows.
type Group struct {
	Name  string  `json:"name"` // source table, op, shape region
	Rows  int     `json:"rows"`
	MAPE  float64 `json:"mape"`   // mean |error|, a fraction
	Bias  float64 `json:"bias"`   // mean error (positive: Pulse slower)
	Off2x int     `json:"off_2x"` // rows off by more than 2x either way
	Worst float64 `json:"worst"`  // the error of largest magnitude
}

// Report is predicted against measured.
type Report struct {
	Rows    []Row   `json:"rows"`
	Groups  []Group `json:"groups"` // per table, then per table and shape region
	Overall Group   `json:"overall"`
}

// Options choose the chip: Chip overrides every measurement's own preset,
// Sets are config overrides (key=value) applied to it.
type Options struct {
	Chip  string
	Sets  []string
	OnRow func(done, total int) // progress, after each row
}

// Run simulates every measurement's workload, timing only, and compares.
func Run(ms []Measurement, opt Options) (*Report, error) {
	chips := map[string]*config.Chip{}
	rep := &Report{}
	for i, m := range ms {
		name := m.Chip
		if opt.Chip != "" {
			name = opt.Chip
		}
		c := chips[name]
		if c == nil {
			var err error
			if c, err = config.Load(name, opt.Sets); err != nil {
				return nil, fmt.Errorf("%s:%d: the measurement's chip %s: %v (simulate on another with --chip)", m.Source, m.Line, name, err)
			}
			chips[name] = c
		}
		r, err := simulate(m, c)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", m.Source, m.Line, err)
		}
		r.SimChip = name
		rep.Rows = append(rep.Rows, *r)
		if opt.OnRow != nil {
			opt.OnRow(i+1, len(ms))
		}
	}
	rep.summarize()
	return rep, nil
}

func simulate(m Measurement, c *config.Chip) (*Row, error) {
	file := fmt.Sprintf("matmul_%dx%dx%d_%s.hlo", m.M, m.N, m.K, m.DType)
	mod, err := hlo.Parse(file, Workload(m))
	if err != nil {
		return nil, err
	}
	if err := verify.Verify(file, mod); err != nil {
		return nil, err
	}
	client := &runtime.Client{Chip: c}
	x, err := client.Compile(file, mod)
	if err != nil {
		return nil, err
	}
	res, err := client.Execute(x, nil, runtime.ExecOptions{TimingOnly: true})
	if err != nil {
		return nil, err
	}
	us := res.Report.Seconds * 1e6
	return &Row{Measurement: m, Cycles: res.Report.Cycles, PredictedUs: us, Error: (us - m.MeasuredUs) / m.MeasuredUs}, nil
}

// Region names a matmul's shape region: small when every dimension is at
// most 512, large otherwise (the tables' two grids).
func Region(m Measurement) string {
	if max(m.M, m.N, m.K) <= 512 {
		return "small"
	}
	return "large"
}

func group(name string, rows []Row) Group {
	g := Group{Name: name, Rows: len(rows)}
	for _, r := range rows {
		g.MAPE += math.Abs(r.Error)
		g.Bias += r.Error
		if r.PredictedUs > 2*r.MeasuredUs || r.MeasuredUs > 2*r.PredictedUs {
			g.Off2x++
		}
		if math.Abs(r.Error) > math.Abs(g.Worst) {
			g.Worst = r.Error
		}
	}
	if len(rows) > 0 {
		g.MAPE /= float64(len(rows))
		g.Bias /= float64(len(rows))
	}
	return g
}

func (rep *Report) summarize() {
	by := map[string][]Row{}
	for _, r := range rep.Rows {
		by[r.Source] = append(by[r.Source], r)
		by[r.Source+" "+r.Op+" "+Region(r.Measurement)] = append(by[r.Source+" "+r.Op+" "+Region(r.Measurement)], r)
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rep.Groups = rep.Groups[:0]
	for _, k := range keys {
		rep.Groups = append(rep.Groups, group(k, by[k]))
	}
	rep.Overall = group("overall", rep.Rows)
}
