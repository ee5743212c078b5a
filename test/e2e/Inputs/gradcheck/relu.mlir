func.func @f(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %0 = aten.relu %x : tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
