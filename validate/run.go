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

// Ops are the workloads validate builds.
var Ops = []string{"matmul", "softmax", "layernorm", "gelu"}

// Workload is the HLO JAX emits for m (jax.jit of the op on an array of
// m's dtype, as JAX 0.11 lowers it):
//   - matmul: jnp.matmul(a, b) of [M,K] and [K,N] is dot(a, b) contracting
//     a's dim 1 with b's dim 0, the result in the same dtype, at the
//     default precision;
//   - softmax: jax.nn.softmax(x) over the last dim of [M,N]: the row's
//     maximum taken off, exp, the sum (accumulated in f32, as jnp.sum of a
//     16-bit float is), the division;
//   - layernorm: (x - mean) / sqrt(var + 1e-5) over the last dim of [M,N],
//     mean and variance in f32 (jnp.mean, jnp.var), no scale or bias;
//   - gelu: jax.nn.gelu(x) of [M] (approximate: the tanh form).
func Workload(m Measurement) string {
	switch m.Op {
	case "softmax":
		return fmt.Sprintf(`HloModule jit_softmax, entry_computation_layout={(%[1]s[%[2]d,%[3]d]{1,0})->%[1]s[%[2]d,%[3]d]{1,0}}

max_f {
  a = %[1]s[] parameter(0)
  b = %[1]s[] parameter(1)
  ROOT m = %[1]s[] maximum(a, b)
}

add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = %[1]s[%[2]d,%[3]d]{1,0} parameter(0)
  ninf = %[1]s[] constant(-inf)
  mx = %[1]s[%[2]d]{0} reduce(x, ninf), dimensions={1}, to_apply=max_f
  mxb = %[1]s[%[2]d,%[3]d]{1,0} broadcast(mx), dimensions={0}
  d = %[1]s[%[2]d,%[3]d]{1,0} subtract(x, mxb)
  e = %[1]s[%[2]d,%[3]d]{1,0} exponential(d)
  ef = f32[%[2]d,%[3]d]{1,0} convert(e)
  zero = f32[] constant(0)
  s = f32[%[2]d]{0} reduce(ef, zero), dimensions={1}, to_apply=add_f
  sc = %[1]s[%[2]d]{0} convert(s)
  sb = %[1]s[%[2]d,%[3]d]{1,0} broadcast(sc), dimensions={0}
  ROOT r = %[1]s[%[2]d,%[3]d]{1,0} divide(e, sb)
}
`, m.DType, m.M, m.N)
	case "layernorm":
		return fmt.Sprintf(`HloModule jit_layernorm, entry_computation_layout={(%[1]s[%[2]d,%[3]d]{1,0})->%[1]s[%[2]d,%[3]d]{1,0}}

add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = %[1]s[%[2]d,%[3]d]{1,0} parameter(0)
  xf = f32[%[2]d,%[3]d]{1,0} convert(x)
  zero = f32[] constant(0)
  s = f32[%[2]d]{0} reduce(xf, zero), dimensions={1}, to_apply=add_f
  n = f32[] constant(%[3]d)
  nb = f32[%[2]d]{0} broadcast(n), dimensions={}
  mean = f32[%[2]d]{0} divide(s, nb)
  mb = f32[%[2]d,%[3]d]{1,0} broadcast(mean), dimensions={0}
  xc = f32[%[2]d,%[3]d]{1,0} subtract(xf, mb)
  sq = f32[%[2]d,%[3]d]{1,0} multiply(xc, xc)
  ss = f32[%[2]d]{0} reduce(sq, zero), dimensions={1}, to_apply=add_f
  var = f32[%[2]d]{0} divide(ss, nb)
  eps = f32[] constant(1e-05)
  epsb = f32[%[2]d]{0} broadcast(eps), dimensions={}
  ve = f32[%[2]d]{0} add(var, epsb)
  rs = f32[%[2]d]{0} rsqrt(ve)
  rb = f32[%[2]d,%[3]d]{1,0} broadcast(rs), dimensions={0}
  y = f32[%[2]d,%[3]d]{1,0} multiply(xc, rb)
  ROOT r = %[1]s[%[2]d,%[3]d]{1,0} convert(y)
}
`, m.DType, m.M, m.N)
	case "gelu":
		return fmt.Sprintf(`HloModule jit_gelu, entry_computation_layout={(%[1]s[%[2]d]{0})->%[1]s[%[2]d]{0}}

ENTRY main {
  x = %[1]s[%[2]d]{0} parameter(0)
  x2 = %[1]s[%[2]d]{0} multiply(x, x)
  x3 = %[1]s[%[2]d]{0} multiply(x2, x)
  c = %[1]s[] constant(0.044715)
  cb = %[1]s[%[2]d]{0} broadcast(c), dimensions={}
  cx3 = %[1]s[%[2]d]{0} multiply(cb, x3)
  in = %[1]s[%[2]d]{0} add(x, cx3)
  k = %[1]s[] constant(0.7978846)
  kb = %[1]s[%[2]d]{0} broadcast(k), dimensions={}
  ki = %[1]s[%[2]d]{0} multiply(kb, in)
  t = %[1]s[%[2]d]{0} tanh(ki)
  one = %[1]s[] constant(1)
  oneb = %[1]s[%[2]d]{0} broadcast(one), dimensions={}
  u = %[1]s[%[2]d]{0} add(oneb, t)
  h = %[1]s[] constant(0.5)
  hb = %[1]s[%[2]d]{0} broadcast(h), dimensions={}
  hx = %[1]s[%[2]d]{0} multiply(hb, x)
  ROOT r = %[1]s[%[2]d]{0} multiply(hx, u)
}
`, m.DType, m.M)
	}
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
	PredictedUs float64 `json:"predicted_us"` // Pulse's device time, plus the measurement's HostUs
	Error       float64 `json:"error"`        // (predicted - measured) / measured
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
	file := fmt.Sprintf("%s_%dx%dx%d_%s.hlo", m.Op, m.M, m.N, m.K, m.DType)
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
	us := res.Report.Seconds*1e6 + m.HostUs
	return &Row{Measurement: m, Cycles: res.Report.Cycles, PredictedUs: us, Error: (us - m.MeasuredUs) / m.MeasuredUs}, nil
}

// Region names a measurement's shape region: a matmul is small when every
// dimension is at most 512, large otherwise (the tables' two grids); a
// softmax, layer norm or GELU is large from 4M elements, where the host
// floor its table carries is small against the work (the rows issue 41
// holds to 20%).
func Region(m Measurement) string {
	if m.Op != "matmul" {
		if m.M*m.N*m.K >= 4<<20 {
			return "large"
		}
		return "small"
	}
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
