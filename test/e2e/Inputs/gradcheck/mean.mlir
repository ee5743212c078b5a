func.func @f(%x: tensor<2x3x4xf64>) -> (tensor<2x4xf64>, tensor<f64>, tensor<2x1x1xf64>) {
  %0 = aten.mean_dim %x {dim = array<i64: 1>} : (tensor<2x3x4xf64>) -> tensor<2x4xf64>
  %1 = aten.mean_dim %x : (tensor<2x3x4xf64>) -> tensor<f64>
  %2 = aten.mean_dim %x {dim = array<i64: -1, 1>, keepdim = true} : (tensor<2x3x4xf64>) -> tensor<2x1x1xf64>
  return %0, %1, %2 : tensor<2x4xf64>, tensor<f64>, tensor<2x1x1xf64>
}
