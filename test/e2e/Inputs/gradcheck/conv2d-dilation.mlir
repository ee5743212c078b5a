func.func @f(%x: tensor<1x2x6x7xf64>, %w: tensor<3x2x2x3xf64>) -> tensor<1x3x7x2xf64> {
  %0 = aten.conv2d %x, %w {stride = array<i64: 1, 2>, padding = array<i64: 2, 0>, dilation = array<i64: 3, 2>} : (tensor<1x2x6x7xf64>, tensor<3x2x2x3xf64>) -> tensor<1x3x7x2xf64>
  return %0 : tensor<1x3x7x2xf64>
}
