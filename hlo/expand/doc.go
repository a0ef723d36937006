// Package expand defines ops by their expansion into simpler HLO: the
// custom calls of other backends (cuBLAS gemms, cuDNN convolutions, CUB
// sorts, top-k), complex numbers and FFTs, the erf family, random number
// generators, Cholesky and triangular solves, batch norms, scaled and
// ragged dots, stochastic converts, ragged all-to-all on one device.
//
// Both the reference evaluator (hlo/eval) and the chip compiler
// (lowering) use these expansions, so an op has one meaning in Pulse. The
// choices only the chip needs (how a sort or a reduce window runs on its
// units) are lowering/legalize's.
package expand
