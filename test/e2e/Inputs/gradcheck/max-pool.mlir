func.func @f(%x: tensor<2x3x6x6xf64>, %y: tensor<1x2x7x7xf64>) -> (tensor<2x3x3x3xf64>, tensor<1x2x4x4xf64>) {
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<2x3x6x6xf64>) -> tensor<2x3x3x3xf64>
  %1 = aten.max_pool2d %y {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x7x7xf64>) -> tensor<1x2x4x4xf64>
  return %0, %1 : tensor<2x3x3x3xf64>, tensor<1x2x4x4xf64>
}
