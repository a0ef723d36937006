package stablehlo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/stretchr/testify/require"
)

func TestReadAndEvaluate(t *testing.T) {
	src := `module @jit_f {
  func.func public @main() -> (tensor<2x2xf32>) {
    %0:2 = call @inputs() : () -> (tensor<2x2xf32>, tensor<2xf32>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.add %0#0, %1 : tensor<2x2xf32>
    %cst = stablehlo.constant dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf32>
    stablehlo.custom_call @check.expect_eq(%2, %cst) {has_side_effect = true} : (tensor<2x2xf32>, tensor<2x2xf32>) -> ()
    return %2 : tensor<2x2xf32>
  }
  func.func private @inputs() -> (tensor<2x2xf32>, tensor<2xf32>) {
    %a = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<2x2xf32>
    %b = stablehlo.constant dense<2.0> : tensor<2xf32>
    return %a, %b : tensor<2x2xf32>, tensor<2xf32>
  }
}`
	r, err := Read("t.mlir", []byte(src))
	require.NoError(t, err)
	vals, err := Evaluate(r)
	require.NoError(t, err)
	require.Equal(t, []float64{3, 4, 5, 6}, vals[0].Data)
	require.NoError(t, CheckAll(r, vals))
	// The instructions point at their MLIR lines.
	for _, in := range r.Module.Entry.Instructions {
		if in.Opcode == hlo.OpAdd {
			require.Equal(t, 5, in.Pos.Line)
		}
	}
	// A wrong expectation fails with the element.
	bad := strings.Replace(src, "[[3.0, 4.0]", "[[3.0, 4.5]", 1)
	r, err = Read("t.mlir", []byte(bad))
	require.NoError(t, err)
	vals, err = Evaluate(r)
	require.NoError(t, err)
	require.ErrorContains(t, CheckAll(r, vals), "element 1 is 4, expected 4.5")
}

// What has no counterpart is a positioned error naming it.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ src, msg string }{
		{"func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}", "1:21: dynamic dimensions"},
		{"func.func @main(%a: tensor<2xcomplex<f16>>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}", "1:21: complex<f16> is not supported"},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.fft %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}", "t.mlir:2:3: stablehlo.fft needs a type and a length"},
		{"func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {\n  %0 = stablehlo.cholesky %a : tensor<2x2xf32>\n  return %0 : tensor<2x2xf32>\n}", "t.mlir:2:3: unsupported operation stablehlo.cholesky"},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}", "%b is not defined"},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a : tensor<2xf32>\n", "end of file"},
		// Issue 44, 3: i8 300 wrapped to 44.
		{"func.func @main() -> tensor<3xi8> {\n  %c = stablehlo.constant dense<[300, 1, 2]> : tensor<3xi8>\n  return %c : tensor<3xi8>\n}", "t.mlir:2:34: 300 is out of range for s8 (-128..127)"},
		{"func.func @main() -> tensor<2xui8> {\n  %c = stablehlo.constant dense<-1> : tensor<2xui8>\n  return %c : tensor<2xui8>\n}", "t.mlir:2:33: -1 is out of range for u8"},
		// Issue 44, 14: a negative dimension reached the translated HLO's
		// parser as an internal error; a NUL byte was at 0:0; a return of
		// the wrong type was accepted; a non-ASCII name showed its first byte.
		{"func.func @main(%a: tensor<-3xf32>) -> tensor<-3xf32> {\n  return %a : tensor<-3xf32>\n}", "t.mlir:1:21: negative dimension -3 in tensor<-3xf32>"},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %a : tensor<2xf32>\x00\n  return %0 : tensor<2xf32>\n}", `t.mlir:2:40: unexpected character '\x00'`},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  return %a : tensor<2xf32>\n}", "t.mlir:2:10: return value 0 (%a) is f32[2]; @main declares f32[3]"},
		{"func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n  return %a : tensor<2xf32>\n}", "t.mlir:2:10: return gives 1 values; @main declares 2 results"},
		{"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %\u00e4 : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}", "t.mlir:2:23: unexpected character 'ä'"},
		// Shardy (issue 42): a truncated mesh; a shard_map whose body
		// begins with its return, and that lacks out_shardings.
		{"module @m {\n sdy.mesh @mesh = <[\"x\"=4\n", "t.mlir:2:19: sdy.mesh: unterminated <...>"},
		{"module @m {\n sdy.mesh @mesh = <[\"x\"=4]>\n func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{\"x\"}]>] manual_axes={\"x\"} (%b: tensor<2xf32>) {\n   sdy.return %b : tensor<2xf32>\n  } : (tensor<8xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n }\n}",
			"t.mlir:4:3: sdy.manual_computation wants in_shardings, out_shardings and manual_axes"},
		{"garbage", "expected func.func"},
		{"", "no func.func"},
	} {
		_, err := Read("t.mlir", []byte(c.src))
		require.Error(t, err, c.src)
		require.Contains(t, err.Error(), c.msg, c.src)
		require.Contains(t, err.Error(), "t.mlir:", c.src)
	}
}

func TestDenseForms(t *testing.T) {
	for _, c := range []struct {
		toks  []token
		shape string
		want  string
	}{
		{[]token{{kind: tNumber, text: "1.5"}}, "f32[2,2]", "1.5"}, // a splat stays one value
		{[]token{{kind: tString, text: "0x003C"}}, "f16[]", "1"},
		{[]token{{kind: tString, text: "0x803F"}}, "bf16[]", "1"},
		{[]token{{kind: tNumber, text: "0xFF800000"}}, "f32[]", "-inf"},
		{[]token{{kind: tIdent, text: "true"}}, "pred[2]", "true"},
		{[]token{{kind: tString, text: "0xFFFF0100"}}, "s16[2]", "{-1, 1}"},
	} {
		got, err := denseLiteral(c.toks, c.shape)
		require.NoError(t, err)
		require.Equal(t, c.want, got, c.shape)
	}
}

var _ = hlo.Pos{}

// Interpreter-test style files: modules split at "// -----", the check
// dialect's own ops, _const forms; and a wrong constant fails.
func TestInterpreterStyle(t *testing.T) {
	o := TestFile("testdata/interpret_style.mlir", nil)
	require.Equal(t, Pass, o.Status, o.Message)
	src, err := os.ReadFile("testdata/interpret_style.mlir")
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "bad.mlir")
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(string(src), "[0, 5, 0, -9]", "[0, 5, 1, -9]", 1)), 0o644))
	o = TestFile(bad, nil)
	require.Equal(t, Fail, o.Status)
	require.Contains(t, o.Message, "line 9: check.expect_eq_const: element 2 is 0, expected 1")
}

func TestTruncatedInput(t *testing.T) {
	_, err := Read("t.mlir", []byte("func.func @main(%a: tensor<2xf32>) -> (tensor<2x"))
	require.ErrorContains(t, err, "t.mlir:1:")
	_, err = Read("t.mlir", []byte("func.func @main(%a: "))
	require.ErrorContains(t, err, "unexpected end of file")
	require.Equal(t, ErrorStatus, classify(err))
}

// TestHugeSplat: a splat constant stays one value in the translated HLO
// (issue 44, 5: dense<1.0> : tensor<100000x100000xf32> was written out
// element by element and ran the reader out of memory); the budgets of
// the evaluator and the compiler then see its shape.
func TestHugeSplat(t *testing.T) {
	src := "func.func @main() -> tensor<100000x100000xf32> {\n  %c = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>\n  return %c : tensor<100000x100000xf32>\n}"
	m, err := Read("t.mlir", []byte(src))
	require.NoError(t, err)
	var lit string
	for _, in := range m.Module.Entry.Instructions {
		if in.Opcode == hlo.OpConstant {
			lit = in.Literal
		}
	}
	require.Equal(t, "1.0", lit)
	_, err = (&eval.Evaluator{File: "t.mlir", M: m.Module}).Run(nil)
	require.ErrorContains(t, err, "the host evaluator stops here")
}

// chlo.square, which JAX 0.11 writes for x**2 in norms and variances, is
// x * x.
func TestCHLOSquare(t *testing.T) {
	src := `module @jit_f {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
    %0 = chlo.square %arg0 : tensor<3xf32> -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}`
	r, err := Read("sq.mlir", []byte(src))
	require.NoError(t, err)
	require.Contains(t, r.Module.String(), "multiply(")
	m, err := ParseFile("sq.mlir", []byte(src))
	require.NoError(t, err)
	require.NotNil(t, m.Entry)
}

// The debug-info form (as_text(debug_info=True)): loc(...) on every
// operation, argument, function and the module, and #loc aliases around
// it, read as if they were not there; positions stay the file's lines.
func TestDebugLocations(t *testing.T) {
	src := `#loc = loc(unknown)
#loc1 = loc("/tmp/x.py":3:0)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> loc("x")) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32> loc(#loc3)
    %1 = chlo.square %0 : tensor<3xf32> -> tensor<3xf32> loc(callsite(#loc1 at #loc2))
    return %1 : tensor<3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("/tmp/x.py":5:0)
#loc3 = loc("jit(f)/mul"(#loc2))
`
	r, err := Read("dbg.mlir", []byte(src))
	require.NoError(t, err)
	for _, in := range r.Module.Entry.Instructions {
		if in.Opcode == hlo.OpMultiply && len(in.Operands) == 2 && in.Operands[0].Name == in.Operands[1].Name {
			require.Contains(t, []int{5, 6}, in.Pos.Line)
		}
	}
}

// Each operation's location becomes its instruction's metadata, as XLA's
// translation makes it: the op name from the name locations (JAX nests
// its name stack: "dot_general"("jit(f)"(...)) is jit(f)/dot_general),
// the file and line of the innermost frame of a call site (the user's
// line), the first fused location that names a file. Column ranges
// ("to :25", MLIR's FileLineColRange) and escapes in file names are read.
func TestDebugLocationSources(t *testing.T) {
	src := `#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> loc("x"), %arg1: tensor<16x4xf32> loc("w")) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32> loc(#loc8)
    %1 = stablehlo.tanh %0 : tensor<8x4xf32> loc(#loc9)
    %2 = chlo.square %1 : tensor<8x4xf32> -> tensor<8x4xf32> loc(#loc12)
    %3 = stablehlo.negate %2 : tensor<8x4xf32> loc(#loc13)
    %4 = stablehlo.abs %3 : tensor<8x4xf32> loc(unknown)
    %5 = stablehlo.exponential %4 : tensor<8x4xf32> loc(#loc14)
    return %5 : tensor<8x4xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/home/u/model.py":12:10 to :25)
#loc3 = loc("/home/u/model.py":20:0)
#loc4 = loc("layer"(#loc2))
#loc5 = loc("<module>"(#loc3))
#loc6 = loc(callsite(#loc4 at #loc5))
#loc7 = loc("jit(f)"(#loc6))
#loc8 = loc("dot_general"(#loc7))
#loc9 = loc("jit(f)/jit(main)/tanh"(callsite("layer"("/home/u/model.py":13:9 to 14:2) at #loc5)))
#loc10 = loc("/home/u/my\22model.py":14:11)
#loc11 = loc("square"(#loc10))
#loc12 = loc(fused[#loc1, #loc11, #loc3])
#loc13 = loc("neg"(#loc1))
#loc14 = loc("loop"(#loc15))
#loc15 = loc("again"(#loc14))
`
	r, err := Read("dbg.mlir", []byte(src))
	require.NoError(t, err)
	got := map[string]hlo.Source{}
	for _, in := range r.Module.Entry.Instructions {
		if s, ok := hlo.SourceOf(in); ok {
			s2 := hlo.ParseMetadata(mustAttr(t, in, "metadata"))
			require.Equal(t, s, s2)
			got[in.Opcode] = s
		}
	}
	require.Equal(t, map[string]hlo.Source{
		hlo.OpDot:      {File: "/home/u/model.py", Line: 12, OpName: "jit(f)/dot_general"},
		hlo.OpTanh:     {File: "/home/u/model.py", Line: 13, OpName: "jit(f)/jit(main)/tanh"},
		hlo.OpMultiply: {File: "/home/u/my\"model.py", Line: 14, OpName: "square"},
	}, got, "negate names no file, abs is unknown, exponential's aliases form a cycle")
}

// Aliases fused into each other double the locations at each level: a
// budget keeps resolving them linear (60 levels, 3^60 paths unbounded).
func TestDebugLocationBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("module @m {\n  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {\n")
	b.WriteString("    %0 = stablehlo.negate %arg0 : tensor<3xf32> loc(#loc0)\n    return %0 : tensor<3xf32>\n  }\n}\n")
	for i := range 60 {
		fmt.Fprintf(&b, "#loc%d = loc(fused[#loc%d, #loc%d, #loc%d])\n", i, i+1, i+1, i+1)
	}
	b.WriteString("#loc60 = loc(\"a.py\":1:1)\n")
	done := make(chan error, 1)
	go func() {
		_, err := Read("bomb.mlir", []byte(b.String()))
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("resolving the locations did not end")
	}
}

func mustAttr(t *testing.T, in *hlo.Instruction, key string) string {
	t.Helper()
	v, ok := in.Attr(key)
	require.True(t, ok, key)
	return v
}

// An optimization barrier over several values (jax.checkpoint's, around
// a scan body's weights) gives each its own result, %r#i; two sibling
// loop bodies may reuse a name for it (llama_1b_train_step_adamw_fsdp8's
// export read "%470#1 is not defined before its use").
func TestOptimizationBarrierOfSeveral(t *testing.T) {
	src := `module @m {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>) {
    %0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2xf32>, tensor<3xf32>
    %1 = stablehlo.add %0#1, %0#1 : tensor<3xf32>
    %2 = stablehlo.optimization_barrier %1 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}`
	r, err := Read("ob.mlir", []byte(src))
	require.NoError(t, err)
	ev := &eval.Evaluator{File: "ob.mlir", M: r.Module}
	v, err := ev.Run([]*eval.Value{eval.Array("f32", []int64{2}, 1, 2), eval.Array("f32", []int64{3}, 3, 4, 5)})
	require.NoError(t, err)
	if v.Tuple != nil {
		v = v.Tuple[0]
	}
	require.Equal(t, []float64{6, 8, 10}, v.Data)
}
