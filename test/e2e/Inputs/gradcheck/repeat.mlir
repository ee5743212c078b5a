func.func @f(%x: tensor<2x3xf64>, %v: tensor<4xf64>) -> (tensor<4x9xf64>, tensor<2x2x3xf64>, tensor<3x8xf64>) {
  %0 = aten.repeat %x {repeats = array<i64: 2, 3>} : (tensor<2x3xf64>) -> tensor<4x9xf64>
  %1 = aten.repeat %x {repeats = array<i64: 2, 1, 1>} : (tensor<2x3xf64>) -> tensor<2x2x3xf64>
  %2 = aten.repeat %v {repeats = array<i64: 3, 2>} : (tensor<4xf64>) -> tensor<3x8xf64>
  return %0, %1, %2 : tensor<4x9xf64>, tensor<2x2x3xf64>, tensor<3x8xf64>
}
