// Package check judges a compiled program's outputs against the reference
// evaluator's (pulse simulate --check): per element-type tolerances
// (Compare), and for outputs that rounding decides, the noise a perturbed
// reference run measures (Check, docs/RATIONALE.md "Checking what rounding
// decides").
package check
