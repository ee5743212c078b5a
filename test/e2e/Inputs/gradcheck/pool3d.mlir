func.func @f(%x: tensor<1x2x5x6x4xf64>, %y: tensor<2x4x5x5xf64>)
    -> (tensor<1x2x2x3x2xf64>, tensor<1x2x3x4x2xf64>, tensor<2x3x2x2xf64>, tensor<1x2x3x3x2xf64>, tensor<1x2x3x4x3xf64>, tensor<1x2x2x3x2xf64>, tensor<1x2x3x4x3xf64>, tensor<2x3x2x4xf64>) {
  %0 = aten.max_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>} : (tensor<1x2x5x6x4xf64>) -> tensor<1x2x2x3x2xf64>
  %1:2 = aten.max_pool3d_with_indices %x {kernel_size = array<i64: 3, 3, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 0>, dilation = array<i64: 1, 1, 1>, ceil_mode = true} : (tensor<1x2x5x6x4xf64>) -> (tensor<1x2x3x4x2xf64>, tensor<1x2x3x4x2xi64>)
  %2 = aten.max_pool3d %y {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 1, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 2, 2>} : (tensor<2x4x5x5xf64>) -> tensor<2x3x2x2xf64>
  %3 = aten.avg_pool3d %x {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>} : (tensor<1x2x5x6x4xf64>) -> tensor<1x2x3x3x2xf64>
  %4 = aten.avg_pool3d %x {kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1>, count_include_pad = false, ceil_mode = true} : (tensor<1x2x5x6x4xf64>) -> tensor<1x2x3x4x3xf64>
  %5 = aten.avg_pool3d %x {kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, divisor_override = 3 : i64} : (tensor<1x2x5x6x4xf64>) -> tensor<1x2x2x3x2xf64>
  %6 = aten.adaptive_avg_pool3d %x {output_size = array<i64: 3, 4, 3>} : (tensor<1x2x5x6x4xf64>) -> tensor<1x2x3x4x3xf64>
  %7 = aten.adaptive_avg_pool3d %y {output_size = array<i64: 3, 2, 4>} : (tensor<2x4x5x5xf64>) -> tensor<2x3x2x4xf64>
  return %0, %1#0, %2, %3, %4, %5, %6, %7 : tensor<1x2x2x3x2xf64>, tensor<1x2x3x4x2xf64>, tensor<2x3x2x2xf64>, tensor<1x2x3x3x2xf64>, tensor<1x2x3x4x3xf64>, tensor<1x2x2x3x2xf64>, tensor<1x2x3x4x3xf64>, tensor<2x3x2x4xf64>
}
