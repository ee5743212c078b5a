func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.flip %x {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
