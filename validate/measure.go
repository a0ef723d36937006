// Package validate holds Pulse's times against measured ones: it reads
// measurement tables (the published TPU timings that ship with Pulse, or a
// user's), builds each workload as JAX emits it, simulates it on a chip
// and reports predicted against measured (docs/validation.md).
package validate

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// A Measurement is one measured kernel: what ran, on what, how long.
type Measurement struct {
	Source string `json:"source"` // table file name
	Line   int    `json:"line"`   // its line there
	Op     string `json:"op"`     // matmul, softmax, layernorm or gelu (Ops)
	// The shape: a matmul's M, N, K; softmax's and layer norm's rows (M)
	// and columns (N); GELU's elements (M). The others are 1.
	M     int64  `json:"m"`
	N     int64  `json:"n"`
	K     int64  `json:"k"`
	DType string `json:"dtype"` // operand and result element type, as HLO names it
	// Chip is the preset the measurement's device corresponds to
	// ("tpuv3core": one TPU v3 TensorCore; "tpuv4": a TPU v4 chip).
	Chip       string  `json:"chip"`
	MeasuredUs float64 `json:"measured_us"` // the kernel's time as measured (with HostUs of host overhead in it)
	// HostUs is the host and launch overhead the measured time still
	// holds (a table whose harness timed the call from the host, not the
	// kernel on the device): Pulse's device time plus HostUs is what is
	// compared with MeasuredUs. 0 for a device time.
	HostUs float64 `json:"host_us,omitempty"`
}

// llmcompassHostUs are the host and launch overheads of LLMCompass's TPU v3
// harness, as its authors add them to their own simulations of these ops
// before comparing with these tables (LLMCompass,
// hardware_model/compute_module.py, overhead_dict["TPUv3"]; the
// ae/figure5 scripts add them with --simtpu): matmul 110 us, softmax 300,
// layer norm 140, GELU 100. The tables' latencies are the calls' times
// from the host, overhead included (their GPU harness, in the same
// artifact, times torch calls that way and leaves the overhead in); the
// matmul and softmax tables' overhead columns are separate measurements of
// it, too noisy to subtract row by row (the small rows' work is of their
// size), and are not used.
var llmcompassHostUs = map[string]float64{"matmul": 110, "softmax": 300, "layernorm": 140, "gelu": 100}

// llmcompassVectorDType is the element type of LLMCompass's TPU v3 softmax,
// layer norm and GELU measurements. The tables do not say, but the
// artifact's own TPU v3 simulations of these three ops build their tensors
// as fp32 (ae/figure5/{cf,de,g}/test_*.py, --simtpu: data_type fp32, where
// its matmuls are fp16), JAX's default type; and read as f32, GELU's 41
// Gelem/s moves 328 GB/s, 73% of the core's HBM, where bf16 would leave
// the TPU at a third of its memory's rate with nothing else to wait for.
const llmcompassVectorDType = "f32"

// A table format: the header that names it and how a row reads.
type format struct {
	name   string
	header []string
	row    func(rec map[string]string) (Measurement, error)
}

var formats = []format{
	{ // LLMCompass's TPU v3 matmuls: latency_ms with the host overhead in
		// it (HostUs; overhead_ms, a separate measurement of it, unused).
		name:   "llmcompass-matmul",
		header: []string{"m", "n", "k", "latency_ms", "overhead_ms", "tflops"},
		row: func(r map[string]string) (Measurement, error) {
			ms, err := num(r, "latency_ms")
			return Measurement{Op: "matmul", DType: "bf16", Chip: "tpuv3core", MeasuredUs: ms * 1000, HostUs: llmcompassHostUs["matmul"]}, err
		},
	},
	{ // LLMCompass's TPU v3 softmax over the last dim: latency_us with the
		// host overhead in it (HostUs; overhead_us unused, as overhead_ms
		// above). The dtype: llmcompassVectorDType.
		name:   "llmcompass-softmax",
		header: []string{"rows", "cols", "latency_us", "overhead_us", "gelems_per_s"},
		row: func(r map[string]string) (Measurement, error) {
			us, err := num(r, "latency_us")
			return Measurement{Op: "softmax", DType: llmcompassVectorDType, Chip: "tpuv3core", MeasuredUs: us, HostUs: llmcompassHostUs["softmax"]}, err
		},
	},
	{ // LLMCompass's TPU v3 layer norm over the last dim: latency_us with the
		// host floor in it (~0.13-0.18 ms; no overhead measured): HostUs.
		name:   "llmcompass-layernorm",
		header: []string{"rows", "cols", "latency_us", "gelems_per_s"},
		row: func(r map[string]string) (Measurement, error) {
			us, err := num(r, "latency_us")
			return Measurement{Op: "layernorm", DType: llmcompassVectorDType, Chip: "tpuv3core", MeasuredUs: us, HostUs: llmcompassHostUs["layernorm"]}, err
		},
	},
	{ // LLMCompass's TPU v3 GELU: latency_us with the host floor (~0.1 ms):
		// HostUs.
		name:   "llmcompass-gelu",
		header: []string{"elements", "latency_us", "gelems_per_s"},
		row: func(r map[string]string) (Measurement, error) {
			us, err := num(r, "latency_us")
			return Measurement{Op: "gelu", DType: llmcompassVectorDType, Chip: "tpuv3core", MeasuredUs: us, HostUs: llmcompassHostUs["gelu"]}, err
		},
	},
	{ // SCALE-Sim's validation set: TPU v4 fusions of f16 jnp.matmul.
		name:   "scalesim-validation",
		header: []string{"kernel_name", "dim_m", "dim_n", "dim_k", "fusion_avg"},
		row: func(r map[string]string) (Measurement, error) {
			us, err := num(r, "fusion_avg")
			return Measurement{Op: "matmul", DType: "f16", Chip: "tpuv4", MeasuredUs: us}, err
		},
	},
	{ // A user's table: op, shape, dtype, time, chip (and host_us, optional).
		name:   "pulse",
		header: []string{"op", "m", "n", "k", "dtype", "measured_us", "chip"},
		row: func(r map[string]string) (Measurement, error) {
			us, err := num(r, "measured_us")
			m := Measurement{Op: r["op"], DType: r["dtype"], Chip: r["chip"], MeasuredUs: us}
			if v, ok := r["host_us"]; ok && err == nil && strings.TrimSpace(v) != "" {
				// An optional column: the host overhead the time holds.
				if m.HostUs, err = num(r, "host_us"); err == nil && m.HostUs < 0 {
					err = fmt.Errorf("host_us: %g is negative", m.HostUs)
				}
			}
			return m, err
		},
	},
}

func num(r map[string]string, key string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(r[key]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: %q is not a finite number", key, r[key])
	}
	return v, nil
}

// dims reads m, n, k under the names a format gives them.
func dims(r map[string]string) (m, n, k int64, err error) {
	get := func(keys ...string) int64 {
		for _, key := range keys {
			if v, ok := r[key]; ok {
				x, e := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if e != nil || x <= 0 {
					err = fmt.Errorf("%s: %q is not a positive integer", key, v)
				}
				return x
			}
		}
		return 0
	}
	m, n, k = get("m", "dim_m", "rows", "elements"), get("n", "dim_n", "cols"), get("k", "dim_k")
	n, k = max(n, 1), max(k, 1)
	return
}

// ReadCSV reads a measurement table named name (for messages). The format
// is known by its header (README of ../shared/reference/silicon, or
// op,m,n,k,dtype,measured_us,chip); errors are name:line: message.
func ReadCSV(name string, r io.Reader) ([]Measurement, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: no header: %v", name, err)
	}
	var f *format
	for i := range formats {
		if containsAll(header, formats[i].header) {
			f = &formats[i]
			break
		}
	}
	if f == nil {
		return nil, fmt.Errorf("%s:1: unknown table: the header %q is none of %s", name, strings.Join(header, ","), formatNames())
	}
	var out []Measurement
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		row := map[string]string{}
		for i, h := range header {
			if i < len(rec) {
				row[strings.TrimSpace(h)] = rec[i]
			}
		}
		m, err := f.row(row)
		if err == nil {
			m.M, m.N, m.K, err = dims(row)
		}
		if err == nil && m.MeasuredUs <= 0 {
			err = fmt.Errorf("the measured time %g is not positive", m.MeasuredUs)
		}
		if t, ok := hlo.LookupElem(m.DType); err == nil && (!ok || t.Kind == hlo.KindOther) {
			err = fmt.Errorf("dtype %q is not an HLO element type of numbers (f32, bf16, f16, s8, ...)", m.DType)
		}
		if err == nil && !slices.Contains(Ops, m.Op) {
			err = fmt.Errorf("op %q: validate builds %s workloads", m.Op, strings.Join(Ops, ", "))
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		m.Source, m.Line = name, line
		out = append(out, m)
	}
	return out, nil
}

func containsAll(header, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(header, func(h string) bool { return strings.TrimSpace(h) == w }) {
			return false
		}
	}
	return true
}

func formatNames() string {
	var ns []string
	for _, f := range formats {
		ns = append(ns, f.name+" ("+strings.Join(f.header, ",")+")")
	}
	return strings.Join(ns, "; ")
}
