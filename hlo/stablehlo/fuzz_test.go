package stablehlo

import "testing"

// FuzzRead: any text is a module or a positioned error, never a panic or
// a hang.
func FuzzRead(f *testing.F) {
	f.Add([]byte("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"))
	f.Add([]byte("module @m {\n func.func public @main() -> tensor<i1> {\n %c = stablehlo.constant dense<false> : tensor<i1>\n return %c : tensor<i1>\n }\n}"))
	f.Add([]byte("%0:2 = stablehlo.while(%i = %a) : tensor<i32>\n cond {\n stablehlo.return %i : tensor<i32>\n } do {\n stablehlo.return %i : tensor<i32>\n }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		Read("f.mlir", src)
	})
}
