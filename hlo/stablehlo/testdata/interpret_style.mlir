// Interpreter-test style (stablehlo/tests/interpret): several functions
// split at "// -----", the check dialect's own ops and _const forms.
// Written for Pulse; expected values computed by hand.

func.func @add_op_test_si64() {
  %0 = stablehlo.constant dense<[0, 1, 8, -9]> : tensor<4xi64>
  %1 = stablehlo.constant dense<[0, 4, -8, 0]> : tensor<4xi64>
  %2 = stablehlo.add %0, %1 : tensor<4xi64>
  check.expect_eq_const %2, dense<[0, 5, 0, -9]> : tensor<4xi64>
  func.return
}

// -----

func.func @tan_op_test_f32() {
  %0 = stablehlo.constant dense<[0.0, 0.5, -1.0]> : tensor<3xf32>
  %1 = chlo.tan %0 : tensor<3xf32> -> tensor<3xf32>
  check.expect_almost_eq_const %1, dense<[0.0, 0.54630249, -1.55740772]> : tensor<3xf32>
  func.return
}

// -----

func.func @max_reduce() {
  %0 = stablehlo.constant dense<[[1.0, 5.0, 2.0], [7.0, -1.0, 3.0]]> : tensor<2x3xf32>
  %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = stablehlo.reduce(%0 init: %1) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = stablehlo.constant dense<[5.0, 7.0]> : tensor<2xf32>
  check.expect_eq %2, %3 : tensor<2xf32>
  func.return
}

// -----

// A statement over several lines: a trailing comma or "=" continues it,
// and so does a type section starting the next line.
func.func @batched_dot_multiline() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]],
                                   [[0, 1], [1, 0]]]> : tensor<2x2x2xi32>
  %rhs = stablehlo.constant dense<[[[2, 0], [0, 2]],
                                   [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>
  %result = stablehlo.dot_general %lhs, %rhs,
    batching_dims = [0] x [0],
    contracting_dims = [2] x [1]
    : (tensor<2x2x2xi32>, tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
  check.expect_eq_const %result, dense<[[[2, 4], [6, 8]],
                                        [[7, 8], [5, 6]]]> : tensor<2x2x2xi32>
  func.return
}

// -----

// An op with results continues until its type section begins: operands,
// dimension numbers, window and attributes each on lines of their own.
func.func @convolution_multiline() {
  %lhs = stablehlo.constant dense<[[[[1], [2], [3]],
                                    [[4], [5], [6]],
                                    [[7], [8], [9]]]]> : tensor<1x3x3x1xi32>
  %rhs = stablehlo.constant dense<1> : tensor<2x2x1x1xi32>
  %result = stablehlo.convolution(%lhs, %rhs)
    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {
      stride = [1, 1]
    } {
      batch_group_count = 1 : i64,
      feature_group_count = 1 : i64
    }
  : (tensor<1x3x3x1xi32>, tensor<2x2x1x1xi32>) -> tensor<1x2x2x1xi32>
  check.expect_eq_const %result, dense<[[[[12], [16]], [[24], [28]]]]> : tensor<1x2x2x1xi32>
  func.return
}

// -----

// Batching dims (jax.vmap of indexing): each batch picks from its own row.
func.func @gather_scatter_batching_dims() {
  %op = stablehlo.constant dense<[[10, 11, 12], [20, 21, 22]]> : tensor<2x3xi32>
  %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %g = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<2x3xi32>, tensor<2x1xi32>) -> tensor<2xi32>
  check.expect_eq_const %g, dense<[12, 20]> : tensor<2xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3xi32>
  %upd = stablehlo.constant dense<[5, 7]> : tensor<2xi32>
  %sidx = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %s = "stablehlo.scatter"(%zero, %sidx, %upd) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      stablehlo.return %b : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [],
      inserted_window_dims = [1],
      input_batching_dims = [0],
      scatter_indices_batching_dims = [0],
      scatter_dims_to_operand_dims = [1],
      index_vector_dim = 1>
  } : (tensor<2x3xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %s, dense<[[0, 5, 0], [0, 0, 7]]> : tensor<2x3xi32>
  func.return
}

// -----

// A variadic reduce in the generic form: the region's arguments are in
// HLO's order (the accumulators, then the elements). An argmin, ties to
// the lower index.
func.func @reduce_generic_argmin() {
  %v = stablehlo.constant dense<[3.0, 1.0, 2.0, 1.0]> : tensor<4xf32>
  %i = stablehlo.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %init_v = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %init_i = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = "stablehlo.reduce"(%v, %i, %init_v, %init_i) ({
    ^bb0(%acc_v: tensor<f32>, %acc_i: tensor<i32>, %x_v: tensor<f32>, %x_i: tensor<i32>):
      %lt = stablehlo.compare LT, %x_v, %acc_v : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %x_v, %acc_v : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %ilt = stablehlo.compare LT, %x_i, %acc_i : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %ilt : tensor<i1>
      %take = stablehlo.or %lt, %tie : tensor<i1>
      %nv = stablehlo.select %take, %x_v, %acc_v : tensor<i1>, tensor<f32>
      %ni = stablehlo.select %take, %x_i, %acc_i : tensor<i1>, tensor<i32>
      stablehlo.return %nv, %ni : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  check.expect_eq_const %r#0, dense<1.0> : tensor<f32>
  check.expect_eq_const %r#1, dense<1> : tensor<i32>
  func.return
}

// -----

// A variadic reduce_window: each window's least value and its companion.
func.func @reduce_window_variadic_min_with_companion() {
  %v = stablehlo.constant dense<[[4.0, 2.0, 3.0, 1.0]]> : tensor<1x4xf32>
  %c = stablehlo.constant dense<[[10.0, 20.0, 30.0, 40.0]]> : tensor<1x4xf32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = "stablehlo.reduce_window"(%v, %c, %inf, %zero) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%a0: tensor<f32>, %a1: tensor<f32>, %x0: tensor<f32>, %x1: tensor<f32>):
      %le = stablehlo.compare LE, %a0, %x0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %m = stablehlo.select %le, %a0, %x0 : tensor<i1>, tensor<f32>
      %n = stablehlo.select %le, %a1, %x1 : tensor<i1>, tensor<f32>
      stablehlo.return %m, %n : tensor<f32>, tensor<f32>
  }) : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<1x2xf32>, tensor<1x2xf32>)
  check.expect_eq_const %r#0, dense<[[2.0, 1.0]]> : tensor<1x2xf32>
  check.expect_eq_const %r#1, dense<[[20.0, 40.0]]> : tensor<1x2xf32>
  func.return
}
