package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"math/bits"
)

// Random numbers. rng is what expand.ExpandRngs makes of it (evalrngop.go),
// drawing from the state rng-get-and-update-state hands out: key
// Evaluator.Seed, a counter from 0; rng-bit-generator is a
// pure function of its state operand: Philox-4x32-10 (rng_default,
// rng_philox) or Threefry-2x32-20 (rng_three_fry), keyed by the state's
// first word and counting from its second, as XLA does. The bit order of
// XLA's own implementation has not been checked against XLA (there is no
// XLA on this machine); what holds is that the same state gives the same
// bits on every run.

func philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	const m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
	for r := 0; r < 10; r++ {
		if r > 0 {
			key[0] += w0
			key[1] += w1
		}
		hi0, lo0 := bits.Mul32(m0, ctr[0])
		hi1, lo1 := bits.Mul32(m1, ctr[2])
		ctr = [4]uint32{hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0}
	}
	return ctr
}

func threefry2x32(ctr [2]uint32, key [2]uint32) [2]uint32 {
	rot := [8]int{13, 15, 26, 6, 17, 29, 16, 24}
	ks := [3]uint32{key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]}
	x0, x1 := ctr[0]+ks[0], ctr[1]+ks[1]
	for r := 0; r < 20; r++ {
		x0 += x1
		x1 = bits.RotateLeft32(x1, rot[r%8])
		x1 ^= x0
		if r%4 == 3 {
			s := uint32(r/4 + 1)
			x0 += ks[s%3]
			x1 += ks[(s+1)%3] + s
		}
	}
	return [2]uint32{x0, x1}
}

// rngBitGenerator returns (new state, bits) for rng-bit-generator.
func (e *Evaluator) rngBitGenerator(in *hlo.Instruction, ops []*Value) (*Value, error) {
	s := in.Shape
	if !s.IsTuple || len(s.Tuple) != 2 || len(ops) != 1 || len(ops[0].Data) < 2 {
		return nil, e.Fail(in, "takes a u64 state of at least 2 words and returns (state, bits)")
	}
	alg, _ := in.Attr("algorithm")
	state := ops[0]
	key := scalar.Bits(state.Shape.Elem, state.Data[0])
	counter := scalar.Bits(state.Shape.Elem, state.Data[1])
	out := NewArray(s.Tuple[1])
	width := hlo.ElemBits(out.Shape.Elem)
	if width != 8 && width != 16 && width != 32 && width != 64 {
		return nil, e.Fail(in, "bits of %s", out.Shape.Elem)
	}
	k := [2]uint32{uint32(key), uint32(key >> 32)}
	// A stream of 32-bit words, one block per counter value.
	var buf []uint32
	next := func() uint32 {
		if len(buf) == 0 {
			switch alg {
			case "rng_three_fry":
				b := threefry2x32([2]uint32{uint32(counter), uint32(counter >> 32)}, k)
				buf = b[:]
			case "rng_default", "rng_philox", "":
				b := philox4x32([4]uint32{uint32(counter), uint32(counter >> 32), 0, 0}, k)
				buf = b[:]
			default:
				return 0
			}
			counter++
		}
		w := buf[0]
		buf = buf[1:]
		return w
	}
	if alg != "rng_three_fry" && alg != "rng_default" && alg != "rng_philox" && alg != "" {
		return nil, e.Fail(in, "unknown algorithm %q", alg)
	}
	for i := range out.Data {
		var b uint64
		if width == 64 {
			b = uint64(next()) | uint64(next())<<32
		} else {
			b = uint64(next())
		}
		out.Data[i] = scalar.FromBits(out.Shape.Elem, b)
	}
	ns := &Value{Shape: s.Tuple[0], Data: append([]float64{}, state.Data...)}
	ns.Data[1] = scalar.FromBits(state.Shape.Elem, counter)
	return &Value{Shape: s, Tuple: []*Value{ns, out}}, nil
}
