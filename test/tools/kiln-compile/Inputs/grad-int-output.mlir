func.func @forward(%x: tensor<4xf32>) -> tensor<4xi64> {
  %0 = arith.constant dense<1> : tensor<4xi64>
  return %0 : tensor<4xi64>
}
