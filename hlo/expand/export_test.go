package expand

// SetTEScoreBytes sets the score budget of a fused attention's blocks and
// returns a function that restores it.
func SetTEScoreBytes(n int64) (restore func()) {
	old := teScoreBytes
	teScoreBytes = n
	return func() { teScoreBytes = old }
}
