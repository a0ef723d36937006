// Package spmd evaluates a module on several devices at once, as XLA's
// SPMD programs run: one reference evaluator (hlo/eval) per device on a
// goroutine of its own, each with a Device that meets the others at every
// collective and passes sends to recvs through a shared fabric, in the
// order NCCL matches them. Exchange gives a collective's results for the
// interconnect model (ici), which times what this package computes.
package spmd
