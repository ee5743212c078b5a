func.func @forward(%x: tensor<4xf32>) -> tensor<7xf32> {
  %0 = aten.reflection_pad %x {padding = array<i64: 1, 2>} : (tensor<4xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}
