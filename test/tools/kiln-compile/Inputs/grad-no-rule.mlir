func.func @forward(%x: tensor<3x4xf32>) -> tensor<3x3x2xf32> {
  %0 = aten.unfold %x {dimension = 1 : i64, size = 2 : i64, step = 1 : i64} : (tensor<3x4xf32>) -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
}
