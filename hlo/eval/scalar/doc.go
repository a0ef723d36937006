// Package scalar is the arithmetic of one HLO element: bit patterns of
// every element type and back, conversions with XLA's saturation and
// wrapping, rounding to a type, 64-bit integers carried as bits, and the
// special functions XLA defines by formula (erf-inv in f64, digamma,
// bessel-i1e, next-after, reduce-precision, total order). The evaluator
// applies it element by element; it knows nothing of arrays or modules.
package scalar
