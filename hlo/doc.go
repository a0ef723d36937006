// Package hlo is Pulse's HLO intermediate representation: modules,
// computations, instructions and shapes; the text XLA, JAX, TensorFlow and
// PyTorch/XLA dump, read by a lexer and parser with positions on every
// node and positioned errors, and printed so that the output parses back
// to the same module (the grammar is ../shared/reference/hlo-text.md,
// after XLA's hlo_parser.cc); typed accessors for attributes (windows,
// convolution, dot and ragged-dot dimension numbers, replica groups), the
// element-type predicates and the opcode sets.
//
// Jobs built on it live in packages of their own: hlo/verify (shape
// inference and checks), hlo/analysis (costs, trip counts), hlo/rewrite (the
// rewrite builder), hlo/expand (ops defined by their expansion),
// hlo/fusion (kernels and their order), hlo/eval (the reference
// evaluator), hlo/stablehlo (StableHLO text in). The chip compiler's own
// passes are lowering/legalize's. docs/architecture.md draws the graph;
// deps_test.go enforces it.
package hlo
