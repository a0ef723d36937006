package ref

import (
	"fmt"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/isa"
)

func symView(s *exe.Symbol) view {
	l := &isa.Layout{Space: s.Space, DType: s.DType, Rank: uint8(len(s.Shape))}
	copy(l.Shape[:], s.Shape)
	l.SetRowMajor()
	return view{l, int64(s.Addr)}
}

// ReadTensor returns a named tensor's values (row-major). Bytes never
// written read as zero.
func (m *Machine) ReadTensor(name string) ([]float64, *exe.Symbol, error) {
	return m.ReadTensorAs(name, isa.DTypeInvalid)
}

// ReadTensorAs reads a named tensor's bytes as values of dtype dt, which
// must have the tensor's element size (a bitcast); DTypeInvalid reads the
// tensor's own dtype.
func (m *Machine) ReadTensorAs(name string, dt isa.DType) ([]float64, *exe.Symbol, error) {
	s, ok := m.Prog.Symbol(name)
	if !ok {
		return nil, nil, fmt.Errorf("no tensor named %q (tensors: %s)", name, m.tensorNames())
	}
	if dt == isa.DTypeInvalid {
		dt = s.DType
	}
	if dt.Size() != s.DType.Size() {
		return nil, nil, fmt.Errorf("tensor %s is %s: cannot read it as %s", name, s.DType, dt)
	}
	b := make([]byte, s.Bytes())
	m.Mem[s.Space].Read(int64(s.Addr), b)
	out := make([]float64, s.Elems())
	for i := range out {
		out[i] = isa.LoadElem(dt, b[i*dt.Size():])
	}
	return out, s, nil
}

// WriteTensor stores values into a named tensor, rounding them to its dtype.
func (m *Machine) WriteTensor(name string, vals []float64) error {
	s, ok := m.Prog.Symbol(name)
	if !ok {
		return fmt.Errorf("no tensor named %q (tensors: %s)", name, m.tensorNames())
	}
	if int64(len(vals)) != s.Elems() {
		return fmt.Errorf("tensor %s is %s (%d elements), got %d values", name, s.ShapeString(), s.Elems(), len(vals))
	}
	m.write(symView(s), vals)
	return nil
}

func (m *Machine) tensorNames() string {
	if len(m.Prog.Symbols) == 0 {
		return "none"
	}
	s := ""
	for i, sym := range m.Prog.Symbols {
		if i > 0 {
			s += ", "
		}
		s += sym.Name
	}
	return s
}

// WriteAt stores values of dtype dt, row-major, at addr of space sp (the
// runtime's infeed records in host memory).
func (m *Machine) WriteAt(sp isa.Space, addr int64, dt isa.DType, vals []float64) error {
	n := int64(len(vals)) * int64(dt.Size())
	if addr < 0 || addr+n > m.Mem[sp].Size {
		return fmt.Errorf("%d bytes at %s 0x%x do not fit in %s (%d bytes)", n, sp, addr, sp, m.Mem[sp].Size)
	}
	b := make([]byte, n)
	for i, x := range vals {
		isa.StoreElem(dt, b[i*dt.Size():], x)
	}
	m.Mem[sp].Write(addr, b)
	return nil
}

// ReadAt reads n values of dtype dt at addr of space sp (the runtime's
// outfeed records in host memory).
func (m *Machine) ReadAt(sp isa.Space, addr int64, dt isa.DType, n int64) ([]float64, error) {
	if addr < 0 || addr+n*int64(dt.Size()) > m.Mem[sp].Size {
		return nil, fmt.Errorf("%d values of %s at %s 0x%x are outside %s (%d bytes)", n, dt, sp, addr, sp, m.Mem[sp].Size)
	}
	b := make([]byte, n*int64(dt.Size()))
	m.Mem[sp].Read(addr, b)
	out := make([]float64, n)
	for i := range out {
		out[i] = isa.LoadElem(dt, b[i*dt.Size():])
	}
	return out, nil
}
