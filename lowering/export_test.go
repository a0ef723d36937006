package lowering

// SetRegisterReach lowers the byte offset the lowering assumes a scalar
// register can hold, so that small arrays take the paths of huge ones; the
// returned function restores it.
func SetRegisterReach(n int64) (restore func()) {
	old := registerReach
	registerReach = n
	return func() { registerReach = old }
}

// SetMaxLhsRuns sets how many runs of lhs free dims a dot may walk as
// batches before its lhs is transposed; the returned function restores it.
func SetMaxLhsRuns(n int64) (restore func()) {
	old := maxLhsRuns
	maxLhsRuns = n
	return func() { maxLhsRuns = old }
}

// SetMaxRowPasses lowers the passes a loop kernel may walk over its rows,
// so that small arrays take the paths of a 128K vocabulary's; the returned
// function restores it.
func SetMaxRowPasses(n int) (restore func()) {
	old := maxRowPasses
	maxRowPasses = n
	return func() { maxRowPasses = old }
}
