package ref

import (
	"encoding/binary"

	"github.com/pulse-sim/pulse/isa"
)

// ALU computes a scalar ALU function on 32-bit operands.
func ALU(fn uint8, a, b uint32) uint32 {
	sa, sb := int32(a), int32(b)
	switch fn {
	case isa.AluAdd:
		return a + b
	case isa.AluSub:
		return a - b
	case isa.AluMul:
		return a * b
	case isa.AluAnd:
		return a & b
	case isa.AluOr:
		return a | b
	case isa.AluXor:
		return a ^ b
	case isa.AluShl:
		return a << (b & 31)
	case isa.AluShr:
		return a >> (b & 31)
	case isa.AluSra:
		return uint32(sa >> (b & 31))
	case isa.AluMin:
		return uint32(min(sa, sb))
	case isa.AluMax:
		return uint32(max(sa, sb))
	case isa.AluSlt:
		return b2u(sa < sb)
	case isa.AluSltu:
		return b2u(a < b)
	case isa.AluSeq:
		return b2u(a == b)
	case isa.AluSne:
		return b2u(a != b)
	}
	return 0
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Branch evaluates a branch condition.
func Branch(fn uint8, a, b uint32) bool {
	switch fn {
	case isa.BrEq:
		return a == b
	case isa.BrNe:
		return a != b
	case isa.BrLt:
		return int32(a) < int32(b)
	case isa.BrGe:
		return int32(a) >= int32(b)
	case isa.BrLtu:
		return a < b
	case isa.BrGeu:
		return a >= b
	}
	return false
}

func (m *Machine) setReg(r uint8, v uint32) {
	if r != 0 {
		m.Regs[r] = v
		m.wrapped[r] = 0
	}
}

// aluWraps tells whether a scalar add, subtract or multiply of a and b
// leaves the signed 32-bit range (the result kept is its low 32 bits).
func aluWraps(fn uint8, a, b uint32) bool {
	x, y := int64(int32(a)), int64(int32(b))
	var exact int64
	switch fn {
	case isa.AluAdd:
		exact = x + y
	case isa.AluSub:
		exact = x - y
	case isa.AluMul:
		exact = x * y
	default:
		return false
	}
	return exact != int64(int32(exact))
}

func (m *Machine) smemAddr(in *isa.Inst) (int64, error) {
	if err := m.checkBaseReg(in.Rs1); err != nil {
		return 0, err
	}
	addr := int64(int32(m.Regs[in.Rs1])) + int64(in.Imm) // signed, as a tile base
	if addr%4 != 0 {
		return addr, addrErr(addr, "smem address 0x%x is not 4-byte aligned", addr)
	}
	if addr < 0 || addr+4 > m.Mem[isa.SMEM].Size {
		return addr, addrErr(addr, "smem address 0x%x outside smem (%d bytes)", addr, m.Mem[isa.SMEM].Size)
	}
	return addr, nil
}

// stepScalar executes or dispatches the instruction at PC. It returns false
// without changing state when the sequencer is blocked.
func (m *Machine) stepScalar() (bool, error) {
	if m.PC < 0 || m.PC >= len(m.Prog.Code) {
		return false, m.RunOffEnd()
	}
	pc := m.PC
	in := &m.Prog.Code[pc]
	info := in.Op.Info()
	next := pc + 1
	switch {
	case info.Unit != isa.UnitScalar:
		if err := m.dispatch(pc, in); err != nil {
			return false, fault(m.Prog, pc, "scalar", err)
		}
	case info.Code == isa.CodeWait:
		if m.Sems[in.Sem] < uint32(in.Imm) {
			return false, nil
		}
		m.Sems[in.Sem] -= uint32(in.Imm)
	case info.Code == isa.CodeBarrier:
		if !m.drained() {
			return false, nil
		}
	case info.Code == isa.CodeHalt:
		m.Halted = true
	default:
		var err error
		if next, err = m.ExecScalar(pc); err != nil {
			return false, err
		}
	}
	m.PC = next
	m.Steps++
	if info.Unit == isa.UnitScalar {
		m.Retired++ // unit instructions retire when their unit executes them
	}
	return true, nil
}

// RunOffEnd is the fault of a sequencer that fell through the last instruction.
func (m *Machine) RunOffEnd() error {
	// Branch targets are checked at load, so only falling through the last
	// instruction gets here: blame it.
	return fault(m.Prog, len(m.Prog.Code)-1, "scalar", errf("execution ran off the end of the code after the last instruction; is a halt missing?"))
}

// ExecScalar applies a scalar instruction that never blocks (everything the
// sequencer executes itself except wait, barrier and halt) and returns the
// next pc. Errors are *Fault.
func (m *Machine) ExecScalar(pc int) (int, error) {
	in := &m.Prog.Code[pc]
	info := in.Op.Info()
	next := pc + 1
	r1, r2 := m.Regs[in.Rs1], m.Regs[in.Rs2]
	switch info.Format {
	case isa.FmtRRR:
		m.setReg(in.Rd, ALU(info.Func, r1, r2))
		if in.Rd != 0 && aluWraps(info.Func, r1, r2) {
			m.wrapped[in.Rd] = pc + 1
		}
	case isa.FmtRRI:
		m.setReg(in.Rd, ALU(info.Func, r1, uint32(in.Imm)))
		if in.Rd != 0 && aluWraps(info.Func, r1, uint32(in.Imm)) {
			m.wrapped[in.Rd] = pc + 1
		}
	case isa.FmtRI: // li
		m.setReg(in.Rd, uint32(in.Imm))
	case isa.FmtBranch:
		if Branch(info.Func, r1, r2) {
			next = int(in.Imm)
		}
	case isa.FmtJump:
		next = int(in.Imm)
	case isa.FmtLoop:
		v := m.Regs[in.Rd] - 1
		m.setReg(in.Rd, v)
		if v != 0 {
			next = int(in.Imm)
		}
	case isa.FmtLoad:
		addr, err := m.smemAddr(in)
		if err != nil {
			return 0, fault(m.Prog, pc, "scalar", err)
		}
		var b [4]byte
		m.Mem[isa.SMEM].Read(addr, b[:])
		m.setReg(in.Rd, binary.LittleEndian.Uint32(b[:]))
	case isa.FmtStore:
		addr, err := m.smemAddr(in)
		if err != nil {
			return 0, fault(m.Prog, pc, "scalar", err)
		}
		m.Mem[isa.SMEM].Write(addr, binary.LittleEndian.AppendUint32(nil, r2))
	case isa.FmtSemImm:
		switch info.Code {
		case isa.CodeSignal:
			if err := m.signal(in.Sem, uint32(in.Imm)); err != nil {
				return 0, fault(m.Prog, pc, "scalar", err)
			}
		case isa.CodeSemSet:
			m.Sems[in.Sem] = uint32(in.Imm)
		}
	}
	return next, nil
}
