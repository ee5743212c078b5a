func.func @f(%x: tensor<2x3x7x5xf64>) -> (tensor<2x3x3x2xf64>, tensor<2x3x1x1xf64>) {
  %0 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<2x3x7x5xf64>) -> tensor<2x3x3x2xf64>
  %1 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<2x3x7x5xf64>) -> tensor<2x3x1x1xf64>
  return %0, %1 : tensor<2x3x3x2xf64>, tensor<2x3x1x1xf64>
}
