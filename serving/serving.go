// Package serving runs an LLM serving session on a simulated chip, as JAX
// serves a model: a prefill program over the prompt, then decode steps,
// each taking the KV cache the step before left and the token it chose
// (greedy: the most likely), and reports the time to the first token and
// the time per output token.
//
// The two programs must have the layout JAX's serving functions have (and
// scripts/jax/serving_export.py exports):
//
//	prefill(weights..., prompt s32[B,P]) -> (logits f32[B,V], caches...)
//	decode(weights..., caches..., token s32[B], position s32[]) -> (logits f32[B,V], caches...)
//
// with the same weights first in both and the caches in the same order in
// decode's parameters and both programs' results. CheckLayout says where a
// pair departs from it.
package serving

import (
	"fmt"
	"slices"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/runtime"
)

// Programs are a model's prefill and decode step, and the files they came
// from (for messages).
type Programs struct {
	Prefill, Decode         *hlo.Module
	PrefillFile, DecodeFile string
}

// Layout is what CheckLayout found: how many weights lead both programs'
// parameters, and how many caches follow the logits in their results.
type Layout struct {
	Weights, Caches int
	// Batch, PromptLen and Vocab are the prompt's and the logits' sizes.
	Batch, PromptLen, Vocab int64
	// The element types of the prompt, the token and the position.
	promptElem, tokenElem, posElem string
}

// CheckLayout checks that the programs have the serving layout.
func CheckLayout(p Programs) (Layout, error) {
	pre, dec := params(p.Prefill), params(p.Decode)
	preOut, decOut := results(p.Prefill), results(p.Decode)
	var l Layout
	if len(pre) < 2 {
		return l, fmt.Errorf("%s: the prefill takes %d parameters: want the weights, then the prompt", p.PrefillFile, len(pre))
	}
	prompt := pre[len(pre)-1]
	if len(prompt.Dims) != 2 || !hlo.IsInteger(prompt.Elem) {
		return l, fmt.Errorf("%s: the prefill's last parameter is %s: want the prompt, an integer [batch, length] array", p.PrefillFile, prompt)
	}
	l.Batch, l.PromptLen, l.Weights, l.promptElem = prompt.Dims[0], prompt.Dims[1], len(pre)-1, prompt.Elem
	if len(preOut) < 2 || len(decOut) != len(preOut) {
		return l, fmt.Errorf("%s and %s: the prefill returns %d arrays and the decode step %d: want the logits and the same caches from both", p.PrefillFile, p.DecodeFile, len(preOut), len(decOut))
	}
	l.Caches = len(preOut) - 1
	for i, out := range [][]*hlo.Shape{preOut, decOut} {
		lg := out[0]
		file := []string{p.PrefillFile, p.DecodeFile}[i]
		if len(lg.Dims) != 2 || lg.Dims[0] != l.Batch || !hlo.IsRealFloat(lg.Elem) {
			return l, fmt.Errorf("%s: the first result is %s: want the logits, a float [%d, vocabulary] array", file, lg, l.Batch)
		}
		l.Vocab = lg.Dims[1]
	}
	if want := l.Weights + l.Caches + 2; len(dec) != want {
		return l, fmt.Errorf("%s: the decode step takes %d parameters: want %d (the prefill's %d weights, %d caches, the token and the position)", p.DecodeFile, len(dec), want, l.Weights, l.Caches)
	}
	for i := range l.Weights {
		if !sameShape(dec[i], pre[i]) {
			return l, fmt.Errorf("%s: weight %d is %s in the decode step and %s in the prefill", p.DecodeFile, i, dec[i], pre[i])
		}
	}
	for i := range l.Caches {
		c := dec[l.Weights+i]
		if !sameShape(c, preOut[1+i]) || !sameShape(c, decOut[1+i]) {
			return l, fmt.Errorf("%s: cache %d is %s as the decode step takes it, %s as the prefill returns it, %s as the decode step returns it: want one shape", p.DecodeFile, i, c, preOut[1+i], decOut[1+i])
		}
	}
	tok, pos := dec[len(dec)-2], dec[len(dec)-1]
	if len(tok.Dims) != 1 || tok.Dims[0] != l.Batch || !hlo.IsInteger(tok.Elem) {
		return l, fmt.Errorf("%s: the token parameter is %s: want an integer [%d] array", p.DecodeFile, tok, l.Batch)
	}
	if len(pos.Dims) != 0 || !hlo.IsInteger(pos.Elem) {
		return l, fmt.Errorf("%s: the position parameter is %s: want an integer scalar", p.DecodeFile, pos)
	}
	l.tokenElem, l.posElem = tok.Elem, pos.Elem
	return l, nil
}

// Options say where and how long a session runs.
type Options struct {
	Chip  *config.Chip
	Steps int // decode steps after the prefill
	// TimingOnly runs without values: the caches, tokens and logits are
	// not computed (each step's token is then 0, and so is a prompt not
	// given), and the cycles are the same as a value run's where the
	// programs' control flow and addresses do not depend on the tokens.
	TimingOnly bool
	NoCache    bool // compile afresh, without the executable cache
	// Progress, when set, is told each step as it finishes.
	Progress func(done, total int)
}

// Step is one program run of the session.
type Step struct {
	Program  string  `json:"program"`  // prefill or decode
	Position int64   `json:"position"` // the prompt's length (prefill) or where the step's token went
	Cycles   int64   `json:"cycles"`
	Seconds  float64 `json:"seconds"`
	Tokens   []int64 `json:"tokens,omitempty"` // the token each sequence chose next
	// Logits are the step's logits (nil timing-only).
	Logits *eval.Value `json:"-"`
}

// Result is a session's steps and its serving figures.
type Result struct {
	Layout Layout `json:"layout"`
	Steps  []Step `json:"steps"`
	// TTFT is the time to the first token: the prefill's. TPOT is the
	// time per output token after it: the decode steps' mean.
	TTFT float64 `json:"ttft_seconds"`
	TPOT float64 `json:"tpot_seconds"`
	// Throughput is the decode steps' output tokens per second: the batch
	// over TPOT (0 without decode steps).
	Throughput float64 `json:"decode_tokens_per_second"`
	// HBM is each program's HBM at its peak (the decode step's caches
	// donated, as the server runs it).
	PrefillHBM lowering.HBMPeak `json:"prefill_hbm"`
	DecodeHBM  lowering.HBMPeak `json:"decode_hbm"`
	TimingOnly bool             `json:"timing_only"`
}

// Run runs the prefill on the prompt and opt.Steps decode steps. Timing-only,
// weights may be nil and prompt nil.
func Run(p Programs, weights []*eval.Value, prompt *eval.Value, opt Options) (*Result, error) {
	l, err := CheckLayout(p)
	if err != nil {
		return nil, err
	}
	if len(weights) != l.Weights {
		return nil, fmt.Errorf("%d weights given, the programs take %d", len(weights), l.Weights)
	}
	if opt.Steps < 0 {
		return nil, fmt.Errorf("%d decode steps", opt.Steps)
	}
	client := runtime.NewClient(opt.Chip)
	if opt.NoCache {
		client.CacheDir = ""
	}
	pre, err := client.Compile(p.PrefillFile, p.Prefill)
	if err != nil {
		return nil, err
	}
	dec, err := client.Compile(p.DecodeFile, p.Decode)
	if err != nil {
		return nil, err
	}
	res := &Result{Layout: l, PrefillHBM: pre.HBM.Top(runtime.ReportArrays), DecodeHBM: dec.HBM.Top(runtime.ReportArrays), TimingOnly: opt.TimingOnly}
	exec := runtime.ExecOptions{TimingOnly: opt.TimingOnly}
	if prompt == nil {
		// No prompt (a timing-only run): token 0 throughout, so that the
		// embedding lookups' addresses are known.
		prompt = &eval.Value{Shape: &hlo.Shape{Elem: l.promptElem, Dims: []int64{l.Batch, l.PromptLen}}, Data: make([]float64, l.Batch*l.PromptLen)}
	}
	total := opt.Steps + 1
	r, err := client.Execute(pre, append(slices.Clone(weights), prompt), exec)
	if err != nil {
		return nil, fmt.Errorf("prefill: %w", err)
	}
	step, caches := l.step("prefill", l.PromptLen, r)
	res.Steps = append(res.Steps, step)
	if opt.Progress != nil {
		opt.Progress(1, total)
	}
	for k := range opt.Steps {
		pos := l.PromptLen + int64(k)
		args := slices.Concat(weights, caches, []*eval.Value{tokenValue(step.Tokens, l.Batch, l.tokenElem), scalar(pos, l.posElem)})
		r, err := client.Execute(dec, args, exec)
		if err != nil {
			return nil, fmt.Errorf("decode step %d: %w", k+1, err)
		}
		step, caches = l.step("decode", pos, r)
		res.Steps = append(res.Steps, step)
		if opt.Progress != nil {
			opt.Progress(k+2, total)
		}
	}
	res.TTFT = res.Steps[0].Seconds
	if opt.Steps > 0 {
		var s float64
		for _, st := range res.Steps[1:] {
			s += st.Seconds
		}
		res.TPOT = s / float64(opt.Steps)
		if res.TPOT > 0 {
			res.Throughput = float64(l.Batch) / res.TPOT
		}
	}
	return res, nil
}

// step records a program's run and returns the caches it left (nil
// timing-only).
func (l Layout) step(program string, pos int64, r *runtime.Result) (Step, []*eval.Value) {
	s := Step{Program: program, Position: pos, Cycles: r.Report.Cycles, Seconds: r.Report.Seconds}
	if r.Outputs == nil {
		return s, make([]*eval.Value, l.Caches)
	}
	s.Logits = r.Outputs[0]
	s.Tokens = Argmax(s.Logits)
	return s, r.Outputs[1:]
}

// Argmax is each row's most likely token (the first of equals, as
// jnp.argmax chooses).
func Argmax(logits *eval.Value) []int64 {
	rows, v := logits.Shape.Dims[0], logits.Shape.Dims[1]
	out := make([]int64, rows)
	for r := range rows {
		row := logits.Data[r*v : (r+1)*v]
		best := 0
		for i, x := range row {
			if x > row[best] {
				best = i
			}
		}
		out[r] = int64(best)
	}
	return out
}

func tokenValue(tokens []int64, batch int64, elem string) *eval.Value {
	v := &eval.Value{Shape: &hlo.Shape{Elem: elem, Dims: []int64{batch}}, Data: make([]float64, batch)}
	for i, t := range tokens {
		v.Data[i] = float64(t)
	}
	return v
}

func scalar(x int64, elem string) *eval.Value {
	return &eval.Value{Shape: &hlo.Shape{Elem: elem}, Data: []float64{float64(x)}}
}

func params(m *hlo.Module) []*hlo.Shape {
	var ps []*hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			ps = append(ps, in)
		}
	}
	slices.SortFunc(ps, func(a, b *hlo.Instruction) int { return int(a.ParamNumber - b.ParamNumber) })
	out := make([]*hlo.Shape, len(ps))
	for i, p := range ps {
		out[i] = p.Shape
	}
	return out
}

func results(m *hlo.Module) []*hlo.Shape {
	s := m.Entry.Root.Shape
	if s == nil {
		return nil
	}
	if s.IsTuple {
		return s.Tuple
	}
	return []*hlo.Shape{s}
}

// sameShape compares element types and dimensions (layouts aside).
func sameShape(a, b *hlo.Shape) bool {
	return !a.IsTuple && !b.IsTuple && a.Elem == b.Elem && slices.Equal(a.Dims, b.Dims)
}
