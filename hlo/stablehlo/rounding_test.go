package stablehlo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRoundingStatus: a close check that fails by what rounding alone
// decides ((1e8 + 1) - 1e8 is 0 in f32, 1 exactly: rounding moves it by
// 8) is reported as within rounding noise, not as a pass or a failure; a
// wrong expectation on a well-conditioned value (2x for 3x) still fails,
// and so does an exact check, whatever the noise.
func TestRoundingStatus(t *testing.T) {
	module := func(check, computed, expected string) string {
		return `module @jit_f {
  func.func public @main() -> (tensor<2xf32>) {
    %a = stablehlo.constant dense<[1.0e8, 3.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
    %s = stablehlo.add %a, %b : tensor<2xf32>
    %d = stablehlo.subtract %s, %a : tensor<2xf32>
    %two = stablehlo.constant dense<2.0> : tensor<2xf32>
    %m = stablehlo.multiply %` + computed + `, %two : tensor<2xf32>
    %e = stablehlo.constant dense<` + expected + `> : tensor<2xf32>
    stablehlo.custom_call @check.` + check + `(%m, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %m : tensor<2xf32>
  }
}`
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, src, status, msg string }{
		{"cancellation", module("expect_close", "d", "[2.0, 2.0]"), Rounding, "element 0 is 0, expected 2; within rounding noise"},
		{"wrong value", module("expect_close", "a", "[2.0e8, 9.0]"), Fail, "element 1 is 6, expected 9"},
		{"exact check", module("expect_eq", "d", "[2.0, 2.0]"), Fail, "element 0 is 0, expected 2"},
		{"exact pass", module("expect_close", "b", "[2.0, 2.0]"), Pass, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".mlir")
			require.NoError(t, os.WriteFile(path, []byte(c.src), 0o644))
			o := TestFile(path, nil)
			require.Equal(t, c.status, o.Status, o.Message)
			require.Contains(t, o.Message, c.msg)
			if c.status == Fail {
				require.NotContains(t, o.Message, "rounding noise")
			}
		})
	}
}
