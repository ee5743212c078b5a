func.func @forward(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = arith.negf %x : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
