func.func @f(%x: tensor<2x3x5xf64>, %w: tensor<4x5xf64>, %b: tensor<4xf64>, %v: tensor<5xf64>) -> (tensor<2x3x4xf64>, tensor<4xf64>) {
  %0 = aten.linear %x, %w, %b : (tensor<2x3x5xf64>, tensor<4x5xf64>, tensor<4xf64>) -> tensor<2x3x4xf64>
  %1 = aten.linear %v, %w : (tensor<5xf64>, tensor<4x5xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<2x3x4xf64>, tensor<4xf64>
}
