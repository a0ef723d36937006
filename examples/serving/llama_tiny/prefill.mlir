module @jit_prefill attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x128xf32>, %arg1: tensor<2x128xf32>, %arg2: tensor<2x128xf32>, %arg3: tensor<128xf32>, %arg4: tensor<128x256xf32>, %arg5: tensor<2x352x128xf32>, %arg6: tensor<2x128x352xf32>, %arg7: tensor<2x128x64xf32>, %arg8: tensor<2x128x128xf32>, %arg9: tensor<2x128x128xf32>, %arg10: tensor<2x128x352xf32>, %arg11: tensor<2x128x64xf32>, %arg12: tensor<2x16xi32>) -> (tensor<2x256xf32> {jax.result_info = "result[0]"}, tensor<2x2x64x2x32xf32> {jax.result_info = "result[1]"}, tensor<2x2x64x2x32xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x16xi32>
    %1 = stablehlo.compare LT, %arg12, %0, SIGNED : (tensor<2x16xi32>, tensor<2x16xi32>) -> tensor<2x16xi1>
    %c_0 = stablehlo.constant dense<256> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x16xi32>
    %3 = stablehlo.add %arg12, %2 : tensor<2x16xi32>
    %4 = stablehlo.select %1, %3, %arg12 : tensor<2x16xi1>, tensor<2x16xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x16xi32>) -> tensor<2x16x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 128>}> : (tensor<256x128xf32>, tensor<2x16x1xi32>) -> tensor<2x16x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %9 = stablehlo.iota dim = 0 : tensor<16xi32>
    %10 = stablehlo.iota dim = 0 : tensor<64xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<64xi32>) -> tensor<1x64xi32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<16xi32>) -> tensor<16x1xi32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x64xi32>) -> tensor<16x64xi32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<16x1xi32>) -> tensor<16x64xi32>
    %15 = stablehlo.compare LE, %13, %14, SIGNED : (tensor<16x64xi32>, tensor<16x64xi32>) -> tensor<16x64xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x2x64x2x32xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %18:17 = stablehlo.while(%iterArg = %arg1, %iterArg_8 = %arg2, %iterArg_9 = %arg5, %iterArg_10 = %arg6, %iterArg_11 = %arg7, %iterArg_12 = %arg8, %iterArg_13 = %arg9, %iterArg_14 = %arg10, %iterArg_15 = %arg11, %iterArg_16 = %7, %iterArg_17 = %8, %iterArg_18 = %9, %iterArg_19 = %15, %iterArg_20 = %c_4, %iterArg_21 = %6, %iterArg_22 = %16, %iterArg_23 = %17) : tensor<2x128xf32>, tensor<2x128xf32>, tensor<2x352x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x128x128xf32>, tensor<2x128x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>, tensor<16xi32>, tensor<16x64xi1>, tensor<i32>, tensor<2x16x128xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
    cond {
      %c_24 = stablehlo.constant dense<2> : tensor<i32>
      %35 = stablehlo.compare LT, %iterArg_20, %c_24, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %35 : tensor<i1>
    } do {
      %35 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_20) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %36 = func.call @dynamic_index_in_dim(%iterArg_8, %iterArg_20) : (tensor<2x128xf32>, tensor<i32>) -> tensor<128xf32>
      %37 = func.call @dynamic_index_in_dim_0(%iterArg_9, %iterArg_20) : (tensor<2x352x128xf32>, tensor<i32>) -> tensor<352x128xf32>
      %38 = func.call @dynamic_index_in_dim_1(%iterArg_10, %iterArg_20) : (tensor<2x128x352xf32>, tensor<i32>) -> tensor<128x352xf32>
      %39 = func.call @dynamic_index_in_dim_2(%iterArg_11, %iterArg_20) : (tensor<2x128x64xf32>, tensor<i32>) -> tensor<128x64xf32>
      %40 = func.call @dynamic_index_in_dim_3(%iterArg_12, %iterArg_20) : (tensor<2x128x128xf32>, tensor<i32>) -> tensor<128x128xf32>
      %41 = func.call @dynamic_index_in_dim_3(%iterArg_13, %iterArg_20) : (tensor<2x128x128xf32>, tensor<i32>) -> tensor<128x128xf32>
      %42 = func.call @dynamic_index_in_dim_1(%iterArg_14, %iterArg_20) : (tensor<2x128x352xf32>, tensor<i32>) -> tensor<128x352xf32>
      %43 = func.call @dynamic_index_in_dim_2(%iterArg_15, %iterArg_20) : (tensor<2x128x64xf32>, tensor<i32>) -> tensor<128x64xf32>
      %44 = func.call @dynamic_index_in_dim_4(%iterArg_16, %iterArg_20) : (tensor<2x2x64x2x32xf32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %45 = func.call @dynamic_index_in_dim_4(%iterArg_17, %iterArg_20) : (tensor<2x2x64x2x32xf32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %46 = stablehlo.multiply %iterArg_21, %iterArg_21 : tensor<2x16x128xf32>
      %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %47 = stablehlo.reduce(%46 init: %cst_24) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
      %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
      %cst_25 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
      %49 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
      %50 = stablehlo.divide %48, %49 : tensor<2x16x1xf32>
      %cst_26 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %51 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
      %52 = stablehlo.add %50, %51 : tensor<2x16x1xf32>
      %53 = stablehlo.rsqrt %52 : tensor<2x16x1xf32>
      %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
      %55 = stablehlo.multiply %iterArg_21, %54 : tensor<2x16x128xf32>
      %56 = stablehlo.broadcast_in_dim %35, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
      %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
      %58 = stablehlo.multiply %55, %57 : tensor<2x16x128xf32>
      %59 = stablehlo.dot_general %58, %41, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
      %60 = stablehlo.reshape %59 : (tensor<2x16x128xf32>) -> tensor<2x16x4x32xf32>
      %61 = stablehlo.iota dim = 0 : tensor<16xf32>
      %cst_27 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %62 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %63 = stablehlo.divide %61, %62 : tensor<16xf32>
      %cst_28 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %64 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %65 = stablehlo.power %64, %63 : tensor<16xf32>
      %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %66 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %67 = stablehlo.divide %66, %65 : tensor<16xf32>
      %68 = stablehlo.convert %iterArg_18 : (tensor<16xi32>) -> tensor<16xf32>
      %69 = stablehlo.broadcast_in_dim %68, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
      %70 = stablehlo.broadcast_in_dim %67, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %71 = stablehlo.broadcast_in_dim %69, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x16xf32>
      %72 = stablehlo.broadcast_in_dim %70, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<16x16xf32>
      %73 = stablehlo.multiply %71, %72 : tensor<16x16xf32>
      %74 = stablehlo.cosine %73 : tensor<16x16xf32>
      %75 = stablehlo.broadcast_in_dim %74, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<1x16x1x16xf32>
      %76 = stablehlo.sine %73 : tensor<16x16xf32>
      %77 = stablehlo.broadcast_in_dim %76, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<1x16x1x16xf32>
      %78 = stablehlo.slice %60 [0:2, 0:16, 0:4, 0:16] : (tensor<2x16x4x32xf32>) -> tensor<2x16x4x16xf32>
      %79 = stablehlo.slice %60 [0:2, 0:16, 0:4, 16:32] : (tensor<2x16x4x32xf32>) -> tensor<2x16x4x16xf32>
      %80 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x4x16xf32>
      %81 = stablehlo.multiply %78, %80 : tensor<2x16x4x16xf32>
      %82 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x4x16xf32>
      %83 = stablehlo.multiply %79, %82 : tensor<2x16x4x16xf32>
      %84 = stablehlo.subtract %81, %83 : tensor<2x16x4x16xf32>
      %85 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x4x16xf32>
      %86 = stablehlo.multiply %78, %85 : tensor<2x16x4x16xf32>
      %87 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x4x16xf32>
      %88 = stablehlo.multiply %79, %87 : tensor<2x16x4x16xf32>
      %89 = stablehlo.add %86, %88 : tensor<2x16x4x16xf32>
      %90 = stablehlo.concatenate %84, %89, dim = 3 : (tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>) -> tensor<2x16x4x32xf32>
      %91 = stablehlo.dot_general %58, %39, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x64xf32>) -> tensor<2x16x64xf32>
      %92 = stablehlo.reshape %91 : (tensor<2x16x64xf32>) -> tensor<2x16x2x32xf32>
      %93 = stablehlo.iota dim = 0 : tensor<16xf32>
      %cst_30 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %94 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %95 = stablehlo.divide %93, %94 : tensor<16xf32>
      %cst_31 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
      %96 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %97 = stablehlo.power %96, %95 : tensor<16xf32>
      %cst_32 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %98 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<16xf32>
      %99 = stablehlo.divide %98, %97 : tensor<16xf32>
      %100 = stablehlo.convert %iterArg_18 : (tensor<16xi32>) -> tensor<16xf32>
      %101 = stablehlo.broadcast_in_dim %100, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
      %102 = stablehlo.broadcast_in_dim %99, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
      %103 = stablehlo.broadcast_in_dim %101, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x16xf32>
      %104 = stablehlo.broadcast_in_dim %102, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<16x16xf32>
      %105 = stablehlo.multiply %103, %104 : tensor<16x16xf32>
      %106 = stablehlo.cosine %105 : tensor<16x16xf32>
      %107 = stablehlo.broadcast_in_dim %106, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<1x16x1x16xf32>
      %108 = stablehlo.sine %105 : tensor<16x16xf32>
      %109 = stablehlo.broadcast_in_dim %108, dims = [1, 3] : (tensor<16x16xf32>) -> tensor<1x16x1x16xf32>
      %110 = stablehlo.slice %92 [0:2, 0:16, 0:2, 0:16] : (tensor<2x16x2x32xf32>) -> tensor<2x16x2x16xf32>
      %111 = stablehlo.slice %92 [0:2, 0:16, 0:2, 16:32] : (tensor<2x16x2x32xf32>) -> tensor<2x16x2x16xf32>
      %112 = stablehlo.broadcast_in_dim %107, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x2x16xf32>
      %113 = stablehlo.multiply %110, %112 : tensor<2x16x2x16xf32>
      %114 = stablehlo.broadcast_in_dim %109, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x2x16xf32>
      %115 = stablehlo.multiply %111, %114 : tensor<2x16x2x16xf32>
      %116 = stablehlo.subtract %113, %115 : tensor<2x16x2x16xf32>
      %117 = stablehlo.broadcast_in_dim %109, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x2x16xf32>
      %118 = stablehlo.multiply %110, %117 : tensor<2x16x2x16xf32>
      %119 = stablehlo.broadcast_in_dim %107, dims = [0, 1, 2, 3] : (tensor<1x16x1x16xf32>) -> tensor<2x16x2x16xf32>
      %120 = stablehlo.multiply %111, %119 : tensor<2x16x2x16xf32>
      %121 = stablehlo.add %118, %120 : tensor<2x16x2x16xf32>
      %122 = stablehlo.concatenate %116, %121, dim = 3 : (tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32>) -> tensor<2x16x2x32xf32>
      %123 = stablehlo.dot_general %58, %43, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x64xf32>) -> tensor<2x16x64xf32>
      %124 = stablehlo.reshape %123 : (tensor<2x16x64xf32>) -> tensor<2x16x2x32xf32>
      %125 = stablehlo.slice %iterArg_18 [0:1] : (tensor<16xi32>) -> tensor<1xi32>
      %126 = stablehlo.reshape %125 : (tensor<1xi32>) -> tensor<i32>
      %c_33 = stablehlo.constant dense<0> : tensor<i32>
      %127 = stablehlo.compare LT, %126, %c_33, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_34 = stablehlo.constant dense<64> : tensor<i32>
      %128 = stablehlo.add %126, %c_34 : tensor<i32>
      %129 = stablehlo.select %127, %128, %126 : tensor<i1>, tensor<i32>
      %c_35 = stablehlo.constant dense<0> : tensor<i32>
      %c_36 = stablehlo.constant dense<0> : tensor<i32>
      %c_37 = stablehlo.constant dense<0> : tensor<i32>
      %130 = stablehlo.dynamic_update_slice %44, %122, %c_35, %129, %c_36, %c_37 : (tensor<2x64x2x32xf32>, tensor<2x16x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %131 = stablehlo.slice %iterArg_18 [0:1] : (tensor<16xi32>) -> tensor<1xi32>
      %132 = stablehlo.reshape %131 : (tensor<1xi32>) -> tensor<i32>
      %c_38 = stablehlo.constant dense<0> : tensor<i32>
      %133 = stablehlo.compare LT, %132, %c_38, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %c_39 = stablehlo.constant dense<64> : tensor<i32>
      %134 = stablehlo.add %132, %c_39 : tensor<i32>
      %135 = stablehlo.select %133, %134, %132 : tensor<i1>, tensor<i32>
      %c_40 = stablehlo.constant dense<0> : tensor<i32>
      %c_41 = stablehlo.constant dense<0> : tensor<i32>
      %c_42 = stablehlo.constant dense<0> : tensor<i32>
      %136 = stablehlo.dynamic_update_slice %45, %124, %c_40, %135, %c_41, %c_42 : (tensor<2x64x2x32xf32>, tensor<2x16x2x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x64x2x32xf32>
      %137 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2, 4] : (tensor<2x64x2x32xf32>) -> tensor<2x64x2x2x32xf32>
      %138 = stablehlo.reshape %137 : (tensor<2x64x2x2x32xf32>) -> tensor<2x64x4x32xf32>
      %139 = stablehlo.broadcast_in_dim %136, dims = [0, 1, 2, 4] : (tensor<2x64x2x32xf32>) -> tensor<2x64x2x2x32xf32>
      %140 = stablehlo.reshape %139 : (tensor<2x64x2x2x32xf32>) -> tensor<2x64x4x32xf32>
      %141 = stablehlo.dot_general %90, %138, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x16x4x32xf32>, tensor<2x64x4x32xf32>) -> tensor<2x4x16x64xf32>
      %cst_43 = stablehlo.constant dense<5.65685415> : tensor<f32>
      %142 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<2x4x16x64xf32>
      %143 = stablehlo.divide %141, %142 : tensor<2x4x16x64xf32>
      %144 = stablehlo.broadcast_in_dim %iterArg_19, dims = [2, 3] : (tensor<16x64xi1>) -> tensor<1x1x16x64xi1>
      %cst_44 = stablehlo.constant dense<-1.000000e+30> : tensor<f32>
      %145 = func.call @_where(%144, %143, %cst_44) : (tensor<1x1x16x64xi1>, tensor<2x4x16x64xf32>, tensor<f32>) -> tensor<2x4x16x64xf32>
      %cst_45 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %146 = stablehlo.reduce(%145 init: %cst_45) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x64xf32>, tensor<f32>) -> tensor<2x4x16xf32>
      %cst_46 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %147 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<2x4x16xf32>
      %148 = stablehlo.maximum %147, %146 : tensor<2x4x16xf32>
      %149 = stablehlo.broadcast_in_dim %148, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
      %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x64xf32>
      %151 = stablehlo.subtract %145, %150 : tensor<2x4x16x64xf32>
      %152 = stablehlo.exponential %151 : tensor<2x4x16x64xf32>
      %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %153 = stablehlo.reduce(%152 init: %cst_47) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x64xf32>, tensor<f32>) -> tensor<2x4x16xf32>
      %154 = stablehlo.broadcast_in_dim %153, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
      %155 = stablehlo.broadcast_in_dim %154, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x64xf32>
      %156 = stablehlo.divide %152, %155 : tensor<2x4x16x64xf32>
      %157 = stablehlo.dot_general %140, %156, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x64x4x32xf32>, tensor<2x4x16x64xf32>) -> tensor<2x4x32x16xf32>
      %158 = stablehlo.transpose %157, dims = [0, 3, 1, 2] : (tensor<2x4x32x16xf32>) -> tensor<2x16x4x32xf32>
      %159 = stablehlo.reshape %158 : (tensor<2x16x4x32xf32>) -> tensor<2x16x128xf32>
      %160 = stablehlo.dot_general %159, %40, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x128xf32>) -> tensor<2x16x128xf32>
      %161 = stablehlo.add %iterArg_21, %160 : tensor<2x16x128xf32>
      %162 = stablehlo.multiply %161, %161 : tensor<2x16x128xf32>
      %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %163 = stablehlo.reduce(%162 init: %cst_48) applies stablehlo.add across dimensions = [2] : (tensor<2x16x128xf32>, tensor<f32>) -> tensor<2x16xf32>
      %164 = stablehlo.broadcast_in_dim %163, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
      %cst_49 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
      %165 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
      %166 = stablehlo.divide %164, %165 : tensor<2x16x1xf32>
      %cst_50 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %167 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
      %168 = stablehlo.add %166, %167 : tensor<2x16x1xf32>
      %169 = stablehlo.rsqrt %168 : tensor<2x16x1xf32>
      %170 = stablehlo.broadcast_in_dim %169, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x128xf32>
      %171 = stablehlo.multiply %161, %170 : tensor<2x16x128xf32>
      %172 = stablehlo.broadcast_in_dim %36, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
      %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<2x16x128xf32>
      %174 = stablehlo.multiply %171, %173 : tensor<2x16x128xf32>
      %175 = stablehlo.dot_general %174, %38, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x352xf32>) -> tensor<2x16x352xf32>
      %176 = func.call @silu(%175) : (tensor<2x16x352xf32>) -> tensor<2x16x352xf32>
      %177 = stablehlo.dot_general %174, %42, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x128xf32>, tensor<128x352xf32>) -> tensor<2x16x352xf32>
      %178 = stablehlo.multiply %176, %177 : tensor<2x16x352xf32>
      %179 = stablehlo.dot_general %178, %37, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x16x352xf32>, tensor<352x128xf32>) -> tensor<2x16x128xf32>
      %180 = stablehlo.add %161, %179 : tensor<2x16x128xf32>
      %181 = func.call @dynamic_update_index_in_dim(%iterArg_22, %130, %iterArg_20) : (tensor<2x2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<i32>) -> tensor<2x2x64x2x32xf32>
      %182 = func.call @dynamic_update_index_in_dim(%iterArg_23, %136, %iterArg_20) : (tensor<2x2x64x2x32xf32>, tensor<2x64x2x32xf32>, tensor<i32>) -> tensor<2x2x64x2x32xf32>
      %c_51 = stablehlo.constant dense<1> : tensor<i32>
      %183 = stablehlo.add %iterArg_20, %c_51 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %iterArg_17, %iterArg_18, %iterArg_19, %183, %180, %181, %182 : tensor<2x128xf32>, tensor<2x128xf32>, tensor<2x352x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x128x128xf32>, tensor<2x128x128xf32>, tensor<2x128x352xf32>, tensor<2x128x64xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>, tensor<16xi32>, tensor<16x64xi1>, tensor<i32>, tensor<2x16x128xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
    }
    %19 = stablehlo.slice %18#14 [0:2, 15:16, 0:128] : (tensor<2x16x128xf32>) -> tensor<2x1x128xf32>
    %20 = stablehlo.reshape %19 : (tensor<2x1x128xf32>) -> tensor<2x128xf32>
    %21 = stablehlo.multiply %20, %20 : tensor<2x128xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<2x128xf32>, tensor<f32>) -> tensor<2xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %cst_6 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %25 = stablehlo.divide %23, %24 : tensor<2x1xf32>
    %cst_7 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %27 = stablehlo.add %25, %26 : tensor<2x1xf32>
    %28 = stablehlo.rsqrt %27 : tensor<2x1xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x128xf32>
    %30 = stablehlo.multiply %20, %29 : tensor<2x128xf32>
    %31 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<2x128xf32>
    %33 = stablehlo.multiply %30, %32 : tensor<2x128xf32>
    %34 = stablehlo.dot_general %33, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x128xf32>, tensor<128x256xf32>) -> tensor<2x256xf32>
    return %34, %18#15, %18#16 : tensor<2x256xf32>, tensor<2x2x64x2x32xf32>, tensor<2x2x64x2x32xf32>
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
  func.func private @_where(%arg0: tensor<1x1x16x64xi1>, %arg1: tensor<2x4x16x64xf32>, %arg2: tensor<f32>) -> tensor<2x4x16x64xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x16x64xi1>) -> tensor<2x4x16x64xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x4x16x64xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x4x16x64xi1>, tensor<2x4x16x64xf32>
    return %3 : tensor<2x4x16x64xf32>
  }
  func.func private @silu(%arg0: tensor<2x16x352xf32>) -> tensor<2x16x352xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2x16x352xf32>
    %1 = stablehlo.exponential %0 : tensor<2x16x352xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x16x352xf32>
    %3 = stablehlo.add %2, %1 : tensor<2x16x352xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x16x352xf32>
    %5 = stablehlo.divide %4, %3 : tensor<2x16x352xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<2x16x352xf32>
    return %6 : tensor<2x16x352xf32>
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
