func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.cumprod %x {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
