// Package eval is the reference evaluator of HLO modules: every op, on
// one device or on several exchanging values through their collectives,
// in float64 arrays rounded to each result's element type. It is the
// oracle the compiler is judged by (pulse simulate --check) and is itself
// judged against XLA's outputs (../shared/corpus/jax).
//
// It imports the IR (hlo), the op expansions it shares with the chips
// (hlo/expand) and the analyses (trip counts); never the compiler, its
// legalisation passes or fusion, so that it does not sit inside what it
// judges.
package eval
