module @jit_decode attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32000x2048xbf16>, %arg1: tensor<16x2048xbf16>, %arg2: tensor<16x2048xbf16>, %arg3: tensor<2048xbf16>, %arg4: tensor<2048x32000xbf16>, %arg5: tensor<16x8192x2048xbf16>, %arg6: tensor<16x2048x8192xbf16>, %arg7: tensor<16x2048x512xbf16>, %arg8: tensor<16x2048x2048xbf16>, %arg9: tensor<16x2048x2048xbf16>, %arg10: tensor<16x2048x8192xbf16>, %arg11: tensor<16x2048x512xbf16>, %arg12: tensor<16x8x2048x8x64xbf16> {tf.aliasing_output = 1 : i32}, %arg13: tensor<16x8x2048x8x64xbf16> {tf.aliasing_output = 2 : i32}, %arg14: tensor<8xi32>, %arg15: tensor<i32>) -> (tensor<8x32000xf32> {jax.result_info = "result[0]"}, tensor<16x8x2048x8x64xbf16> {jax.result_info = "result[1]"}, tensor<16x8x2048x8x64xbf16> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare LT, %arg14, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_0 = stablehlo.constant dense<32000> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = stablehlo.add %arg14, %2 : tensor<8xi32>
    %4 = stablehlo.select %1, %3, %arg14 : tensor<8xi1>, tensor<8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2048>}> : (tensor<32000x2048xbf16>, tensor<8x1xi32>) -> tensor<8x2048xbf16>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 2] : (tensor<8x2048xbf16>) -> tensor<8x1x2048xbf16>
    %8 = stablehlo.broadcast_in_dim %arg15, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %9 = stablehlo.iota dim = 0 : tensor<2048xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<2048xi32>) -> tensor<1x2048xi32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xi32>) -> tensor<1x1xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<1x2048xi32>
    %13 = stablehlo.compare LE, %10, %12, SIGNED : (tensor<1x2048xi32>, tensor<1x2048xi32>) -> tensor<1x2048xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %16:17 = stablehlo.while(%iterArg = %arg1, %iterArg_6 = %arg2, %iterArg_7 = %arg5, %iterArg_8 = %arg6, %iterArg_9 = %arg7, %iterArg_10 = %arg8, %iterArg_11 = %arg9, %iterArg_12 = %arg10, %iterArg_13 = %arg11, %iterArg_14 = %arg12, %iterArg_15 = %arg13, %iterArg_16 = %8, %iterArg_17 = %13, %iterArg_18 = %c_2, %iterArg_19 = %7, %iterArg_20 = %14, %iterArg_21 = %15) : tensor<16x2048xbf16>, tensor<16x2048xbf16>, tensor<16x8192x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<1xi32>, tensor<1x2048xi1>, tensor<i32>, tensor<8x1x2048xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
    cond {
      %c_22 = stablehlo.constant dense<16> : tensor<i32>
      %36 = stablehlo.compare LT, %iterArg_18, %c_22, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %36 : tensor<i1>
    } do {
      %36 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_18) : (tensor<16x2048xbf16>, tensor<i32>) -> tensor<2048xbf16>
      %37 = func.call @dynamic_index_in_dim(%iterArg_6, %iterArg_18) : (tensor<16x2048xbf16>, tensor<i32>) -> tensor<2048xbf16>
      %38 = func.call @dynamic_index_in_dim_0(%iterArg_7, %iterArg_18) : (tensor<16x8192x2048xbf16>, tensor<i32>) -> tensor<8192x2048xbf16>
      %39 = func.call @dynamic_index_in_dim_1(%iterArg_8, %iterArg_18) : (tensor<16x2048x8192xbf16>, tensor<i32>) -> tensor<2048x8192xbf16>
      %40 = func.call @dynamic_index_in_dim_2(%iterArg_9, %iterArg_18) : (tensor<16x2048x512xbf16>, tensor<i32>) -> tensor<2048x512xbf16>
      %41 = func.call @dynamic_index_in_dim_3(%iterArg_10, %iterArg_18) : (tensor<16x2048x2048xbf16>, tensor<i32>) -> tensor<2048x2048xbf16>
      %42 = func.call @dynamic_index_in_dim_3(%iterArg_11, %iterArg_18) : (tensor<16x2048x2048xbf16>, tensor<i32>) -> tensor<2048x2048xbf16>
      %43 = func.call @dynamic_index_in_dim_1(%iterArg_12, %iterArg_18) : (tensor<16x2048x8192xbf16>, tensor<i32>) -> tensor<2048x8192xbf16>
      %44 = func.call @dynamic_index_in_dim_2(%iterArg_13, %iterArg_18) : (tensor<16x2048x512xbf16>, tensor<i32>) -> tensor<2048x512xbf16>
      %45 = func.call @dynamic_index_in_dim_4(%iterArg_14, %iterArg_18) : (tensor<16x8x2048x8x64xbf16>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %46 = func.call @dynamic_index_in_dim_4(%iterArg_15, %iterArg_18) : (tensor<16x8x2048x8x64xbf16>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %47 = stablehlo.convert %iterArg_19 : (tensor<8x1x2048xbf16>) -> tensor<8x1x2048xf32>
      %48 = stablehlo.multiply %47, %47 : tensor<8x1x2048xf32>
      %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %49 = stablehlo.reduce(%48 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<8x1x2048xf32>, tensor<f32>) -> tensor<8x1xf32>
      %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x1x1xf32>
      %cst_23 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
      %51 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x1x1xf32>
      %52 = stablehlo.divide %50, %51 : tensor<8x1x1xf32>
      %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %53 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x1x1xf32>
      %54 = stablehlo.add %52, %53 : tensor<8x1x1xf32>
      %55 = stablehlo.rsqrt %54 : tensor<8x1x1xf32>
      %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x1x2048xf32>
      %57 = stablehlo.multiply %47, %56 : tensor<8x1x2048xf32>
      %58 = stablehlo.convert %36 : (tensor<2048xbf16>) -> tensor<2048xf32>
      %59 = stablehlo.broadcast_in_dim %58, dims = [2] : (tensor<2048xf32>) -> tensor<1x1x2048xf32>
      %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2] : (tensor<1x1x2048xf32>) -> tensor<8x1x2048xf32>
      %61 = stablehlo.multiply %57, %60 : tensor<8x1x2048xf32>
      %62 = stablehlo.convert %61 : (tensor<8x1x2048xf32>) -> tensor<8x1x2048xbf16>
      %63 = stablehlo.dot_general %62, %42, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<8x1x2048xbf16>
      %64 = stablehlo.reshape %63 : (tensor<8x1x2048xbf16>) -> tensor<8x1x32x64xbf16>
      %65 = stablehlo.iota dim = 0 : tensor<32xf32>
      %cst_25 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %66 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %67 = stablehlo.divide %65, %66 : tensor<32xf32>
      %cst_26 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %68 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %69 = stablehlo.power %68, %67 : tensor<32xf32>
      %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %70 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %71 = stablehlo.divide %70, %69 : tensor<32xf32>
      %72 = stablehlo.convert %iterArg_16 : (tensor<1xi32>) -> tensor<1xf32>
      %73 = stablehlo.broadcast_in_dim %72, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
      %74 = stablehlo.broadcast_in_dim %71, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
      %75 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x32xf32>
      %76 = stablehlo.multiply %75, %74 : tensor<1x32xf32>
      %77 = stablehlo.cosine %76 : tensor<1x32xf32>
      %78 = stablehlo.broadcast_in_dim %77, dims = [1, 3] : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
      %79 = stablehlo.sine %76 : tensor<1x32xf32>
      %80 = stablehlo.broadcast_in_dim %79, dims = [1, 3] : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
      %81 = stablehlo.slice %64 [0:8, 0:1, 0:32, 0:32] : (tensor<8x1x32x64xbf16>) -> tensor<8x1x32x32xbf16>
      %82 = stablehlo.convert %81 : (tensor<8x1x32x32xbf16>) -> tensor<8x1x32x32xf32>
      %83 = stablehlo.slice %64 [0:8, 0:1, 0:32, 32:64] : (tensor<8x1x32x64xbf16>) -> tensor<8x1x32x32xbf16>
      %84 = stablehlo.convert %83 : (tensor<8x1x32x32xbf16>) -> tensor<8x1x32x32xf32>
      %85 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x32x32xf32>
      %86 = stablehlo.multiply %82, %85 : tensor<8x1x32x32xf32>
      %87 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x32x32xf32>
      %88 = stablehlo.multiply %84, %87 : tensor<8x1x32x32xf32>
      %89 = stablehlo.subtract %86, %88 : tensor<8x1x32x32xf32>
      %90 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x32x32xf32>
      %91 = stablehlo.multiply %82, %90 : tensor<8x1x32x32xf32>
      %92 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x32x32xf32>
      %93 = stablehlo.multiply %84, %92 : tensor<8x1x32x32xf32>
      %94 = stablehlo.add %91, %93 : tensor<8x1x32x32xf32>
      %95 = stablehlo.concatenate %89, %94, dim = 3 : (tensor<8x1x32x32xf32>, tensor<8x1x32x32xf32>) -> tensor<8x1x32x64xf32>
      %96 = stablehlo.convert %95 : (tensor<8x1x32x64xf32>) -> tensor<8x1x32x64xbf16>
      %97 = stablehlo.dot_general %62, %40, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x512xbf16>) -> tensor<8x1x512xbf16>
      %98 = stablehlo.reshape %97 : (tensor<8x1x512xbf16>) -> tensor<8x1x8x64xbf16>
      %99 = stablehlo.iota dim = 0 : tensor<32xf32>
      %cst_28 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %100 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %101 = stablehlo.divide %99, %100 : tensor<32xf32>
      %cst_29 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %102 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %103 = stablehlo.power %102, %101 : tensor<32xf32>
      %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %104 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %105 = stablehlo.divide %104, %103 : tensor<32xf32>
      %106 = stablehlo.convert %iterArg_16 : (tensor<1xi32>) -> tensor<1xf32>
      %107 = stablehlo.broadcast_in_dim %106, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
      %108 = stablehlo.broadcast_in_dim %105, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
      %109 = stablehlo.broadcast_in_dim %107, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x32xf32>
      %110 = stablehlo.multiply %109, %108 : tensor<1x32xf32>
      %111 = stablehlo.cosine %110 : tensor<1x32xf32>
      %112 = stablehlo.broadcast_in_dim %111, dims = [1, 3] : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
      %113 = stablehlo.sine %110 : tensor<1x32xf32>
      %114 = stablehlo.broadcast_in_dim %113, dims = [1, 3] : (tensor<1x32xf32>) -> tensor<1x1x1x32xf32>
      %115 = stablehlo.slice %98 [0:8, 0:1, 0:8, 0:32] : (tensor<8x1x8x64xbf16>) -> tensor<8x1x8x32xbf16>
      %116 = stablehlo.convert %115 : (tensor<8x1x8x32xbf16>) -> tensor<8x1x8x32xf32>
      %117 = stablehlo.slice %98 [0:8, 0:1, 0:8, 32:64] : (tensor<8x1x8x64xbf16>) -> tensor<8x1x8x32xbf16>
      %118 = stablehlo.convert %117 : (tensor<8x1x8x32xbf16>) -> tensor<8x1x8x32xf32>
      %119 = stablehlo.broadcast_in_dim %112, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x8x32xf32>
      %120 = stablehlo.multiply %116, %119 : tensor<8x1x8x32xf32>
      %121 = stablehlo.broadcast_in_dim %114, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x8x32xf32>
      %122 = stablehlo.multiply %118, %121 : tensor<8x1x8x32xf32>
      %123 = stablehlo.subtract %120, %122 : tensor<8x1x8x32xf32>
      %124 = stablehlo.broadcast_in_dim %114, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x8x32xf32>
      %125 = stablehlo.multiply %116, %124 : tensor<8x1x8x32xf32>
      %126 = stablehlo.broadcast_in_dim %112, dims = [0, 1, 2, 3] : (tensor<1x1x1x32xf32>) -> tensor<8x1x8x32xf32>
      %127 = stablehlo.multiply %118, %126 : tensor<8x1x8x32xf32>
      %128 = stablehlo.add %125, %127 : tensor<8x1x8x32xf32>
      %129 = stablehlo.concatenate %123, %128, dim = 3 : (tensor<8x1x8x32xf32>, tensor<8x1x8x32xf32>) -> tensor<8x1x8x64xf32>
      %130 = stablehlo.convert %129 : (tensor<8x1x8x64xf32>) -> tensor<8x1x8x64xbf16>
      %131 = stablehlo.dot_general %62, %44, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x512xbf16>) -> tensor<8x1x512xbf16>
      %132 = stablehlo.reshape %131 : (tensor<8x1x512xbf16>) -> tensor<8x1x8x64xbf16>
      %133 = stablehlo.reshape %iterArg_16 : (tensor<1xi32>) -> tensor<i32>
      %c_31 = stablehlo.constant dense<0> : tensor<i32>
      %134 = stablehlo.compare LT, %133, %c_31, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_32 = stablehlo.constant dense<2048> : tensor<i32>
      %135 = stablehlo.add %133, %c_32 : tensor<i32>
      %136 = stablehlo.select %134, %135, %133 : tensor<i1>, tensor<i32>
      %c_33 = stablehlo.constant dense<0> : tensor<i32>
      %c_34 = stablehlo.constant dense<0> : tensor<i32>
      %c_35 = stablehlo.constant dense<0> : tensor<i32>
      %137 = stablehlo.dynamic_update_slice %45, %130, %c_33, %136, %c_34, %c_35 : (tensor<8x2048x8x64xbf16>, tensor<8x1x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %138 = stablehlo.reshape %iterArg_16 : (tensor<1xi32>) -> tensor<i32>
      %c_36 = stablehlo.constant dense<0> : tensor<i32>
      %139 = stablehlo.compare LT, %138, %c_36, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_37 = stablehlo.constant dense<2048> : tensor<i32>
      %140 = stablehlo.add %138, %c_37 : tensor<i32>
      %141 = stablehlo.select %139, %140, %138 : tensor<i1>, tensor<i32>
      %c_38 = stablehlo.constant dense<0> : tensor<i32>
      %c_39 = stablehlo.constant dense<0> : tensor<i32>
      %c_40 = stablehlo.constant dense<0> : tensor<i32>
      %142 = stablehlo.dynamic_update_slice %46, %132, %c_38, %141, %c_39, %c_40 : (tensor<8x2048x8x64xbf16>, tensor<8x1x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %143 = stablehlo.broadcast_in_dim %137, dims = [0, 1, 2, 4] : (tensor<8x2048x8x64xbf16>) -> tensor<8x2048x8x4x64xbf16>
      %144 = stablehlo.reshape %143 : (tensor<8x2048x8x4x64xbf16>) -> tensor<8x2048x32x64xbf16>
      %145 = stablehlo.broadcast_in_dim %142, dims = [0, 1, 2, 4] : (tensor<8x2048x8x64xbf16>) -> tensor<8x2048x8x4x64xbf16>
      %146 = stablehlo.reshape %145 : (tensor<8x2048x8x4x64xbf16>) -> tensor<8x2048x32x64xbf16>
      %147 = stablehlo.dot_general %96, %144, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x1x32x64xbf16>, tensor<8x2048x32x64xbf16>) -> tensor<8x32x1x2048xbf16>
      %148 = stablehlo.convert %147 : (tensor<8x32x1x2048xbf16>) -> tensor<8x32x1x2048xf32>
      %cst_41 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %149 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8x32x1x2048xf32>
      %150 = stablehlo.divide %148, %149 : tensor<8x32x1x2048xf32>
      %151 = stablehlo.broadcast_in_dim %iterArg_17, dims = [2, 3] : (tensor<1x2048xi1>) -> tensor<1x1x1x2048xi1>
      %cst_42 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %152 = func.call @_where(%151, %150, %cst_42) : (tensor<1x1x1x2048xi1>, tensor<8x32x1x2048xf32>, tensor<f32>) -> tensor<8x32x1x2048xf32>
      %cst_43 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %153 = stablehlo.reduce(%152 init: %cst_43) applies stablehlo.maximum across dimensions = [3] : (tensor<8x32x1x2048xf32>, tensor<f32>) -> tensor<8x32x1xf32>
      %cst_44 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %154 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<8x32x1xf32>
      %155 = stablehlo.maximum %154, %153 : tensor<8x32x1xf32>
      %156 = stablehlo.broadcast_in_dim %155, dims = [0, 1, 2] : (tensor<8x32x1xf32>) -> tensor<8x32x1x1xf32>
      %157 = stablehlo.broadcast_in_dim %156, dims = [0, 1, 2, 3] : (tensor<8x32x1x1xf32>) -> tensor<8x32x1x2048xf32>
      %158 = stablehlo.subtract %152, %157 : tensor<8x32x1x2048xf32>
      %159 = stablehlo.exponential %158 : tensor<8x32x1x2048xf32>
      %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %160 = stablehlo.reduce(%159 init: %cst_45) applies stablehlo.add across dimensions = [3] : (tensor<8x32x1x2048xf32>, tensor<f32>) -> tensor<8x32x1xf32>
      %161 = stablehlo.broadcast_in_dim %160, dims = [0, 1, 2] : (tensor<8x32x1xf32>) -> tensor<8x32x1x1xf32>
      %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1, 2, 3] : (tensor<8x32x1x1xf32>) -> tensor<8x32x1x2048xf32>
      %163 = stablehlo.divide %159, %162 : tensor<8x32x1x2048xf32>
      %164 = stablehlo.convert %163 : (tensor<8x32x1x2048xf32>) -> tensor<8x32x1x2048xbf16>
      %165 = stablehlo.dot_general %146, %164, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x2048x32x64xbf16>, tensor<8x32x1x2048xbf16>) -> tensor<8x32x64x1xbf16>
      %166 = stablehlo.transpose %165, dims = [0, 3, 1, 2] : (tensor<8x32x64x1xbf16>) -> tensor<8x1x32x64xbf16>
      %167 = stablehlo.reshape %166 : (tensor<8x1x32x64xbf16>) -> tensor<8x1x2048xbf16>
      %168 = stablehlo.dot_general %167, %41, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<8x1x2048xbf16>
      %169 = stablehlo.add %iterArg_19, %168 : tensor<8x1x2048xbf16>
      %170 = stablehlo.convert %169 : (tensor<8x1x2048xbf16>) -> tensor<8x1x2048xf32>
      %171 = stablehlo.multiply %170, %170 : tensor<8x1x2048xf32>
      %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %172 = stablehlo.reduce(%171 init: %cst_46) applies stablehlo.add across dimensions = [2] : (tensor<8x1x2048xf32>, tensor<f32>) -> tensor<8x1xf32>
      %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x1x1xf32>
      %cst_47 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
      %174 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8x1x1xf32>
      %175 = stablehlo.divide %173, %174 : tensor<8x1x1xf32>
      %cst_48 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %176 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<8x1x1xf32>
      %177 = stablehlo.add %175, %176 : tensor<8x1x1xf32>
      %178 = stablehlo.rsqrt %177 : tensor<8x1x1xf32>
      %179 = stablehlo.broadcast_in_dim %178, dims = [0, 1, 2] : (tensor<8x1x1xf32>) -> tensor<8x1x2048xf32>
      %180 = stablehlo.multiply %170, %179 : tensor<8x1x2048xf32>
      %181 = stablehlo.convert %37 : (tensor<2048xbf16>) -> tensor<2048xf32>
      %182 = stablehlo.broadcast_in_dim %181, dims = [2] : (tensor<2048xf32>) -> tensor<1x1x2048xf32>
      %183 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2] : (tensor<1x1x2048xf32>) -> tensor<8x1x2048xf32>
      %184 = stablehlo.multiply %180, %183 : tensor<8x1x2048xf32>
      %185 = stablehlo.convert %184 : (tensor<8x1x2048xf32>) -> tensor<8x1x2048xbf16>
      %186 = stablehlo.dot_general %185, %39, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<8x1x8192xbf16>
      %187 = func.call @silu(%186) : (tensor<8x1x8192xbf16>) -> tensor<8x1x8192xbf16>
      %188 = stablehlo.dot_general %185, %43, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<8x1x8192xbf16>
      %189 = stablehlo.multiply %187, %188 : tensor<8x1x8192xbf16>
      %190 = stablehlo.dot_general %189, %38, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<8x1x2048xbf16>
      %191 = stablehlo.add %169, %190 : tensor<8x1x2048xbf16>
      %192 = func.call @dynamic_update_index_in_dim(%iterArg_20, %137, %iterArg_18) : (tensor<16x8x2048x8x64xbf16>, tensor<8x2048x8x64xbf16>, tensor<i32>) -> tensor<16x8x2048x8x64xbf16>
      %193 = func.call @dynamic_update_index_in_dim(%iterArg_21, %142, %iterArg_18) : (tensor<16x8x2048x8x64xbf16>, tensor<8x2048x8x64xbf16>, tensor<i32>) -> tensor<16x8x2048x8x64xbf16>
      %c_49 = stablehlo.constant dense<1> : tensor<i32>
      %194 = stablehlo.add %iterArg_18, %c_49 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %194, %191, %192, %193 : tensor<16x2048xbf16>, tensor<16x2048xbf16>, tensor<16x8192x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<1xi32>, tensor<1x2048xi1>, tensor<i32>, tensor<8x1x2048xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
    }
    %17 = stablehlo.reshape %16#14 : (tensor<8x1x2048xbf16>) -> tensor<8x2048xbf16>
    %18 = stablehlo.convert %17 : (tensor<8x2048xbf16>) -> tensor<8x2048xf32>
    %19 = stablehlo.multiply %18, %18 : tensor<8x2048xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<8x2048xf32>, tensor<f32>) -> tensor<8xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_4 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %23 = stablehlo.divide %21, %22 : tensor<8x1xf32>
    %cst_5 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %25 = stablehlo.add %23, %24 : tensor<8x1xf32>
    %26 = stablehlo.rsqrt %25 : tensor<8x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x2048xf32>
    %28 = stablehlo.multiply %18, %27 : tensor<8x2048xf32>
    %29 = stablehlo.convert %arg3 : (tensor<2048xbf16>) -> tensor<2048xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [1] : (tensor<2048xf32>) -> tensor<1x2048xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<1x2048xf32>) -> tensor<8x2048xf32>
    %32 = stablehlo.multiply %28, %31 : tensor<8x2048xf32>
    %33 = stablehlo.convert %32 : (tensor<8x2048xf32>) -> tensor<8x2048xbf16>
    %34 = stablehlo.dot_general %33, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2048xbf16>, tensor<2048x32000xbf16>) -> tensor<8x32000xbf16>
    %35 = stablehlo.convert %34 : (tensor<8x32000xbf16>) -> tensor<8x32000xf32>
    return %35, %16#15, %16#16 : tensor<8x32000xf32>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<16x2048xbf16>, %arg1: tensor<i32>) -> tensor<2048xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 2048] : (tensor<16x2048xbf16>, tensor<i32>, tensor<i32>) -> tensor<1x2048xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x2048xbf16>) -> tensor<2048xbf16>
    return %1 : tensor<2048xbf16>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<16x8192x2048xbf16>, %arg1: tensor<i32>) -> tensor<8192x2048xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8192, 2048] : (tensor<16x8192x2048xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8192x2048xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8192x2048xbf16>) -> tensor<8192x2048xbf16>
    return %1 : tensor<8192x2048xbf16>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<16x2048x8192xbf16>, %arg1: tensor<i32>) -> tensor<2048x8192xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2048, 8192] : (tensor<16x2048x8192xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2048x8192xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x2048x8192xbf16>) -> tensor<2048x8192xbf16>
    return %1 : tensor<2048x8192xbf16>
  }
  func.func private @dynamic_index_in_dim_2(%arg0: tensor<16x2048x512xbf16>, %arg1: tensor<i32>) -> tensor<2048x512xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2048, 512] : (tensor<16x2048x512xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2048x512xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x2048x512xbf16>) -> tensor<2048x512xbf16>
    return %1 : tensor<2048x512xbf16>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<16x2048x2048xbf16>, %arg1: tensor<i32>) -> tensor<2048x2048xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2048, 2048] : (tensor<16x2048x2048xbf16>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2048x2048xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x2048x2048xbf16>) -> tensor<2048x2048xbf16>
    return %1 : tensor<2048x2048xbf16>
  }
  func.func private @dynamic_index_in_dim_4(%arg0: tensor<16x8x2048x8x64xbf16>, %arg1: tensor<i32>) -> tensor<8x2048x8x64xbf16> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 8, 2048, 8, 64] : (tensor<16x8x2048x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x2048x8x64xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x8x2048x8x64xbf16>) -> tensor<8x2048x8x64xbf16>
    return %1 : tensor<8x2048x8x64xbf16>
  }
  func.func private @_where(%arg0: tensor<1x1x1x2048xi1>, %arg1: tensor<8x32x1x2048xf32>, %arg2: tensor<f32>) -> tensor<8x32x1x2048xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x1x2048xi1>) -> tensor<8x32x1x2048xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x32x1x2048xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<8x32x1x2048xi1>, tensor<8x32x1x2048xf32>
    return %3 : tensor<8x32x1x2048xf32>
  }
  func.func private @silu(%arg0: tensor<8x1x8192xbf16>) -> tensor<8x1x8192xbf16> {
    %0 = stablehlo.negate %arg0 : tensor<8x1x8192xbf16>
    %1 = stablehlo.exponential %0 : tensor<8x1x8192xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x1x8192xbf16>
    %3 = stablehlo.add %2, %1 : tensor<8x1x8192xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x1x8192xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<8x1x8192xbf16>
    %6 = stablehlo.multiply %arg0, %5 : tensor<8x1x8192xbf16>
    return %6 : tensor<8x1x8192xbf16>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<16x8x2048x8x64xbf16>, %arg1: tensor<8x2048x8x64xbf16>, %arg2: tensor<i32>) -> tensor<16x8x2048x8x64xbf16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<8x2048x8x64xbf16>) -> tensor<1x8x2048x8x64xbf16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<16x8x2048x8x64xbf16>, tensor<1x8x2048x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<16x8x2048x8x64xbf16>
    return %1 : tensor<16x8x2048x8x64xbf16>
  }
}
