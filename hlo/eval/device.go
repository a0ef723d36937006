package eval

import "github.com/pulse-sim/pulse/hlo"

// A Device is an evaluator's place among several devices evaluating one
// module together, exchanging values through its collectives, sends and
// recvs (hlo/eval/spmd gives one to each device's evaluator). An evaluator
// without one is the only device: its collectives are over itself.
type Device interface {
	// ID is the device's replica and partition.
	ID() (replica, partition int)
	// Collective evaluates collective in (base: its opcode without -start)
	// with the other devices of its group; res is this device's result
	// shape, nil for the one the operands imply.
	Collective(e *Evaluator, in *hlo.Instruction, base string, ops []*Value, res *hlo.Shape) (*Value, error)
	// Transfer evaluates a send or a recv between devices (their -done
	// halves are the evaluator's).
	Transfer(e *Evaluator, in *hlo.Instruction, ops []*Value) (*Value, error)
}
