// RUN: kiln-opt %s --split-input-file --kiln-vector-friendly-loops | FileCheck %s

// A 3x3 convolution over a 4x4 output: the output row (ow, 4 iterations,
// contiguous in the output and the input) goes innermost, not the kernel's
// 3-iteration kw reduction, which would serialise every output element's
// accumulation. Reductions become reassociable.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 + d4, d5 + d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-LABEL: func.func @small_output
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}, #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
// CHECK: arith.mulf {{.*}} fastmath<reassoc,contract>
func.func @small_output(%x: tensor<2x64x6x6xf32>, %w: tensor<64x64x3x3xf32>, %init: tensor<2x64x4x4xf32>) -> tensor<2x64x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x64x6x6xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<2x64x4x4xf32>) -> tensor<2x64x4x4xf32>
  return %0 : tensor<2x64x4x4xf32>
}

// -----

// A 1x1 convolution keeps its reductions inside (the one-iteration kernel
// loops, then the input channels): the 6-wide output rows are not worth it.
// CHECK-LABEL: func.func @pointwise
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @pointwise(%x: tensor<1x48x6x6xf32>, %w: tensor<48x48x1x1xf32>, %init: tensor<1x48x6x6xf32>) -> tensor<1x48x6x6xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x48x6x6xf32>, tensor<48x48x1x1xf32>) outs(%init : tensor<1x48x6x6xf32>) -> tensor<1x48x6x6xf32>
  return %0 : tensor<1x48x6x6xf32>
}

// -----

// A strided window (stride 2) keeps the kernel's contiguous kw inside.
// CHECK-LABEL: func.func @strided_window
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: iterator_types
func.func @strided_window(%x: tensor<2x16x16x16xf32>, %w: tensor<32x16x3x3xf32>, %init: tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x16x16x16xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32>
  return %0 : tensor<2x32x7x7xf32>
}

// -----

// A max pool's window is a reduction: its maximum may reassociate and, since
// the order then decides which of two equal zeros wins anyway, ignores the
// sign of zero (nsz); an elementwise maximum (a ReLU) keeps IEEE's order of
// zeros and no flags.
// CHECK-LABEL: func.func @max_pool
// CHECK: arith.maximumf {{.*}} fastmath<reassoc,nsz,contract>
// CHECK-LABEL: func.func @relu
// CHECK: arith.maximumf
// CHECK-NOT: fastmath
func.func @max_pool(%x: tensor<1x9x9x16xf32>, %init: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %k = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %k : tensor<1x9x9x16xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}
func.func @relu(%x: tensor<64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0.0 : f32
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
