package serving_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/serving"
)

const tiny = "../examples/serving/llama_tiny"

func load(t testing.TB, file string) *hlo.Module {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	m, err := stablehlo.ParseFile(file, b)
	require.NoError(t, err)
	return m
}

func programs(t testing.TB) serving.Programs {
	return serving.Programs{Prefill: load(t, tiny+"/prefill.hlo"), Decode: load(t, tiny+"/decode.hlo"),
		PrefillFile: "prefill.hlo", DecodeFile: "decode.hlo"}
}

// inputs reads the tiny session's weights and prompt.
func inputs(t testing.TB, p serving.Programs) ([]*eval.Value, *eval.Value, [][]int64) {
	t.Helper()
	var sess struct {
		Inputs []struct {
			File string `json:"file"`
		} `json:"prefill_inputs"`
		Generated [][]int64 `json:"generated"`
	}
	b, err := os.ReadFile(tiny + "/session.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sess))
	var params []*hlo.Instruction
	for _, in := range p.Prefill.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params = append(params, in)
		}
	}
	vals := make([]*eval.Value, len(params))
	for _, in := range params {
		b, err := os.ReadFile(filepath.Join(tiny, sess.Inputs[in.ParamNumber].File))
		require.NoError(t, err)
		a, err := npy.Read(b)
		require.NoError(t, err)
		vals[in.ParamNumber] = &eval.Value{Shape: in.Shape, Data: a.Values}
	}
	return vals[:len(vals)-1], vals[len(vals)-1], sess.Generated
}

// TestTinySession: the simulated session generates the tokens JAX's did,
// and its figures are its steps'.
func TestTinySession(t *testing.T) {
	p := programs(t)
	weights, prompt, want := inputs(t, p)
	chip, err := config.Load("tpuv4core", nil)
	require.NoError(t, err)
	const steps = 4
	var seen []int
	r, err := serving.Run(p, weights, prompt, serving.Options{Chip: chip, Steps: steps, NoCache: true,
		Progress: func(done, total int) { seen = append(seen, done); require.Equal(t, steps+1, total) }})
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 3, 4, 5}, seen)
	l := r.Layout
	require.Equal(t, []int64{12, 2, 2, 16, 256}, []int64{int64(l.Weights), int64(l.Caches), l.Batch, l.PromptLen, l.Vocab})
	require.Len(t, r.Steps, steps+1)
	var decode float64
	for i, s := range r.Steps {
		require.Equal(t, want[i], s.Tokens, "step %d", i)
		require.Positive(t, s.Cycles)
		if i == 0 {
			require.Equal(t, "prefill", s.Program)
			require.Equal(t, int64(16), s.Position)
			continue
		}
		require.Equal(t, "decode", s.Program)
		require.Equal(t, int64(16+i-1), s.Position)
		decode += s.Seconds
	}
	// The logits XLA computed for the prefill and the first decode step.
	for i, f := range []string{"prefill.out.0.npy", "decode.out.0.npy"} {
		b, err := os.ReadFile(filepath.Join(tiny, f))
		require.NoError(t, err)
		a, err := npy.Read(b)
		require.NoError(t, err)
		got := r.Steps[i].Logits.Data
		require.Len(t, got, len(a.Values))
		for k, w := range a.Values {
			require.InDelta(t, w, got[k], 2e-3*max(1, math.Abs(w)), "%s element %d", f, k)
		}
	}
	require.Equal(t, r.Steps[0].Seconds, r.TTFT)
	require.InDelta(t, decode/steps, r.TPOT, 1e-15)
	require.InDelta(t, 2/r.TPOT, r.Throughput, 1e-6, "batch 2 over TPOT")
	require.Positive(t, r.DecodeHBM.Needed)

	// Timing-only: the same cycles (the tokens move no address that
	// matters here), no tokens.
	to, err := serving.Run(p, make([]*eval.Value, 12), nil, serving.Options{Chip: chip, Steps: 1, TimingOnly: true, NoCache: true})
	require.NoError(t, err)
	require.Equal(t, r.Steps[0].Cycles, to.Steps[0].Cycles)
	require.Nil(t, to.Steps[1].Tokens)
}

func TestCheckLayout(t *testing.T) {
	p := programs(t)
	for _, c := range []struct {
		name string
		p    serving.Programs
		want string
	}{
		{"swapped", serving.Programs{Prefill: p.Decode, Decode: p.Prefill, PrefillFile: "a", DecodeFile: "b"},
			"a: the prefill's last parameter is s32[]: want the prompt"},
		{"decode twice", serving.Programs{Prefill: p.Prefill, Decode: p.Prefill, PrefillFile: "a", DecodeFile: "b"},
			"b: the decode step takes 13 parameters: want 16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := serving.CheckLayout(c.p)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// Example runs a session of the tiny Llama-style model JAX exported
// (examples/serving/llama_tiny) on a TPU v4 core, timing-only.
func Example() {
	read := func(f string) *hlo.Module {
		b, _ := os.ReadFile(f)
		m, err := stablehlo.ParseFile(f, b)
		if err != nil {
			panic(err)
		}
		return m
	}
	p := serving.Programs{Prefill: read(tiny + "/prefill.hlo"), Decode: read(tiny + "/decode.hlo"),
		PrefillFile: "prefill.hlo", DecodeFile: "decode.hlo"}
	chip, _ := config.Load("tpuv4core", nil)
	r, err := serving.Run(p, make([]*eval.Value, 12), nil, serving.Options{Chip: chip, Steps: 2, TimingOnly: true, NoCache: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("batch %d, prompt %d: %d steps, TPOT %.0f%% of TTFT\n", r.Layout.Batch, r.Layout.PromptLen, len(r.Steps), 100*r.TPOT/r.TTFT)
	// Output: batch 2, prompt 16: 3 steps, TPOT 92% of TTFT
}
