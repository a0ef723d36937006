// Package pulse is the entry point of the Pulse simulator's Go API: load a
// kernel (assembly or executable), pick a chip, run it. The pulse command is a
// thin layer over these functions; the packages they use (isa, asm, exe, ref,
// config) are public too.
package pulse

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulse-sim/pulse/asm"
	"github.com/pulse-sim/pulse/config"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/ref"
)

// Version is the Pulse release.
const Version = "0.1.0-dev"

// LoadProgram reads an executable (.pulse) or assembles a source file,
// deciding by content: executables start with exe.Magic.
func LoadProgram(path string) (*exe.Program, error) {
	b, err := inputs.ReadFile(path, inputs.Sources)
	if err != nil {
		return nil, err
	}
	return ParseProgram(path, b)
}

// ParseProgram is LoadProgram on bytes already read; path names them in errors
// and anchors relative .include and npy paths.
func ParseProgram(path string, b []byte) (*exe.Program, error) {
	if exe.IsExecutable(b) {
		p, err := exe.Unmarshal(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return p, nil
	}
	switch filepath.Ext(path) {
	case ".pulse", ".bin", ".exe":
		return nil, fmt.Errorf("%s: %w", path, exe.ErrNotExecutable)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, fmt.Errorf("%s: binary file that is not a Pulse executable (bad magic number); assembly source is text", path)
	}
	return asm.Assemble(path, b, asm.Options{})
}

// Input binds a named tensor to values.
type Input struct {
	Name   string
	Values []float64
}

// ReadNPYInput reads a .npy file for tensor name of prog, checking its shape.
func ReadNPYInput(prog *exe.Program, name, path string) (Input, error) {
	sym, ok := prog.Symbol(name)
	if !ok {
		return Input{}, fmt.Errorf("--in %s: the program has no tensor named %q", name, name)
	}
	b, err := inputs.ReadFile(path, inputs.Arrays())
	if err != nil {
		return Input{}, fmt.Errorf("--in %s: %v", name, err)
	}
	arr, err := npy.Read(b)
	if err != nil {
		return Input{}, fmt.Errorf("--in %s: %s: %v", name, path, err)
	}
	same := len(arr.Shape) == len(sym.Shape)
	for i := 0; same && i < len(arr.Shape); i++ {
		same = arr.Shape[i] == int(sym.Shape[i])
	}
	if !same {
		return Input{}, fmt.Errorf("--in %s: %s has shape %v, but tensor %s is %s", name, path, arr.Shape, name, sym.ShapeString())
	}
	return Input{Name: name, Values: arr.ValuesAs(sym.DType)}, nil
}

// Exec runs prog functionally on chip with the given inputs and returns the
// final machine state.
func Exec(chip *config.Chip, prog *exe.Program, inputs []Input, opt ref.Options) (*ref.Machine, error) {
	m, err := ref.New(chip, prog)
	if err != nil {
		return nil, err
	}
	for _, in := range inputs {
		if err := m.WriteTensor(in.Name, in.Values); err != nil {
			return nil, err
		}
	}
	return m, m.Run(opt)
}

// WriteNPY writes a tensor of a finished machine as a .npy file.
func WriteNPY(m *ref.Machine, name, path string) error {
	vals, sym, err := m.ReadTensor(name)
	if err != nil {
		return err
	}
	shape := make([]int, len(sym.Shape))
	for i, d := range sym.Shape {
		shape[i] = int(d)
	}
	return os.WriteFile(path, npy.Write(sym.DType, shape, vals), 0o644)
}
