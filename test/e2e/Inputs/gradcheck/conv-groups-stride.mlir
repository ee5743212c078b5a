func.func @f(%x: tensor<2x4x7x7xf64>, %w: tensor<6x2x3x3xf64>, %b: tensor<6xf64>) -> tensor<2x6x4x4xf64> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<2x4x7x7xf64>, tensor<6x2x3x3xf64>, tensor<6xf64>) -> tensor<2x6x4x4xf64>
  return %0 : tensor<2x6x4x4xf64>
}
