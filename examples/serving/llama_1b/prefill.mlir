module @jit_prefill attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32000x2048xbf16>, %arg1: tensor<16x2048xbf16>, %arg2: tensor<16x2048xbf16>, %arg3: tensor<2048xbf16>, %arg4: tensor<2048x32000xbf16>, %arg5: tensor<16x8192x2048xbf16>, %arg6: tensor<16x2048x8192xbf16>, %arg7: tensor<16x2048x512xbf16>, %arg8: tensor<16x2048x2048xbf16>, %arg9: tensor<16x2048x2048xbf16>, %arg10: tensor<16x2048x8192xbf16>, %arg11: tensor<16x2048x512xbf16>, %arg12: tensor<8x1024xi32>) -> (tensor<8x32000xf32> {jax.result_info = "result[0]"}, tensor<16x8x2048x8x64xbf16> {jax.result_info = "result[1]"}, tensor<16x8x2048x8x64xbf16> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x1024xi32>
    %1 = stablehlo.compare LT, %arg12, %0, SIGNED : (tensor<8x1024xi32>, tensor<8x1024xi32>) -> tensor<8x1024xi1>
    %c_0 = stablehlo.constant dense<32000> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x1024xi32>
    %3 = stablehlo.add %arg12, %2 : tensor<8x1024xi32>
    %4 = stablehlo.select %1, %3, %arg12 : tensor<8x1024xi1>, tensor<8x1024xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<8x1024xi32>) -> tensor<8x1024x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2048>}> : (tensor<32000x2048xbf16>, tensor<8x1024x1xi32>) -> tensor<8x1024x2048xbf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %9 = stablehlo.iota dim = 0 : tensor<1024xi32>
    %10 = stablehlo.iota dim = 0 : tensor<2048xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<2048xi32>) -> tensor<1x2048xi32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<1024xi32>) -> tensor<1024x1xi32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x2048xi32>) -> tensor<1024x2048xi32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1024x1xi32>) -> tensor<1024x2048xi32>
    %15 = stablehlo.compare LE, %13, %14, SIGNED : (tensor<1024x2048xi32>, tensor<1024x2048xi32>) -> tensor<1024x2048xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<16x8x2048x8x64xbf16>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %18:17 = stablehlo.while(%iterArg = %arg1, %iterArg_8 = %arg2, %iterArg_9 = %arg5, %iterArg_10 = %arg6, %iterArg_11 = %arg7, %iterArg_12 = %arg8, %iterArg_13 = %arg9, %iterArg_14 = %arg10, %iterArg_15 = %arg11, %iterArg_16 = %7, %iterArg_17 = %8, %iterArg_18 = %9, %iterArg_19 = %15, %iterArg_20 = %c_4, %iterArg_21 = %6, %iterArg_22 = %16, %iterArg_23 = %17) : tensor<16x2048xbf16>, tensor<16x2048xbf16>, tensor<16x8192x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<1024xi32>, tensor<1024x2048xi1>, tensor<i32>, tensor<8x1024x2048xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
    cond {
      %c_24 = stablehlo.constant dense<16> : tensor<i32>
      %39 = stablehlo.compare LT, %iterArg_20, %c_24, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %39 : tensor<i1>
    } do {
      %39 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_20) : (tensor<16x2048xbf16>, tensor<i32>) -> tensor<2048xbf16>
      %40 = func.call @dynamic_index_in_dim(%iterArg_8, %iterArg_20) : (tensor<16x2048xbf16>, tensor<i32>) -> tensor<2048xbf16>
      %41 = func.call @dynamic_index_in_dim_0(%iterArg_9, %iterArg_20) : (tensor<16x8192x2048xbf16>, tensor<i32>) -> tensor<8192x2048xbf16>
      %42 = func.call @dynamic_index_in_dim_1(%iterArg_10, %iterArg_20) : (tensor<16x2048x8192xbf16>, tensor<i32>) -> tensor<2048x8192xbf16>
      %43 = func.call @dynamic_index_in_dim_2(%iterArg_11, %iterArg_20) : (tensor<16x2048x512xbf16>, tensor<i32>) -> tensor<2048x512xbf16>
      %44 = func.call @dynamic_index_in_dim_3(%iterArg_12, %iterArg_20) : (tensor<16x2048x2048xbf16>, tensor<i32>) -> tensor<2048x2048xbf16>
      %45 = func.call @dynamic_index_in_dim_3(%iterArg_13, %iterArg_20) : (tensor<16x2048x2048xbf16>, tensor<i32>) -> tensor<2048x2048xbf16>
      %46 = func.call @dynamic_index_in_dim_1(%iterArg_14, %iterArg_20) : (tensor<16x2048x8192xbf16>, tensor<i32>) -> tensor<2048x8192xbf16>
      %47 = func.call @dynamic_index_in_dim_2(%iterArg_15, %iterArg_20) : (tensor<16x2048x512xbf16>, tensor<i32>) -> tensor<2048x512xbf16>
      %48 = func.call @dynamic_index_in_dim_4(%iterArg_16, %iterArg_20) : (tensor<16x8x2048x8x64xbf16>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %49 = func.call @dynamic_index_in_dim_4(%iterArg_17, %iterArg_20) : (tensor<16x8x2048x8x64xbf16>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %50 = stablehlo.convert %iterArg_21 : (tensor<8x1024x2048xbf16>) -> tensor<8x1024x2048xf32>
      %51 = stablehlo.multiply %50, %50 : tensor<8x1024x2048xf32>
      %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %52 = stablehlo.reduce(%51 init: %cst_24) applies stablehlo.add across dimensions = [2] : (tensor<8x1024x2048xf32>, tensor<f32>) -> tensor<8x1024xf32>
      %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1] : (tensor<8x1024xf32>) -> tensor<8x1024x1xf32>
      %cst_25 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
      %54 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<8x1024x1xf32>
      %55 = stablehlo.divide %53, %54 : tensor<8x1024x1xf32>
      %cst_26 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %56 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<8x1024x1xf32>
      %57 = stablehlo.add %55, %56 : tensor<8x1024x1xf32>
      %58 = stablehlo.rsqrt %57 : tensor<8x1024x1xf32>
      %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2] : (tensor<8x1024x1xf32>) -> tensor<8x1024x2048xf32>
      %60 = stablehlo.multiply %50, %59 : tensor<8x1024x2048xf32>
      %61 = stablehlo.convert %39 : (tensor<2048xbf16>) -> tensor<2048xf32>
      %62 = stablehlo.broadcast_in_dim %61, dims = [2] : (tensor<2048xf32>) -> tensor<1x1x2048xf32>
      %63 = stablehlo.broadcast_in_dim %62, dims = [0, 1, 2] : (tensor<1x1x2048xf32>) -> tensor<8x1024x2048xf32>
      %64 = stablehlo.multiply %60, %63 : tensor<8x1024x2048xf32>
      %65 = stablehlo.convert %64 : (tensor<8x1024x2048xf32>) -> tensor<8x1024x2048xbf16>
      %66 = stablehlo.dot_general %65, %45, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<8x1024x2048xbf16>
      %67 = stablehlo.reshape %66 : (tensor<8x1024x2048xbf16>) -> tensor<8x1024x32x64xbf16>
      %68 = stablehlo.iota dim = 0 : tensor<32xf32>
      %cst_27 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %69 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %70 = stablehlo.divide %68, %69 : tensor<32xf32>
      %cst_28 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %71 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %72 = stablehlo.power %71, %70 : tensor<32xf32>
      %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %73 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %74 = stablehlo.divide %73, %72 : tensor<32xf32>
      %75 = stablehlo.convert %iterArg_18 : (tensor<1024xi32>) -> tensor<1024xf32>
      %76 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<1024xf32>) -> tensor<1024x1xf32>
      %77 = stablehlo.broadcast_in_dim %74, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
      %78 = stablehlo.broadcast_in_dim %76, dims = [0, 1] : (tensor<1024x1xf32>) -> tensor<1024x32xf32>
      %79 = stablehlo.broadcast_in_dim %77, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1024x32xf32>
      %80 = stablehlo.multiply %78, %79 : tensor<1024x32xf32>
      %81 = stablehlo.cosine %80 : tensor<1024x32xf32>
      %82 = stablehlo.broadcast_in_dim %81, dims = [1, 3] : (tensor<1024x32xf32>) -> tensor<1x1024x1x32xf32>
      %83 = stablehlo.sine %80 : tensor<1024x32xf32>
      %84 = stablehlo.broadcast_in_dim %83, dims = [1, 3] : (tensor<1024x32xf32>) -> tensor<1x1024x1x32xf32>
      %85 = stablehlo.slice %67 [0:8, 0:1024, 0:32, 0:32] : (tensor<8x1024x32x64xbf16>) -> tensor<8x1024x32x32xbf16>
      %86 = stablehlo.convert %85 : (tensor<8x1024x32x32xbf16>) -> tensor<8x1024x32x32xf32>
      %87 = stablehlo.slice %67 [0:8, 0:1024, 0:32, 32:64] : (tensor<8x1024x32x64xbf16>) -> tensor<8x1024x32x32xbf16>
      %88 = stablehlo.convert %87 : (tensor<8x1024x32x32xbf16>) -> tensor<8x1024x32x32xf32>
      %89 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x32x32xf32>
      %90 = stablehlo.multiply %86, %89 : tensor<8x1024x32x32xf32>
      %91 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x32x32xf32>
      %92 = stablehlo.multiply %88, %91 : tensor<8x1024x32x32xf32>
      %93 = stablehlo.subtract %90, %92 : tensor<8x1024x32x32xf32>
      %94 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x32x32xf32>
      %95 = stablehlo.multiply %86, %94 : tensor<8x1024x32x32xf32>
      %96 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x32x32xf32>
      %97 = stablehlo.multiply %88, %96 : tensor<8x1024x32x32xf32>
      %98 = stablehlo.add %95, %97 : tensor<8x1024x32x32xf32>
      %99 = stablehlo.concatenate %93, %98, dim = 3 : (tensor<8x1024x32x32xf32>, tensor<8x1024x32x32xf32>) -> tensor<8x1024x32x64xf32>
      %100 = stablehlo.convert %99 : (tensor<8x1024x32x64xf32>) -> tensor<8x1024x32x64xbf16>
      %101 = stablehlo.dot_general %65, %43, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x512xbf16>) -> tensor<8x1024x512xbf16>
      %102 = stablehlo.reshape %101 : (tensor<8x1024x512xbf16>) -> tensor<8x1024x8x64xbf16>
      %103 = stablehlo.iota dim = 0 : tensor<32xf32>
      %cst_30 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
      %104 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %105 = stablehlo.divide %103, %104 : tensor<32xf32>
      %cst_31 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %106 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %107 = stablehlo.power %106, %105 : tensor<32xf32>
      %cst_32 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %108 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %109 = stablehlo.divide %108, %107 : tensor<32xf32>
      %110 = stablehlo.convert %iterArg_18 : (tensor<1024xi32>) -> tensor<1024xf32>
      %111 = stablehlo.broadcast_in_dim %110, dims = [0] : (tensor<1024xf32>) -> tensor<1024x1xf32>
      %112 = stablehlo.broadcast_in_dim %109, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
      %113 = stablehlo.broadcast_in_dim %111, dims = [0, 1] : (tensor<1024x1xf32>) -> tensor<1024x32xf32>
      %114 = stablehlo.broadcast_in_dim %112, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1024x32xf32>
      %115 = stablehlo.multiply %113, %114 : tensor<1024x32xf32>
      %116 = stablehlo.cosine %115 : tensor<1024x32xf32>
      %117 = stablehlo.broadcast_in_dim %116, dims = [1, 3] : (tensor<1024x32xf32>) -> tensor<1x1024x1x32xf32>
      %118 = stablehlo.sine %115 : tensor<1024x32xf32>
      %119 = stablehlo.broadcast_in_dim %118, dims = [1, 3] : (tensor<1024x32xf32>) -> tensor<1x1024x1x32xf32>
      %120 = stablehlo.slice %102 [0:8, 0:1024, 0:8, 0:32] : (tensor<8x1024x8x64xbf16>) -> tensor<8x1024x8x32xbf16>
      %121 = stablehlo.convert %120 : (tensor<8x1024x8x32xbf16>) -> tensor<8x1024x8x32xf32>
      %122 = stablehlo.slice %102 [0:8, 0:1024, 0:8, 32:64] : (tensor<8x1024x8x64xbf16>) -> tensor<8x1024x8x32xbf16>
      %123 = stablehlo.convert %122 : (tensor<8x1024x8x32xbf16>) -> tensor<8x1024x8x32xf32>
      %124 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x8x32xf32>
      %125 = stablehlo.multiply %121, %124 : tensor<8x1024x8x32xf32>
      %126 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x8x32xf32>
      %127 = stablehlo.multiply %123, %126 : tensor<8x1024x8x32xf32>
      %128 = stablehlo.subtract %125, %127 : tensor<8x1024x8x32xf32>
      %129 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x8x32xf32>
      %130 = stablehlo.multiply %121, %129 : tensor<8x1024x8x32xf32>
      %131 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2, 3] : (tensor<1x1024x1x32xf32>) -> tensor<8x1024x8x32xf32>
      %132 = stablehlo.multiply %123, %131 : tensor<8x1024x8x32xf32>
      %133 = stablehlo.add %130, %132 : tensor<8x1024x8x32xf32>
      %134 = stablehlo.concatenate %128, %133, dim = 3 : (tensor<8x1024x8x32xf32>, tensor<8x1024x8x32xf32>) -> tensor<8x1024x8x64xf32>
      %135 = stablehlo.convert %134 : (tensor<8x1024x8x64xf32>) -> tensor<8x1024x8x64xbf16>
      %136 = stablehlo.dot_general %65, %47, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x512xbf16>) -> tensor<8x1024x512xbf16>
      %137 = stablehlo.reshape %136 : (tensor<8x1024x512xbf16>) -> tensor<8x1024x8x64xbf16>
      %138 = stablehlo.slice %iterArg_18 [0:1] : (tensor<1024xi32>) -> tensor<1xi32>
      %139 = stablehlo.reshape %138 : (tensor<1xi32>) -> tensor<i32>
      %c_33 = stablehlo.constant dense<0> : tensor<i32>
      %140 = stablehlo.compare LT, %139, %c_33, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_34 = stablehlo.constant dense<2048> : tensor<i32>
      %141 = stablehlo.add %139, %c_34 : tensor<i32>
      %142 = stablehlo.select %140, %141, %139 : tensor<i1>, tensor<i32>
      %c_35 = stablehlo.constant dense<0> : tensor<i32>
      %c_36 = stablehlo.constant dense<0> : tensor<i32>
      %c_37 = stablehlo.constant dense<0> : tensor<i32>
      %143 = stablehlo.dynamic_update_slice %48, %135, %c_35, %142, %c_36, %c_37 : (tensor<8x2048x8x64xbf16>, tensor<8x1024x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %144 = stablehlo.slice %iterArg_18 [0:1] : (tensor<1024xi32>) -> tensor<1xi32>
      %145 = stablehlo.reshape %144 : (tensor<1xi32>) -> tensor<i32>
      %c_38 = stablehlo.constant dense<0> : tensor<i32>
      %146 = stablehlo.compare LT, %145, %c_38, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_39 = stablehlo.constant dense<2048> : tensor<i32>
      %147 = stablehlo.add %145, %c_39 : tensor<i32>
      %148 = stablehlo.select %146, %147, %145 : tensor<i1>, tensor<i32>
      %c_40 = stablehlo.constant dense<0> : tensor<i32>
      %c_41 = stablehlo.constant dense<0> : tensor<i32>
      %c_42 = stablehlo.constant dense<0> : tensor<i32>
      %149 = stablehlo.dynamic_update_slice %49, %137, %c_40, %148, %c_41, %c_42 : (tensor<8x2048x8x64xbf16>, tensor<8x1024x8x64xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<8x2048x8x64xbf16>
      %150 = stablehlo.broadcast_in_dim %143, dims = [0, 1, 2, 4] : (tensor<8x2048x8x64xbf16>) -> tensor<8x2048x8x4x64xbf16>
      %151 = stablehlo.reshape %150 : (tensor<8x2048x8x4x64xbf16>) -> tensor<8x2048x32x64xbf16>
      %152 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2, 4] : (tensor<8x2048x8x64xbf16>) -> tensor<8x2048x8x4x64xbf16>
      %153 = stablehlo.reshape %152 : (tensor<8x2048x8x4x64xbf16>) -> tensor<8x2048x32x64xbf16>
      %154 = stablehlo.dot_general %100, %151, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x32x64xbf16>, tensor<8x2048x32x64xbf16>) -> tensor<8x32x1024x2048xbf16>
      %155 = stablehlo.convert %154 : (tensor<8x32x1024x2048xbf16>) -> tensor<8x32x1024x2048xf32>
      %cst_43 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %156 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<8x32x1024x2048xf32>
      %157 = stablehlo.divide %155, %156 : tensor<8x32x1024x2048xf32>
      %158 = stablehlo.broadcast_in_dim %iterArg_19, dims = [2, 3] : (tensor<1024x2048xi1>) -> tensor<1x1x1024x2048xi1>
      %cst_44 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %159 = func.call @_where(%158, %157, %cst_44) : (tensor<1x1x1024x2048xi1>, tensor<8x32x1024x2048xf32>, tensor<f32>) -> tensor<8x32x1024x2048xf32>
      %cst_45 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %160 = stablehlo.reduce(%159 init: %cst_45) applies stablehlo.maximum across dimensions = [3] : (tensor<8x32x1024x2048xf32>, tensor<f32>) -> tensor<8x32x1024xf32>
      %cst_46 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %161 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<8x32x1024xf32>
      %162 = stablehlo.maximum %161, %160 : tensor<8x32x1024xf32>
      %163 = stablehlo.broadcast_in_dim %162, dims = [0, 1, 2] : (tensor<8x32x1024xf32>) -> tensor<8x32x1024x1xf32>
      %164 = stablehlo.broadcast_in_dim %163, dims = [0, 1, 2, 3] : (tensor<8x32x1024x1xf32>) -> tensor<8x32x1024x2048xf32>
      %165 = stablehlo.subtract %159, %164 : tensor<8x32x1024x2048xf32>
      %166 = stablehlo.exponential %165 : tensor<8x32x1024x2048xf32>
      %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %167 = stablehlo.reduce(%166 init: %cst_47) applies stablehlo.add across dimensions = [3] : (tensor<8x32x1024x2048xf32>, tensor<f32>) -> tensor<8x32x1024xf32>
      %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2] : (tensor<8x32x1024xf32>) -> tensor<8x32x1024x1xf32>
      %169 = stablehlo.broadcast_in_dim %168, dims = [0, 1, 2, 3] : (tensor<8x32x1024x1xf32>) -> tensor<8x32x1024x2048xf32>
      %170 = stablehlo.divide %166, %169 : tensor<8x32x1024x2048xf32>
      %171 = stablehlo.convert %170 : (tensor<8x32x1024x2048xf32>) -> tensor<8x32x1024x2048xbf16>
      %172 = stablehlo.dot_general %153, %171, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<8x2048x32x64xbf16>, tensor<8x32x1024x2048xbf16>) -> tensor<8x32x64x1024xbf16>
      %173 = stablehlo.transpose %172, dims = [0, 3, 1, 2] : (tensor<8x32x64x1024xbf16>) -> tensor<8x1024x32x64xbf16>
      %174 = stablehlo.reshape %173 : (tensor<8x1024x32x64xbf16>) -> tensor<8x1024x2048xbf16>
      %175 = stablehlo.dot_general %174, %44, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<8x1024x2048xbf16>
      %176 = stablehlo.add %iterArg_21, %175 : tensor<8x1024x2048xbf16>
      %177 = stablehlo.convert %176 : (tensor<8x1024x2048xbf16>) -> tensor<8x1024x2048xf32>
      %178 = stablehlo.multiply %177, %177 : tensor<8x1024x2048xf32>
      %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %179 = stablehlo.reduce(%178 init: %cst_48) applies stablehlo.add across dimensions = [2] : (tensor<8x1024x2048xf32>, tensor<f32>) -> tensor<8x1024xf32>
      %180 = stablehlo.broadcast_in_dim %179, dims = [0, 1] : (tensor<8x1024xf32>) -> tensor<8x1024x1xf32>
      %cst_49 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
      %181 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<8x1024x1xf32>
      %182 = stablehlo.divide %180, %181 : tensor<8x1024x1xf32>
      %cst_50 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %183 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<8x1024x1xf32>
      %184 = stablehlo.add %182, %183 : tensor<8x1024x1xf32>
      %185 = stablehlo.rsqrt %184 : tensor<8x1024x1xf32>
      %186 = stablehlo.broadcast_in_dim %185, dims = [0, 1, 2] : (tensor<8x1024x1xf32>) -> tensor<8x1024x2048xf32>
      %187 = stablehlo.multiply %177, %186 : tensor<8x1024x2048xf32>
      %188 = stablehlo.convert %40 : (tensor<2048xbf16>) -> tensor<2048xf32>
      %189 = stablehlo.broadcast_in_dim %188, dims = [2] : (tensor<2048xf32>) -> tensor<1x1x2048xf32>
      %190 = stablehlo.broadcast_in_dim %189, dims = [0, 1, 2] : (tensor<1x1x2048xf32>) -> tensor<8x1024x2048xf32>
      %191 = stablehlo.multiply %187, %190 : tensor<8x1024x2048xf32>
      %192 = stablehlo.convert %191 : (tensor<8x1024x2048xf32>) -> tensor<8x1024x2048xbf16>
      %193 = stablehlo.dot_general %192, %42, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<8x1024x8192xbf16>
      %194 = func.call @silu(%193) : (tensor<8x1024x8192xbf16>) -> tensor<8x1024x8192xbf16>
      %195 = stablehlo.dot_general %192, %46, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<8x1024x8192xbf16>
      %196 = stablehlo.multiply %194, %195 : tensor<8x1024x8192xbf16>
      %197 = stablehlo.dot_general %196, %41, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1024x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<8x1024x2048xbf16>
      %198 = stablehlo.add %176, %197 : tensor<8x1024x2048xbf16>
      %199 = func.call @dynamic_update_index_in_dim(%iterArg_22, %143, %iterArg_20) : (tensor<16x8x2048x8x64xbf16>, tensor<8x2048x8x64xbf16>, tensor<i32>) -> tensor<16x8x2048x8x64xbf16>
      %200 = func.call @dynamic_update_index_in_dim(%iterArg_23, %149, %iterArg_20) : (tensor<16x8x2048x8x64xbf16>, tensor<8x2048x8x64xbf16>, tensor<i32>) -> tensor<16x8x2048x8x64xbf16>
      %c_51 = stablehlo.constant dense<1> : tensor<i32>
      %201 = stablehlo.add %iterArg_20, %c_51 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %201, %198, %199, %200 : tensor<16x2048xbf16>, tensor<16x2048xbf16>, tensor<16x8192x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x2048xbf16>, tensor<16x2048x8192xbf16>, tensor<16x2048x512xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<1024xi32>, tensor<1024x2048xi1>, tensor<i32>, tensor<8x1024x2048xbf16>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
    }
    %19 = stablehlo.slice %18#14 [0:8, 1023:1024, 0:2048] : (tensor<8x1024x2048xbf16>) -> tensor<8x1x2048xbf16>
    %20 = stablehlo.reshape %19 : (tensor<8x1x2048xbf16>) -> tensor<8x2048xbf16>
    %21 = stablehlo.convert %20 : (tensor<8x2048xbf16>) -> tensor<8x2048xf32>
    %22 = stablehlo.multiply %21, %21 : tensor<8x2048xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.reduce(%22 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<8x2048xf32>, tensor<f32>) -> tensor<8xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_6 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %26 = stablehlo.divide %24, %25 : tensor<8x1xf32>
    %cst_7 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
    %28 = stablehlo.add %26, %27 : tensor<8x1xf32>
    %29 = stablehlo.rsqrt %28 : tensor<8x1xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x2048xf32>
    %31 = stablehlo.multiply %21, %30 : tensor<8x2048xf32>
    %32 = stablehlo.convert %arg3 : (tensor<2048xbf16>) -> tensor<2048xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [1] : (tensor<2048xf32>) -> tensor<1x2048xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<1x2048xf32>) -> tensor<8x2048xf32>
    %35 = stablehlo.multiply %31, %34 : tensor<8x2048xf32>
    %36 = stablehlo.convert %35 : (tensor<8x2048xf32>) -> tensor<8x2048xbf16>
    %37 = stablehlo.dot_general %36, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2048xbf16>, tensor<2048x32000xbf16>) -> tensor<8x32000xbf16>
    %38 = stablehlo.convert %37 : (tensor<8x32000xbf16>) -> tensor<8x32000xf32>
    return %38, %18#15, %18#16 : tensor<8x32000xf32>, tensor<16x8x2048x8x64xbf16>, tensor<16x8x2048x8x64xbf16>
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
  func.func private @_where(%arg0: tensor<1x1x1024x2048xi1>, %arg1: tensor<8x32x1024x2048xf32>, %arg2: tensor<f32>) -> tensor<8x32x1024x2048xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x1024x2048xi1>) -> tensor<8x32x1024x2048xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x32x1024x2048xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<8x32x1024x2048xi1>, tensor<8x32x1024x2048xf32>
    return %3 : tensor<8x32x1024x2048xf32>
  }
  func.func private @silu(%arg0: tensor<8x1024x8192xbf16>) -> tensor<8x1024x8192xbf16> {
    %0 = stablehlo.negate %arg0 : tensor<8x1024x8192xbf16>
    %1 = stablehlo.exponential %0 : tensor<8x1024x8192xbf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x1024x8192xbf16>
    %3 = stablehlo.add %2, %1 : tensor<8x1024x8192xbf16>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x1024x8192xbf16>
    %5 = stablehlo.divide %4, %3 : tensor<8x1024x8192xbf16>
    %6 = stablehlo.multiply %arg0, %5 : tensor<8x1024x8192xbf16>
    return %6 : tensor<8x1024x8192xbf16>
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
