package lowering

// sramLayout places a kernel's SRAM arrays one after another from address
// 0 (the sort and top-k kernels' plans), each 64-byte aligned and started
// a further 128-byte bank line on (count mod 32 lines): arrays of equal
// power-of-two sizes then begin in different banks. The bank model did
// not charge either kernel for the alignment when measured (argsort and
// top_k cycles unchanged), so it is a guard, not a gain.
type sramLayout struct{ end, count int64 }

// take reserves bytes and returns their address.
func (l *sramLayout) take(bytes int64) int64 {
	l.end += (l.count % 32) * 128
	l.count++
	a := l.end
	l.end += align64(bytes)
	return a
}

// regLayout places arrays in the vector registers one after another, each
// 64-byte aligned: the registers have no banks to spread over.
type regLayout struct{ end int64 }

// take reserves bytes and returns their address.
func (l *regLayout) take(bytes int64) int64 {
	a := l.end
	l.end += align64(bytes)
	return a
}
