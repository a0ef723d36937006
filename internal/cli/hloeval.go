package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/pulse-sim/pulse/runtime"
	"github.com/spf13/cobra"
)

func newHLOEval() *cobra.Command {
	var (
		ins     []string
		seed    int64
		perturb uint64
		outDir  string
		memory  string
		feed    feedFlags
		devs    deviceFlags
	)
	cmd := &cobra.Command{
		Use:   "eval MODEL.hlo [--in name=x.npy]... [--random-inputs SEED] [--out-dir DIR]",
		Short: "Evaluate an HLO module on the host (the reference the lowering is checked against)",
		Long: `Evaluate an HLO module's entry computation on the host. Parameters are bound
with --in by parameter name or number, to a .npy file or to a number that
fills it (--in p12=6); --random-inputs SEED fills the others with
deterministic random values. Outputs are written to --out-dir as .npy,
one file per tuple element (out.npy, or out.0.npy, out.1.npy, ...).
Infeed records come from --infeed DIR (DIR/0.npy, ..., or DIR/0.0.npy, ...
for tuple records) or --random-infeed N; outfeed records are written as
outfeed.N.npy (outfeed.N.K.npy).

A module that runs on several devices (SPMD: replica_count x num_partitions
in its header, or --replicas/--partitions for a dump that leaves them out)
is evaluated on each, collectives moving data between them; device i gets
the --in files and, with --random-inputs SEED, random values from SEED+i;
its outputs go to DIR/deviceI/; --in name@I=x.npy binds a parameter on
device I only (a shard), over a name=x.npy given for all.

Values are held as float64 on the host; --max-memory bounds what the
evaluator may hold at once (parameters included) and stops with an error
naming the instruction that would exceed it. rng ops draw from the
generator the chips draw from (Philox keyed 0, its counter shared by every
rng of the module): pulse simulate gives the same numbers.

--perturb SEED evaluates with Monte Carlo arithmetic: every rounded float
result moves at random by up to one ulp of its type (sqrt(K) ulps for a
sum of K terms). Comparing its outputs with an unperturbed run's shows how
much each output depends on rounding; pulse simulate --check does this for
outputs beyond the dtype tolerance (docs/hlo.md).`,
		Args: exactArgs(1, "one HLO file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutputDir("--out-dir", outDir); err != nil {
				return err
			}
			m, err := readHLO(args[0])
			if err != nil {
				return err
			}
			limit, err := parseBytes(memory)
			if err != nil {
				return usagef("--max-memory %s: %v", memory, err)
			}
			limitMemoryTo(limit)
			heap := limit + evalOverhead
			limit /= 8 // float64 elements
			d, err := devs.resolve(args[0], m)
			if err != nil {
				return err
			}
			if d.N() > 1 {
				return evalDevices(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], m, d, ins, seed, cmd.Flags().Changed("random-inputs"), limit, heap, perturb, outDir)
			}
			one, err := deviceBindings(ins, 0, 1)
			if err != nil {
				return err
			}
			vals, err := hloArgs(m, one, seed, cmd.Flags().Changed("random-inputs"), limit)
			if err != nil {
				return err
			}
			infeed, err := feed.records(m, seed, limit)
			if err != nil {
				return err
			}
			bar := newRunProgress(cmd.ErrOrStderr(), "hlo eval", len(m.Entry.Instructions))
			ev := &eval.Evaluator{File: args[0], M: m, MaxLiveElements: limit, MaxHeapBytes: heap, Perturb: perturb, Infeed: infeed,
				Progress: func(done, total int) { bar.set(done, "") }}
			out, err := ev.Run(vals)
			bar.finish()
			if err != nil {
				return err
			}
			if err := writeOutputs(cmd.OutOrStdout(), eval.Leaves(out), out.Tuple != nil, outDir); err != nil {
				return err
			}
			return writeOutfeed(cmd.OutOrStdout(), ev.Outfeed, outDir)
		},
	}
	cmd.Flags().StringArrayVar(&ins, "in", nil, "bind a parameter (by name or number) to a .npy file or fill it with a number, repeatable")
	cmd.Flags().Int64Var(&seed, "random-inputs", 0, "fill unbound parameters with random values from this seed")
	cmd.Flags().StringVar(&outDir, "out-dir", "", "write the outputs as .npy files into this directory")
	cmd.Flags().Uint64Var(&perturb, "perturb", 0, "evaluate with Monte Carlo arithmetic seeded by this (not 0): rounded results move by up to an ulp")
	cmd.Flags().StringVar(&memory, "max-memory", "2GiB", "the most host memory the evaluator's values may take (e.g. 512MiB, 8GiB)")
	feed.register(cmd)
	devs.register(cmd)
	return cmd
}

// parseBytes reads a size such as 512MiB, 8GiB, 2GB or 1048576.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n <= 0 || n*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a size such as 512MiB or 8GiB")
	}
	return int64(n * float64(mult)), nil
}

// hloArgs binds the entry parameters to --in files or numbers (by name or
// number), filling the others with random values when random is set.
func hloArgs(m *hlo.Module, ins []string, seed int64, random bool, limit int64) ([]*eval.Value, error) {
	return bindArgs(m, ins, seed, random, false, limit)
}

// bindArgs is hloArgs; with leaveUnbound (a timing-only run without
// --random-inputs) the parameters no --in binds are left nil, values
// never given, instead of an error, and nothing else is built: a
// timing-only run needs only what steers control flow (a model's token
// ids), not its weights as float64.
func bindArgs(m *hlo.Module, ins []string, seed int64, random, leaveUnbound bool, limit int64) ([]*eval.Value, error) {
	var params []*hlo.Instruction
	for _, in := range m.Entry.Instructions {
		if in.Opcode == hlo.OpParameter {
			params = append(params, in)
		}
	}
	var vals []*eval.Value
	if leaveUnbound && !random {
		vals = make([]*eval.Value, len(params))
	} else {
		var err error
		if vals, err = eval.RandomArgsWithin(m, uint64(seed), limit); err != nil {
			return nil, err
		}
	}
	bound := map[int64]bool{}
	boundBy := map[int64]string{} // the flag that bound each parameter
	for _, s := range ins {
		name, path, err := splitBinding("in", s)
		if err != nil {
			return nil, err
		}
		var p *hlo.Instruction
		for _, q := range params {
			if q.Name == name || strconv.FormatInt(q.ParamNumber, 10) == name {
				p = q
			}
		}
		if p == nil {
			return nil, fmt.Errorf("--in %s: the entry computation has no parameter named or numbered %q", name, name)
		}
		if prev, ok := boundBy[p.ParamNumber]; ok {
			return nil, usagef("--in %s and --in %s both bind parameter %d (%s)", prev, s, p.ParamNumber, p.Name)
		}
		boundBy[p.ParamNumber] = s
		// A number fills the parameter: hyperparameters (a clamp bound, a
		// dropout rate, a divisor) need their real values for a training
		// step to compute anything meaningful. A file named like a number
		// is read as ./6.
		if x, err := strconv.ParseFloat(path, 64); err == nil {
			v, err := eval.Filled(p.Shape, x)
			if err != nil {
				return nil, fmt.Errorf("--in %s=%s: parameter %s is %s: %v", name, path, p.Name, p.Shape, err)
			}
			vals[p.ParamNumber] = v
			bound[p.ParamNumber] = true
			continue
		}
		v, err := readParamNPY(path, p)
		if err != nil {
			return nil, fmt.Errorf("--in %s: %v", name, err)
		}
		vals[p.ParamNumber] = v
		bound[p.ParamNumber] = true
	}
	if !random && !leaveUnbound {
		for _, p := range params {
			if !bound[p.ParamNumber] {
				return nil, usagef("parameter %s (number %d) has no --in; give it one or use --random-inputs SEED", p.Name, p.ParamNumber)
			}
		}
	}
	return vals, nil
}

// elemKind and descrKind say whether an HLO element type and a .npy dtype
// hold floats, integers or booleans: an input must be of its parameter's
// kind (floats of another width are rounded to the parameter's type).
func elemKind(elem string) string {
	switch {
	case elem == "pred":
		return "booleans"
	case strings.HasPrefix(elem, "s") || strings.HasPrefix(elem, "u"):
		return "integers"
	case hlo.IsComplex(elem):
		return "complex numbers"
	}
	return "floats"
}

func descrKind(descr string) string {
	if len(descr) > 1 {
		switch descr[1] {
		case 'b':
			return "booleans"
		case 'i', 'u':
			return "integers"
		case 'c':
			return "complex numbers"
		}
	}
	return "floats"
}

// writeOutputs lists the results and writes them as .npy into dir.
func writeOutputs(w io.Writer, outs []*eval.Value, tuple bool, dir string) error {
	for i, v := range outs {
		name := "out.npy"
		if tuple {
			name = fmt.Sprintf("out.%d.npy", i)
		}
		fmt.Fprintf(w, "%s: %s", name, v.Shape)
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := writeOutput("--out-dir", filepath.Join(dir, name), encodeValue(v)); err != nil {
				return err
			}
			fmt.Fprintf(w, " -> %s", filepath.Join(dir, name))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func encodeValue(v *eval.Value) []byte {
	shape := make([]int, len(v.Shape.Dims))
	for i, d := range v.Shape.Dims {
		shape[i] = int(d)
	}
	elem := strings.TrimSpace(v.Shape.Elem)
	switch elem { // sub-byte integers (no Pulse dtype) as bytes, as ml_dtypes stores them
	case "s4", "s2":
		elem = "s8"
	case "u4", "u2":
		elem = "u8"
	}
	if hlo.IsComplex(elem) {
		return npy.WriteComplex(shape, v.Data, elem == "c64")
	}
	if d, ok := isa.ParseDType(elem); ok {
		return npy.Write(d, shape, runtime.MachineValues(d, v.Data))
	}
	return npy.WriteFloat64(shape, v.Data)
}

// readParamNPY reads an .npy file as parameter p's value: its shape must be
// the parameter's (complex numbers two per element), its kind of number
// the same (floats of any width for floats), and wide integers are carried
// as bits.
func readParamNPY(path string, p *hlo.Instruction) (*eval.Value, error) {
	b, err := inputs.ReadFile(path, inputs.Arrays())
	if err != nil {
		return nil, err
	}
	arr, err := npy.Read(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	per := int64(1) // numbers per element: complex ones hold 2
	if arr.Complex {
		per = 2
	}
	same := len(arr.Shape) == len(p.Shape.Dims) && int64(len(arr.Values)) == per*p.Shape.Elems()
	for i := 0; same && i < len(p.Shape.Dims); i++ {
		same = int64(arr.Shape[i]) == p.Shape.Dims[i]
	}
	if !same {
		return nil, fmt.Errorf("%s has shape %v, but parameter %s is %s", path, arr.Shape, p.Name, p.Shape)
	}
	if want, got := elemKind(p.Shape.Elem), descrKind(arr.Descr); want != got {
		return nil, fmt.Errorf("%s holds %s (%s), but parameter %s is %s (%s)", path, arr.Descr, got, p.Name, p.Shape, want)
	}
	data := arr.Values
	if d, ok := isa.ParseDType(p.Shape.Elem); ok && d.IsWide() {
		data = arr.ValuesAs(d) // carried as bits (hlo.IsWide)
	}
	return &eval.Value{Shape: p.Shape, Data: data}, nil
}
