package cli

import (
	"fmt"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/ref"
	"github.com/spf13/pflag"
)

// runFlags are the flags exec and run share: the chip, and tensors in and out.
type runFlags struct {
	chip string
	sets []string
	ins  []string
	outs []string
	show []string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.chip, "chip", "teach16", "chip preset name or config file (pulse chips lists them)")
	fs.StringArrayVar(&f.sets, "set", nil, "override a chip config key (key=value), repeatable")
	fs.StringArrayVar(&f.ins, "in", nil, "load a tensor from .npy before the run (name=file.npy), repeatable")
	fs.StringArrayVar(&f.outs, "out", nil, "write a tensor to .npy after the run (name=file.npy), repeatable")
	fs.StringArrayVar(&f.show, "show", nil, "print a summary of a tensor after the run, repeatable")
}

type binding struct{ name, path string }

// load resolves the chip, the program and the tensor bindings, checking
// every name and file before anything runs.
func (f *runFlags) load(path string) (*config.Chip, *exe.Program, []pulse.Input, []binding, error) {
	chip, err := config.Load(f.chip, f.sets)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	prog, err := pulse.LoadProgram(path)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var inputs []pulse.Input
	boundBy := map[string]string{}
	for _, s := range f.ins {
		name, file, err := splitBinding("in", s)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if prev, ok := boundBy[name]; ok {
			return nil, nil, nil, nil, usagef("--in %s and --in %s both bind tensor %s", prev, s, name)
		}
		boundBy[name] = s
		in, err := pulse.ReadNPYInput(prog, name, file)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		inputs = append(inputs, in)
	}
	var outs []binding
	for _, s := range f.outs {
		name, file, err := splitBinding("out", s)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if _, ok := prog.Symbol(name); !ok {
			return nil, nil, nil, nil, fmt.Errorf("--out %s: the program has no tensor named %q", name, name)
		}
		if err := checkOutputFile("--out "+name+"=", file); err != nil {
			return nil, nil, nil, nil, err
		}
		outs = append(outs, binding{name, file})
	}
	for _, s := range f.show {
		if _, ok := prog.Symbol(s); !ok {
			return nil, nil, nil, nil, fmt.Errorf("--show %s: the program has no tensor named %q", s, s)
		}
	}
	return chip, prog, inputs, outs, nil
}

// outputs writes the --out files and prints the tensor summary table.
func (f *runFlags) outputs(cmd interface{ Println(...any) }, m *ref.Machine, prog *exe.Program, outs []binding, w writer) error {
	names := map[string]string{}
	for _, o := range outs {
		if err := pulse.WriteNPY(m, o.name, o.path); err != nil {
			return err
		}
		names[o.name] = o.path
	}
	for _, s := range f.show {
		if _, ok := names[s]; !ok {
			names[s] = ""
		}
	}
	if len(names) == 0 {
		return nil
	}
	return tensorTable(w, m, prog, names)
}
