func.func @f(%x: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<4xf64>) {
  %0 = aten.linalg_vector_norm %x {dim = array<i64: 1>, ord = 0.5 : f64} : (tensor<3x4xf64>) -> tensor<3xf64>
  %1 = aten.linalg_vector_norm %x {dim = array<i64: 0>, ord = 1.5 : f64} : (tensor<3x4xf64>) -> tensor<4xf64>
  return %0, %1 : tensor<3xf64>, tensor<4xf64>
}
