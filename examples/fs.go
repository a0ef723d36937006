// Package examples holds the example kernels (in kernels/), embedded so
// that tools shipped in the binary (the bench suites) can run them from
// any directory.
package examples

import "embed"

// Kernels holds kernels/*.s (not the included fragments under kernels/gemm).
//
//go:embed kernels/*.s
var Kernels embed.FS
