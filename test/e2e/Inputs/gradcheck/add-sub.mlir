func.func @f(%x: tensor<2x3x4xf64>, %y: tensor<4xf64>, %z: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %0 = aten.add_tensor %x, %y {alpha = 2.0 : f64} : (tensor<2x3x4xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %1 = aten.sub_tensor %z, %0 {alpha = 0.5 : f64} : (tensor<3x1xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %1 : tensor<2x3x4xf64>
}
