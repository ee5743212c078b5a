func.func @f(%x: tensor<3x4xf64>, %y: tensor<3x1xf64>, %z: tensor<4xf64>) -> tensor<3x4xf64> {
  %0 = aten.mul_tensor %x, %y : (tensor<3x4xf64>, tensor<3x1xf64>) -> tensor<3x4xf64>
  %1 = aten.div_tensor %0, %z : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %2 = aten.div_tensor %z, %1 : (tensor<4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %2 : tensor<3x4xf64>
}
