package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/spf13/cobra"

	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/lowering"
	"github.com/pulse-sim/pulse/serving"
)

// sessionFile is what a serving export's session.json holds
// (scripts/jax/serving_export.py): the inputs' files, and what JAX made of
// the session, to check against.
type sessionFile struct {
	Inputs []struct {
		File string `json:"file"`
	} `json:"prefill_inputs"`
	Generated     [][]int64 `json:"generated"`
	PrefillLogits *struct {
		File string `json:"file"`
	} `json:"prefill_logits"`
}

func newServe() *cobra.Command {
	var (
		chipName   string
		sets       []string
		steps      int
		timingOnly bool
		jsonOut    string
		noCache    bool
	)
	cmd := &cobra.Command{
		Use:   "serve DIR --chip NAME [--steps N] [--timing-only] [--json FILE]",
		Short: "Run an LLM serving session: a prefill, then decode steps carrying the KV cache",
		Long: `Run a serving session of a model exported from JAX: DIR holds prefill.hlo (or
.mlir) and decode.hlo, the prefill's inputs (prefill.in.N.npy: the weights,
then the prompt) and session.json, as scripts/jax/serving_export.py writes
them. The prefill runs on the prompt; each decode step takes the weights, the
KV caches the step before returned, the token it chose (the most likely) and
the position, as a server runs them. Pulse prints each step's time, the time
to the first token (TTFT: the prefill's) and the time per output token
(TPOT: the decode steps' mean), and, where session.json holds the tokens JAX
generated, how many of them the simulated session generated too.

The programs' layout: prefill(weights..., prompt) -> (logits, caches...) and
decode(weights..., caches..., token, position) -> (logits, caches...).

--timing-only runs without values (no inputs needed): the tokens are then
0, and the times are a value run's where the programs' control flow and
addresses do not depend on the tokens.`,
		Args: exactArgs(1, "one session folder"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputFile("--json", jsonOut); err != nil {
				return err
			}
			if steps < 0 {
				return usagef("--steps %d: want 0 or more", steps)
			}
			chip, err := config.Load(chipName, sets)
			if err != nil {
				return err
			}
			dir := args[0]
			p, err := loadPrograms(dir)
			if err != nil {
				return err
			}
			l, err := serving.CheckLayout(p)
			if err != nil {
				return err
			}
			var sess sessionFile
			if b, err := os.ReadFile(filepath.Join(dir, "session.json")); err == nil {
				if err := json.Unmarshal(b, &sess); err != nil {
					return fmt.Errorf("%s: %v", filepath.Join(dir, "session.json"), err)
				}
			} else if !timingOnly {
				return fmt.Errorf("%s: no session.json, which names the inputs (--timing-only runs without them)", dir)
			}
			weights := make([]*eval.Value, l.Weights)
			var prompt *eval.Value
			if !timingOnly {
				ins, err := readSessionInputs(dir, p.Prefill, sess)
				if err != nil {
					return err
				}
				weights, prompt = ins[:l.Weights], ins[l.Weights]
			}
			opt := serving.Options{Chip: chip, Steps: steps, TimingOnly: timingOnly, NoCache: noCache}
			prog := newProgress(cmd.ErrOrStderr(), "serving "+filepath.Base(dir), steps+1)
			opt.Progress = func(done, total int) { prog.set(done, "") }
			res, err := serving.Run(p, weights, prompt, opt)
			prog.finish()
			if err != nil {
				return err
			}
			if err := writeServing(cmd.OutOrStdout(), res, sess, chip.Name); err != nil {
				return err
			}
			if jsonOut != "" {
				b, _ := json.MarshalIndent(res, "", "  ")
				return writeOutput("--json", jsonOut, append(b, '\n'))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&chipName, "chip", "tpuv4core", "chip preset name or config file (pulse chips lists them)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a chip config key (key=value), repeatable")
	cmd.Flags().IntVar(&steps, "steps", 16, "decode steps after the prefill")
	cmd.Flags().BoolVar(&timingOnly, "timing-only", false, "run without values: times only")
	cmd.Flags().StringVar(&jsonOut, "json", "", "write the session's steps and figures as JSON to this file")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "compile afresh, neither reading nor writing the executable cache")
	return cmd
}

// loadPrograms reads DIR's prefill and decode programs, HLO text first.
func loadPrograms(dir string) (serving.Programs, error) {
	var p serving.Programs
	for _, which := range []string{"prefill", "decode"} {
		var file string
		for _, ext := range []string{".hlo", ".mlir"} {
			if _, err := os.Stat(filepath.Join(dir, which+ext)); err == nil {
				file = filepath.Join(dir, which+ext)
				break
			}
		}
		if file == "" {
			return p, fmt.Errorf("%s: no %s.hlo or %s.mlir", dir, which, which)
		}
		m, err := readHLO(file)
		if err != nil {
			return p, err
		}
		if which == "prefill" {
			p.Prefill, p.PrefillFile = m, file
		} else {
			p.Decode, p.DecodeFile = m, file
		}
	}
	return p, nil
}

// readSessionInputs reads the prefill's inputs from the files session.json
// names, each checked against its parameter.
func readSessionInputs(dir string, m *hlo.Module, sess sessionFile) ([]*eval.Value, error) {
	var params []*hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params = append(params, in)
		}
	}
	if len(sess.Inputs) != len(params) {
		return nil, fmt.Errorf("%s: session.json names %d prefill inputs, the prefill takes %d", dir, len(sess.Inputs), len(params))
	}
	out := make([]*eval.Value, len(params))
	for _, p := range params {
		name := sess.Inputs[p.ParamNumber].File
		if name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) {
			return nil, fmt.Errorf("%s: session.json: input %d names %q: want a file in the session's folder", dir, p.ParamNumber, name)
		}
		v, err := readParamNPY(filepath.Join(dir, name), p)
		if err != nil {
			return nil, err
		}
		out[p.ParamNumber] = v
	}
	return out, nil
}

// writeServing prints the session: each step, then TTFT and TPOT, then
// the tokens against JAX's.
func writeServing(w io.Writer, r *serving.Result, sess sessionFile, chip string) error {
	t := tablewriter.NewTable(w)
	t.Header("STEP", "PROGRAM", "POSITION", "CYCLES", "TIME", "TOKENS")
	for i, s := range r.Steps {
		toks := "-"
		if s.Tokens != nil {
			toks = strings.Trim(fmt.Sprint(s.Tokens), "[]")
		}
		if err := t.Append(fmt.Sprint(i), s.Program, fmt.Sprint(s.Position), fmt.Sprint(s.Cycles), fmt.Sprintf("%.1f us", s.Seconds*1e6), toks); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	mode := ""
	if r.TimingOnly {
		mode = ", timing-only"
	}
	fmt.Fprintf(w, "on %s%s: time to first token %.1f us (batch %d, prompt %d); time per output token %.1f us over %d decode steps (%.0f tokens/s across the batch)\n",
		chip, mode, r.TTFT*1e6, r.Layout.Batch, r.Layout.PromptLen, r.TPOT*1e6, len(r.Steps)-1, r.Throughput)
	fmt.Fprintf(w, "HBM at the peak: prefill %s; decode step %s\n", lowering.ByteSize(r.PrefillHBM.Needed), lowering.ByteSize(r.DecodeHBM.Needed))
	if r.TimingOnly || sess.Generated == nil {
		return nil
	}
	same, total := 0, 0
	for i, s := range r.Steps {
		if i >= len(sess.Generated) {
			break
		}
		for j, tok := range s.Tokens {
			if j < len(sess.Generated[i]) {
				total++
				if sess.Generated[i][j] == tok {
					same++
				}
			}
		}
	}
	fmt.Fprintf(w, "tokens: %d of %d the same as JAX's session (session.json)\n", same, total)
	return nil
}
