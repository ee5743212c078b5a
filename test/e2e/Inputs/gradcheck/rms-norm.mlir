func.func @f(%x: tensor<2x3x4xf64>, %w: tensor<4xf64>, %y: tensor<3x5xf64>) -> (tensor<2x3x4xf64>, tensor<3x5xf64>) {
  %0 = aten.rms_norm %x weight %w {normalized_shape = array<i64: 4>, eps = 1.0e-5 : f64} : (tensor<2x3x4xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %1 = aten.rms_norm %y {normalized_shape = array<i64: 3, 5>} : (tensor<3x5xf64>) -> tensor<3x5xf64>
  return %0, %1 : tensor<2x3x4xf64>, tensor<3x5xf64>
}
