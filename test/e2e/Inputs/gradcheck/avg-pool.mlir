func.func @f(%x: tensor<2x3x7x6xf64>, %y: tensor<3x5x5xf64>)
    -> (tensor<2x3x3x3xf64>, tensor<2x3x4x3xf64>, tensor<2x3x3x3xf64>, tensor<3x3x3xf64>) {
  %0 = aten.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>} : (tensor<2x3x7x6xf64>) -> tensor<2x3x3x3xf64>
  %1 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, count_include_pad = false} : (tensor<2x3x7x6xf64>) -> tensor<2x3x4x3xf64>
  %2 = aten.avg_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 3>, padding = array<i64: 0, 1>, ceil_mode = true, divisor_override = 5 : i64} : (tensor<2x3x7x6xf64>) -> tensor<2x3x3x3xf64>
  %3 = aten.avg_pool2d %y {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>} : (tensor<3x5x5xf64>) -> tensor<3x3x3xf64>
  return %0, %1, %2, %3 : tensor<2x3x3x3xf64>, tensor<2x3x4x3xf64>, tensor<2x3x3x3xf64>, tensor<3x3x3xf64>
}
