package lowering

// SetRegisterReach lowers the byte offset the lowering assumes a scalar
// register can hold, so that small arrays take the paths of huge ones; the
// returned function restores it.
func SetRegisterReach(n int64) (restore func()) {
	old := registerReach
	registerReach = n
	return func() { registerReach = old }
}
