func.func @f(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %0 = aten.gelu %x : tensor<3x4xf64>
  %1 = aten.gelu %x {approximate = "tanh"} : tensor<3x4xf64>
  return %0, %1 : tensor<3x4xf64>, tensor<3x4xf64>
}
