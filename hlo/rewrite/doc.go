// Package rewrite builds the rewrites of HLO modules that expansions and
// compiler passes make: a Rewriter replaces one instruction by a sequence
// of simpler ones. Every new instruction keeps the replaced one's
// position, so errors and the debug map point at it, is named
// "name.op.N", and the last takes the replaced instruction's name.
//
// Packages that add steps of their own (hlo/expand, the compiler's
// legalisation passes) embed *Rewriter in a local type and add methods to
// it there.
package rewrite
