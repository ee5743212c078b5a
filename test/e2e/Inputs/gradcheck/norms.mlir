func.func @f(%x: tensor<3x4x5xf64>)
    -> (tensor<3x5xf64>, tensor<f64>, tensor<3x4x1xf64>, tensor<4x5xf64>, tensor<3x4xf64>, tensor<3x4x5xf64>) {
  %0 = aten.linalg_vector_norm %x {dim = array<i64: 1>} : (tensor<3x4x5xf64>) -> tensor<3x5xf64>
  %1 = aten.linalg_vector_norm %x {ord = 1.0 : f64} : (tensor<3x4x5xf64>) -> tensor<f64>
  %2 = aten.linalg_vector_norm %x {dim = array<i64: -1>, keepdim = true, ord = 3.0 : f64} : (tensor<3x4x5xf64>) -> tensor<3x4x1xf64>
  %3 = aten.linalg_vector_norm %x {dim = array<i64: 0>, ord = 0x7FF0000000000000 : f64} : (tensor<3x4x5xf64>) -> tensor<4x5xf64>
  %4 = aten.linalg_vector_norm %x {dim = array<i64: 2>, ord = 0xFFF0000000000000 : f64} : (tensor<3x4x5xf64>) -> tensor<3x4xf64>
  %5 = aten.linalg_vector_norm %x {dim = array<i64: 0, 1, 2>, keepdim = true, ord = 0.0 : f64} : (tensor<3x4x5xf64>) -> tensor<1x1x1xf64>
  %6 = aten.mul_tensor %x, %5 : (tensor<3x4x5xf64>, tensor<1x1x1xf64>) -> tensor<3x4x5xf64>
  return %0, %1, %2, %3, %4, %6 : tensor<3x5xf64>, tensor<f64>, tensor<3x4x1xf64>, tensor<4x5xf64>, tensor<3x4xf64>, tensor<3x4x5xf64>
}
