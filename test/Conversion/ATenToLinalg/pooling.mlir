// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Max pooling pads with -inf and starts from -inf.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: } : tensor<?x4x8x8xf32> to tensor<?x4x10x10xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x8x8xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4x4x4xf32>
// CHECK: %[[NINF2:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF2]] : f32) outs(%[[E]] : tensor<?x4x4x4xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[R:.*]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %[[WIN]] : tensor<?x4x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<?x4x4x4xf32>)
// CHECK: return %[[R]]
func.func @max_pool(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// ceil_mode: extra high padding so the partial last window is computed
// (9 -> 10 rows for 5 windows of 2 at stride 2).
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: } : tensor<1x4x9x9xf32> to tensor<1x4x10x10xf32>
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PAD]], %{{.*}} : tensor<1x4x10x10xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x4x5x5xf32>)
func.func @max_pool_ceil_mode(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32> {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x9x9xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// Without ceil_mode the same input gives 4 windows and no padding.
// CHECK-LABEL: func.func @max_pool_floor_mode
// CHECK-NOT: tensor.pad
// CHECK: linalg.pooling_nchw_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x9x9xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>)
func.func @max_pool_floor_mode(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x4x4xf32> {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x4x9x9xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// A 3-d (CHW) input gets a unit batch dim, then loses it.
// CHECK-LABEL: func.func @max_pool_unbatched
// CHECK: %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 8, 8] : tensor<4x8x8xf32> into tensor<1x4x8x8xf32>
// CHECK: %[[P:.*]] = linalg.pooling_nchw_max {{.*}} ins(%[[B]], %{{.*}} : tensor<1x4x8x8xf32>, tensor<2x2xf32>)
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x4x4xf32> into tensor<4x4x4xf32>
func.func @max_pool_unbatched(%x: tensor<4x8x8xf32>) -> tensor<4x4x4xf32> {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<4x8x8xf32>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// Adaptive average pooling with even windows: a sum pool whose kernel and
// stride are input / output (8x6 -> 2x3: windows of 4x2), then a division by
// the window size.
// CHECK-LABEL: func.func @adaptive_avg_pool
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x6xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<?x4x2x3xf32>)
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<[4, 2]> : tensor<2xi64>} ins(%[[X]], %[[WIN]] : tensor<?x4x8x6xf32>, tensor<4x2xf32>) outs(%[[INIT]] : tensor<?x4x2x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]]], {{.*}} ins(%[[SUM]] : tensor<?x4x2x3xf32>)
// CHECK: %[[CNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: arith.divf %{{.*}}, %[[CNT]] : f32
// CHECK: return %[[R]]
func.func @adaptive_avg_pool(%x: tensor<?x4x8x6xf32>) -> tensor<?x4x2x3xf32> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 2, 3>} : (tensor<?x4x8x6xf32>) -> tensor<?x4x2x3xf32>
  return %0 : tensor<?x4x2x3xf32>
}

// Unbatched adaptive pooling.
// CHECK-LABEL: func.func @adaptive_avg_pool_unbatched
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 6] : tensor<4x6x6xf32> into tensor<1x4x6x6xf32>
// CHECK: linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<2x2xf32>)
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<1x4x3x3xf32> into tensor<4x3x3xf32>
func.func @adaptive_avg_pool_unbatched(%x: tensor<4x6x6xf32>) -> tensor<4x3x3xf32> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 3, 3>} : (tensor<4x6x6xf32>) -> tensor<4x3x3xf32>
  return %0 : tensor<4x3x3xf32>
}



// Adaptive pooling with windows of different sizes (5 rows into 3): each output
// element sums its own window [floor(i*5/3), ceil((i+1)*5/3)) and divides by its size.
// CHECK-LABEL: func.func @adaptive_avg_pool_uneven
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK: arith.divui
// CHECK: arith.ceildivui
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract
// CHECK: arith.addf
// CHECK: arith.uitofp
// CHECK: arith.divf
func.func @adaptive_avg_pool_uneven(%x: tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 3, 3>} : (tensor<1x4x5x5xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// Integer max pooling: the window loop (no named op), signed compares, and the
// first valid tap always taken so padding never wins.
// CHECK-LABEL: func.func @max_pool_int
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: tensor.extract
// CHECK: arith.cmpi sgt
// CHECK: linalg.yield {{.*}} : i32, i64
func.func @max_pool_int(%x: tensor<1x2x5x5xi32>) -> tensor<1x2x3x3xi32> {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x5x5xi32>) -> tensor<1x2x3x3xi32>
  return %0 : tensor<1x2x3x3xi32>
}

// uint8 compares unsigned on its i8 storage.
// CHECK-LABEL: func.func @max_pool_uint8
// CHECK: builtin.unrealized_conversion_cast {{.*}} : ui8 to i8
// CHECK: arith.cmpi ugt
func.func @max_pool_uint8(%x: tensor<1x2x4x4xui8>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>) {
  %0, %1 = aten.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x2x4x4xui8>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>)
  return %0, %1 : tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>
}

// 3-d max pooling with indices: 5 parallel dims, 3 reduction taps, and the flat
// offset (d * H + h) * W + w of the maximum.
// CHECK-LABEL: func.func @max_pool3d_indices
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x2x2xi8>) outs(%{{.*}}, %{{.*}} : tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>)
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
func.func @max_pool3d_indices(%x: tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>) {
  %0, %1 = aten.max_pool3d_with_indices %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<1x2x4x4x4xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>)
  return %0, %1 : tensor<1x2x2x2x2xf32>, tensor<1x2x2x2x2xi64>
}

// Average pooling: a masked window sum over the kernel taps, then a division by
// each window's divisor computed from the output index (here clipped to the
// input: count_include_pad = false).
// CHECK-LABEL: func.func @avg_pool
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: tensor.extract
// CHECK: arith.addf
// CHECK: arith.select
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x3x3x3xf32>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<?x3x6x6xf32>) -> tensor<?x3x3x3xf32> {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<?x3x6x6xf32>) -> tensor<?x3x3x3xf32>
  return %0 : tensor<?x3x3x3xf32>
}

// float16 sums in float32; divisor_override is a constant divisor.
// CHECK-LABEL: func.func @avg_pool_f16_divisor
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: %[[D:.*]] = arith.constant 3 : i64
// CHECK: arith.sitofp %[[D]] : i64 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @avg_pool_f16_divisor(%x: tensor<2x4x4xf16>) -> tensor<2x2x2xf16> {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, divisor_override = 3 : i64} : (tensor<2x4x4xf16>) -> tensor<2x2x2xf16>
  return %0 : tensor<2x2x2xf16>
}

// int64 sums in int64 and divides truncating.
// CHECK-LABEL: func.func @avg_pool3d_int64
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: arith.addi {{.*}} : i64
// CHECK: arith.divsi
func.func @avg_pool3d_int64(%x: tensor<1x1x4x4x4xi64>) -> tensor<1x1x2x2x2xi64> {
  %0 = aten.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>} : (tensor<1x1x4x4x4xi64>) -> tensor<1x1x2x2x2xi64>
  return %0 : tensor<1x1x2x2x2xi64>
}

// Even adaptive pooling of float16 converts to float32 before the sum pool.
// CHECK-LABEL: func.func @adaptive_avg_pool_f16
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: linalg.pooling_nchw_sum {{.*}} outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @adaptive_avg_pool_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16> {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 2, 2>} : (tensor<1x2x4x4xf16>) -> tensor<1x2x2x2xf16>
  return %0 : tensor<1x2x2x2xf16>
}

// 3-d adaptive pooling: three nested loops over each window.
// CHECK-LABEL: func.func @adaptive_avg_pool3d
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract
func.func @adaptive_avg_pool3d(%x: tensor<1x2x5x4x3xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = aten.adaptive_avg_pool3d %x {output_size = array<i64: 2, 2, 2>} : (tensor<1x2x5x4x3xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}
