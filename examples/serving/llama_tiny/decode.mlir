module @jit_decode attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x128xf32>, %arg1: tensor<2x128xf32>, %arg2: tensor<2x128xf32>, %arg3: tensor<128xf32>, %arg4: tensor<128x256xf32>, %arg5: tensor<2x352x128xf32>, %arg6: tensor<2x128x352xf32>, %arg7: tensor<2x128x64xf32>, %arg8: tensor<2x128x128xf32>, %arg9: tensor<2x128x128xf32>, %arg10: tensor<2x128x352xf32>, %arg11: tensor<2x128x64xf32>, %arg12: tensor<2x2x64x2x32xf32> {tf.aliasing_output = 1 : i32}, %arg13: tensor<2x2x64x2x32xf32> {tf.aliasing_output = 2 : i32}, %arg14: tensor<2xi32>, %arg15: tensor<i32>) -> (tensor<2x256xf32> {jax.result_info = "result[0]"}, tensor<2x2x64x2x32xf32> {jax.result_info = "result[1]"}, tensor<2x2x64x2x32xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %1 = stablehlo.compare LT, %arg14, %0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %c_0 = stablehlo.constant dense<256> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %3 = stablehlo.add %arg14, %2 : tensor<2xi32>
    %4 = stablehlo.select %1, %3, %arg14 : tensor<2xi1>, tensor<2xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 128>}> : (tensor<256x128xf32>, tensor<2x1xi32>) -> tensor<2x128xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 2] : (tensor<2x128xf32>) -> tensor<2x1x128xf32>
    %8 = stablehlo.broadcast_in_dim %arg15, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %9 = stablehlo.iota dim = 0 : tensor<64xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<64xi32>) -> tensor<1x64xi32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<1xi32>) -> tensor<1x1xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<1x64xi32>
    %13 = stablehlo.compare LE, %10, %12, SIGNED : (tensor<1x64xi32>, tensor<1x64xi32>) -> tensor<1x64xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %16:17 = stablehlo.while(%iterArg = %arg1, %iterArg_6 = %arg2, %iterArg_7 = %arg5, %iterArg_8 = %arg6, %iterArg_9 = %arg7, %iterArg_10 = %arg8, %iterArg_11 = %arg9, %iterArg_12 = %arg10, %iterArg_13 = %arg11, %iterArg_14 = %arg12, %iterArg_15 = %arg13, %iterArg_16 = %8, %iterArg_17 = %13, %iterArg_18 = %c_2, %iterArg_19 = %7, %iterArg_20 = %14, %iterArg_21 = %15) : tensor<2x128xf32>, tensor<2x128xf32>, tensor<2x352x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x128x128xf32>, tensor<2x128x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>, tensor<1xi32>, tensor<1x64xi1>, tensor<i32>, tensor<2x1x128xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
    cond {
      %c_22 = stablehlo.constant dense<2> : tensor<i32>
      %32 = stablehlo.compare LT, %iterArg_18, %c_22, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %32 : tensor<i1>
    } do {
      %32 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_18) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %33 = func.call @dynamic_index_in_dim(%iterArg_6, %iterArg_18) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %34 = func.call @dynamic_index_in_dim_0(%iterArg_7, %iterArg_18) : (tensor<2x352x128xf32>, tensor<i32>) -> tensor<352x128xf32>
      %35 = func.call @dynamic_index_in_dim_1(%iterArg_8, %iterArg_18) : (tensor<2x128x352xf32>, tensor<i32>) -> tensor<128x352xf32>
      %36 = func.call @dynamic_index_in_dim_2(%iterArg_9, %iterArg_18) : (tensor<2x128x64xf32>, tensor<i32>) -> tensor<128x64xf32>
      %37 = func.call @dynamic_index_in_dim_3(%iterArg_10, %iterArg_18) : (tensor<2x128x128xf32>, tensor<i32>) -> tensor<128x128xf32>
      %38 = func.call @dynamic_index_in_dim_3(%iterArg_11, %iterArg_18) : (tensor<2x128x128xf32>, tensor<i32>) -> tensor<128x128xf32>
      %39 = func.call @dynamic_index_in_dim_1(%iterArg_12, %iterArg_18) : (tensor<2x128x352xf32>, tensor<i32>) -> tensor<128x352xf32>
      %40 = func.call @dynamic_index_in_dim_2(%iterArg_13, %iterArg_18) : (tensor<2x128x64xf32>, tensor<i32>) -> tensor<128x64xf32>
      %41 = func.call @dynamic_index_in_dim_4(%iterArg_14, %iterArg_18) : (tensor<2x2x64x2x32xf32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %42 = func.call @dynamic_index_in_dim_4(%iterArg_15, %iterArg_18) : (tensor<2x2x64x2x32xf32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %43 = stablehlo.multiply %iterArg_19, %iterArg_19 : tensor<2x1x128xf32>
      %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %44 = stablehlo.reduce(%43 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<2x1x128xf32>, tensor<f32>) -> tensor<2x1xf32>
      %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x1x1xf32>
      %cst_23 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
      %46 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x1x1xf32>
      %47 = stablehlo.divide %45, %46 : tensor<2x1x1xf32>
      %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %48 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x1x1xf32>
      %49 = stablehlo.add %47, %48 : tensor<2x1x1xf32>
      %50 = stablehlo.rsqrt %49 : tensor<2x1x1xf32>
      %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2] : (tensor<2x1x1xf32>) -> tensor<2x1x128xf32>
      %52 = stablehlo.multiply %iterArg_19, %51 : tensor<2x1x128xf32>
      %53 = stablehlo.broadcast_in_dim %32, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
      %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x1x128xf32>
      %55 = stablehlo.multiply %52, %54 : tensor<2x1x128xf32>
      %56 = stablehlo.dot_general %55, %38, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x128xf32>) -> tensor<2x1x128xf32>
      %57 = stablehlo.reshape %56 : (tensor<2x1x128xf32>) -> tensor<2x1x4x32xf32>
      %58 = stablehlo.iota dim = 0 : tensor<16xf32>
      %cst_25 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %59 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %60 = stablehlo.divide %58, %59 : tensor<16xf32>
      %cst_26 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %61 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %62 = stablehlo.power %61, %60 : tensor<16xf32>
      %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %63 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %64 = stablehlo.divide %63, %62 : tensor<16xf32>
      %65 = stablehlo.convert %iterArg_16 : (tensor<1xi32>) -> tensor<1xf32>
      %66 = stablehlo.broadcast_in_dim %65, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
      %67 = stablehlo.broadcast_in_dim %64, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %68 = stablehlo.broadcast_in_dim %66, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x16xf32>
      %69 = stablehlo.multiply %68, %67 : tensor<1x16xf32>
      %70 = stablehlo.cosine %69 : tensor<1x16xf32>
      %71 = stablehlo.broadcast_in_dim %70, dims = [1, 3] : (tensor<1x16xf32>) -> tensor<1x1x1x16xf32>
      %72 = stablehlo.sine %69 : tensor<1x16xf32>
      %73 = stablehlo.broadcast_in_dim %72, dims = [1, 3] : (tensor<1x16xf32>) -> tensor<1x1x1x16xf32>
      %74 = stablehlo.slice %57 [0:2, 0:1, 0:4, 0:16] : (tensor<2x1x4x32xf32>) -> tensor<2x1x4x16xf32>
      %75 = stablehlo.slice %57 [0:2, 0:1, 0:4, 16:32] : (tensor<2x1x4x32xf32>) -> tensor<2x1x4x16xf32>
      %76 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x4x16xf32>
      %77 = stablehlo.multiply %74, %76 : tensor<2x1x4x16xf32>
      %78 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x4x16xf32>
      %79 = stablehlo.multiply %75, %78 : tensor<2x1x4x16xf32>
      %80 = stablehlo.subtract %77, %79 : tensor<2x1x4x16xf32>
      %81 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x4x16xf32>
      %82 = stablehlo.multiply %74, %81 : tensor<2x1x4x16xf32>
      %83 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x4x16xf32>
      %84 = stablehlo.multiply %75, %83 : tensor<2x1x4x16xf32>
      %85 = stablehlo.add %82, %84 : tensor<2x1x4x16xf32>
      %86 = stablehlo.concatenate %80, %85, dim = 3 : (tensor<2x1x4x16xf32>, tensor<2x1x4x16xf32>) -> tensor<2x1x4x32xf32>
      %87 = stablehlo.dot_general %55, %36, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x64xf32>) -> tensor<2x1x64xf32>
      %88 = stablehlo.reshape %87 : (tensor<2x1x64xf32>) -> tensor<2x1x2x32xf32>
      %89 = stablehlo.iota dim = 0 : tensor<16xf32>
      %cst_28 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %90 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %91 = stablehlo.divide %89, %90 : tensor<16xf32>
      %cst_29 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %92 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %93 = stablehlo.power %92, %91 : tensor<16xf32>
      %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %94 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %95 = stablehlo.divide %94, %93 : tensor<16xf32>
      %96 = stablehlo.convert %iterArg_16 : (tensor<1xi32>) -> tensor<1xf32>
      %97 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
      %98 = stablehlo.broadcast_in_dim %95, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %99 = stablehlo.broadcast_in_dim %97, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x16xf32>
      %100 = stablehlo.multiply %99, %98 : tensor<1x16xf32>
      %101 = stablehlo.cosine %100 : tensor<1x16xf32>
      %102 = stablehlo.broadcast_in_dim %101, dims = [1, 3] : (tensor<1x16xf32>) -> tensor<1x1x1x16xf32>
      %103 = stablehlo.sine %100 : tensor<1x16xf32>
      %104 = stablehlo.broadcast_in_dim %103, dims = [1, 3] : (tensor<1x16xf32>) -> tensor<1x1x1x16xf32>
      %105 = stablehlo.slice %88 [0:2, 0:1, 0:2, 0:16] : (tensor<2x1x2x32xf32>) -> tensor<2x1x2x16xf32>
      %106 = stablehlo.slice %88 [0:2, 0:1, 0:2, 16:32] : (tensor<2x1x2x32xf32>) -> tensor<2x1x2x16xf32>
      %107 = stablehlo.broadcast_in_dim %102, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x2x16xf32>
      %108 = stablehlo.multiply %105, %107 : tensor<2x1x2x16xf32>
      %109 = stablehlo.broadcast_in_dim %104, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x2x16xf32>
      %110 = stablehlo.multiply %106, %109 : tensor<2x1x2x16xf32>
      %111 = stablehlo.subtract %108, %110 : tensor<2x1x2x16xf32>
      %112 = stablehlo.broadcast_in_dim %104, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x2x16xf32>
      %113 = stablehlo.multiply %105, %112 : tensor<2x1x2x16xf32>
      %114 = stablehlo.broadcast_in_dim %102, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<2x1x2x16xf32>
      %115 = stablehlo.multiply %106, %114 : tensor<2x1x2x16xf32>
      %116 = stablehlo.add %113, %115 : tensor<2x1x2x16xf32>
      %117 = stablehlo.concatenate %111, %116, dim = 3 : (tensor<2x1x2x16xf32>, tensor<2x1x2x16xf32>) -> tensor<2x1x2x32xf32>
      %118 = stablehlo.dot_general %55, %40, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x64xf32>) -> tensor<2x1x64xf32>
      %119 = stablehlo.reshape %118 : (tensor<2x1x64xf32>) -> tensor<2x1x2x32xf32>
      %120 = stablehlo.reshape %iterArg_16 : (tensor<1xi32>) -> tensor<i32>
      %c_31 = stablehlo.constant dense<0> : tensor<i32>
      %121 = stablehlo.compare LT, %120, %c_31, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_32 = stablehlo.constant dense<64> : tensor<i32>
      %122 = stablehlo.add %120, %c_32 : tensor<i32>
      %123 = stablehlo.select %121, %122, %120 : tensor<i1>, tensor<i32>
      %c_33 = stablehlo.constant dense<0> : tensor<i32>
      %c_34 = stablehlo.constant dense<0> : tensor<i32>
      %c_35 = stablehlo.constant dense<0> : tensor<i32>
      %124 = stablehlo.dynamic_update_slice %41, %117, %c_33, %123, %c_34, %c_35 : (tensor<2x64x2x32xf32>, tensor<2x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %125 = stablehlo.reshape %iterArg_16 : (tensor<1xi32>) -> tensor<i32>
      %c_36 = stablehlo.constant dense<0> : tensor<i32>
      %126 = stablehlo.compare LT, %125, %c_36, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_37 = stablehlo.constant dense<64> : tensor<i32>
      %127 = stablehlo.add %125, %c_37 : tensor<i32>
      %128 = stablehlo.select %126, %127, %125 : tensor<i1>, tensor<i32>
      %c_38 = stablehlo.constant dense<0> : tensor<i32>
      %c_39 = stablehlo.constant dense<0> : tensor<i32>
      %c_40 = stablehlo.constant dense<0> : tensor<i32>
      %129 = stablehlo.dynamic_update_slice %42, %119, %c_38, %128, %c_39, %c_40 : (tensor<2x64x2x32xf32>, tensor<2x1x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %130 = stablehlo.broadcast_in_dim %124, dims = [0, 1, 2, 4] : (tensor<2x64x2x32xf32>) -> tensor<2x64x2x2x32xf32>
      %131 = stablehlo.reshape %130 : (tensor<2x64x2x2x32xf32>) -> tensor<2x64x4x32xf32>
      %132 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2, 4] : (tensor<2x64x2x32xf32>) -> tensor<2x64x2x2x32xf32>
      %133 = stablehlo.reshape %132 : (tensor<2x64x2x2x32xf32>) -> tensor<2x64x4x32xf32>
      %134 = stablehlo.dot_general %86, %131, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x1x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x4x1x64xf32>
      %cst_41 = stablehlo.constant dense<5.65685415> : tensor<f32>
      %135 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<2x4x1x64xf32>
      %136 = stablehlo.divide %134, %135 : tensor<2x4x1x64xf32>
      %137 = stablehlo.broadcast_in_dim %iterArg_17, dims = [2, 3] : (tensor<1x64xi1>) -> tensor<1x1x1x64xi1>
      %cst_42 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %138 = func.call @_where(%137, %136, %cst_42) : (tensor<1x1x1x64xi1>, tensor<2x4x1x64xf32>, tensor<f32>) -> tensor<2x4x1x64xf32>
      %cst_43 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %139 = stablehlo.reduce(%138 init: %cst_43) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x1x64xf32>, tensor<f32>) -> tensor<2x4x1xf32>
      %cst_44 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %140 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<2x4x1xf32>
      %141 = stablehlo.maximum %140, %139 : tensor<2x4x1xf32>
      %142 = stablehlo.broadcast_in_dim %141, dims = [0, 1, 2] : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
      %143 = stablehlo.broadcast_in_dim %142, dims = [0, 1, 2, 3] : (tensor<2x4x1x1xf32>) -> tensor<2x4x1x64xf32>
      %144 = stablehlo.subtract %138, %143 : tensor<2x4x1x64xf32>
      %145 = stablehlo.exponential %144 : tensor<2x4x1x64xf32>
      %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %146 = stablehlo.reduce(%145 init: %cst_45) applies stablehlo.add across dimensions = [3] : (tensor<2x4x1x64xf32>, tensor<f32>) -> tensor<2x4x1xf32>
      %147 = stablehlo.broadcast_in_dim %146, dims = [0, 1, 2] : (tensor<2x4x1xf32>) -> tensor<2x4x1x1xf32>
      %148 = stablehlo.broadcast_in_dim %147, dims = [0, 1, 2, 3] : (tensor<2x4x1x1xf32>) -> tensor<2x4x1x64xf32>
      %149 = stablehlo.divide %145, %148 : tensor<2x4x1x64xf32>
      %150 = stablehlo.dot_general %133, %149, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x64x4x32xf32>, tensor<2x4x1x64xf32>) -> tensor<2x4x32x1xf32>
      %151 = stablehlo.transpose %150, dims = [0, 3, 1, 2] : (tensor<2x4x32x1xf32>) -> tensor<2x1x4x32xf32>
      %152 = stablehlo.reshape %151 : (tensor<2x1x4x32xf32>) -> tensor<2x1x128xf32>
      %153 = stablehlo.dot_general %152, %37, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x128xf32>) -> tensor<2x1x128xf32>
      %154 = stablehlo.add %iterArg_19, %153 : tensor<2x1x128xf32>
      %155 = stablehlo.multiply %154, %154 : tensor<2x1x128xf32>
      %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %156 = stablehlo.reduce(%155 init: %cst_46) applies stablehlo.add across dimensions = [2] : (tensor<2x1x128xf32>, tensor<f32>) -> tensor<2x1xf32>
      %157 = stablehlo.broadcast_in_dim %156, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x1x1xf32>
      %cst_47 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
      %158 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<2x1x1xf32>
      %159 = stablehlo.divide %157, %158 : tensor<2x1x1xf32>
      %cst_48 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %160 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<2x1x1xf32>
      %161 = stablehlo.add %159, %160 : tensor<2x1x1xf32>
      %162 = stablehlo.rsqrt %161 : tensor<2x1x1xf32>
      %163 = stablehlo.broadcast_in_dim %162, dims = [0, 1, 2] : (tensor<2x1x1xf32>) -> tensor<2x1x128xf32>
      %164 = stablehlo.multiply %154, %163 : tensor<2x1x128xf32>
      %165 = stablehlo.broadcast_in_dim %33, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
      %166 = stablehlo.broadcast_in_dim %165, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x1x128xf32>
      %167 = stablehlo.multiply %164, %166 : tensor<2x1x128xf32>
      %168 = stablehlo.dot_general %167, %35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x352xf32>) -> tensor<2x1x352xf32>
      %169 = func.call @silu(%168) : (tensor<2x1x352xf32>) -> tensor<2x1x352xf32>
      %170 = stablehlo.dot_general %167, %39, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x128xf32>, tensor<128x352xf32>) -> tensor<2x1x352xf32>
      %171 = stablehlo.multiply %169, %170 : tensor<2x1x352xf32>
      %172 = stablehlo.dot_general %171, %34, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1x352xf32>, tensor<352x128xf32>) -> tensor<2x1x128xf32>
      %173 = stablehlo.add %154, %172 : tensor<2x1x128xf32>
      %174 = func.call @dynamic_update_index_in_dim(%iterArg_20, %124, %iterArg_18) : (tensor<2x2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<i32>) -> tensor<2x2x64x2x32xf32>
      %175 = func.call @dynamic_update_index_in_dim(%iterArg_21, %129, %iterArg_18) : (tensor<2x2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<i32>) -> tensor<2x2x64x2x32xf32>
      %c_49 = stablehlo.constant dense<1> : tensor<i32>
      %176 = stablehlo.add %iterArg_18, %c_49 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %176, %173, %174, %175 : tensor<2x128xf32>, tensor<2x128xf32>, tensor<2x352x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x128x128xf32>, tensor<2x128x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>, tensor<1xi32>, tensor<1x64xi1>, tensor<i32>, tensor<2x1x128xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
    }
    %17 = stablehlo.reshape %16#14 : (tensor<2x1x128xf32>) -> tensor<2x128xf32>
    %18 = stablehlo.multiply %17, %17 : tensor<2x128xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<2x128xf32>, tensor<f32>) -> tensor<2xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %cst_4 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %22 = stablehlo.divide %20, %21 : tensor<2x1xf32>
    %cst_5 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %24 = stablehlo.add %22, %23 : tensor<2x1xf32>
    %25 = stablehlo.rsqrt %24 : tensor<2x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x128xf32>
    %27 = stablehlo.multiply %17, %26 : tensor<2x128xf32>
    %28 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<2x128xf32>
    %30 = stablehlo.multiply %27, %29 : tensor<2x128xf32>
    %31 = stablehlo.dot_general %30, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x128xf32>, tensor<128x256xf32>) -> tensor<2x256xf32>
    return %31, %16#15, %16#16 : tensor<2x256xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x128xf32>, %arg1: tensor<i32>) -> tensor<128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 128] : (tensor<2x128xf32>, tensor<i32>, tensor<i32>) -> tensor<1x128xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128xf32>) -> tensor<128xf32>
    return %1 : tensor<128xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<2x352x128xf32>, %arg1: tensor<i32>) -> tensor<352x128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 352, 128] : (tensor<2x352x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x352x128xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x352x128xf32>) -> tensor<352x128xf32>
    return %1 : tensor<352x128xf32>
  }
  func.func private @dynamic_index_in_dim_1(%arg0: tensor<2x128x352xf32>, %arg1: tensor<i32>) -> tensor<128x352xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 352] : (tensor<2x128x352xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x352xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x352xf32>) -> tensor<128x352xf32>
    return %1 : tensor<128x352xf32>
  }
  func.func private @dynamic_index_in_dim_2(%arg0: tensor<2x128x64xf32>, %arg1: tensor<i32>) -> tensor<128x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 64] : (tensor<2x128x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x64xf32>) -> tensor<128x64xf32>
    return %1 : tensor<128x64xf32>
  }
  func.func private @dynamic_index_in_dim_3(%arg0: tensor<2x128x128xf32>, %arg1: tensor<i32>) -> tensor<128x128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 128] : (tensor<2x128x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x128xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x128x128xf32>) -> tensor<128x128xf32>
    return %1 : tensor<128x128xf32>
  }
  func.func private @dynamic_index_in_dim_4(%arg0: tensor<2x2x64x2x32xf32>, %arg1: tensor<i32>) -> tensor<2x64x2x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, %c_1, %c_2, sizes = [1, 2, 64, 2, 32] : (tensor<2x2x64x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x64x2x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x64x2x32xf32>) -> tensor<2x64x2x32xf32>
    return %1 : tensor<2x64x2x32xf32>
  }
  func.func private @_where(%arg0: tensor<1x1x1x64xi1>, %arg1: tensor<2x4x1x64xf32>, %arg2: tensor<f32>) -> tensor<2x4x1x64xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x1x64xi1>) -> tensor<2x4x1x64xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x1x64xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x1x64xi1>, tensor<2x4x1x64xf32>
    return %3 : tensor<2x4x1x64xf32>
  }
  func.func private @silu(%arg0: tensor<2x1x352xf32>) -> tensor<2x1x352xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2x1x352xf32>
    %1 = stablehlo.exponential %0 : tensor<2x1x352xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x1x352xf32>
    %3 = stablehlo.add %2, %1 : tensor<2x1x352xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x1x352xf32>
    %5 = stablehlo.divide %4, %3 : tensor<2x1x352xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<2x1x352xf32>
    return %6 : tensor<2x1x352xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x2x64x2x32xf32>, %arg1: tensor<2x64x2x32xf32>, %arg2: tensor<i32>) -> tensor<2x2x64x2x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2, 3, 4] : (tensor<2x64x2x32xf32>) -> tensor<1x2x64x2x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0, %c_1, %c_2 : (tensor<2x2x64x2x32xf32>, tensor<1x2x64x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x2x64x2x32xf32>
    return %1 : tensor<2x2x64x2x32xf32>
  }
}
