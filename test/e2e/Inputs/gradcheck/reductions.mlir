func.func @f(%x: tensor<3x4x5xf64>)
    -> (tensor<3x5xf64>, tensor<1x4x1xf64>, tensor<3x4xf64>, tensor<f64>, tensor<3x1x5xf64>, tensor<4x5xf64>,
        tensor<3x5xf64>, tensor<3x4x1xf64>, tensor<4xf64>, tensor<3x4xf64>) {
  %0 = aten.sum_dim_intlist %x {dim = array<i64: 1>} : (tensor<3x4x5xf64>) -> tensor<3x5xf64>
  %1 = aten.sum_dim_intlist %x {dim = array<i64: 0, -1>, keepdim = true} : (tensor<3x4x5xf64>) -> tensor<1x4x1xf64>
  %2 = aten.amax %x {dim = array<i64: 2>} : (tensor<3x4x5xf64>) -> tensor<3x4xf64>
  %3 = aten.amin %x : (tensor<3x4x5xf64>) -> tensor<f64>
  %4:2 = aten.max_dim %x {dim = 1 : i64, keepdim = true} : (tensor<3x4x5xf64>) -> (tensor<3x1x5xf64>, tensor<3x1x5xi64>)
  %5:2 = aten.min_dim %x {dim = 0 : i64} : (tensor<3x4x5xf64>) -> (tensor<4x5xf64>, tensor<4x5xi64>)
  %6 = aten.var_correction %x {dim = array<i64: 1>} : (tensor<3x4x5xf64>) -> tensor<3x5xf64>
  %7 = aten.std_correction %x {dim = array<i64: 2>, keepdim = true, correction = 0.0 : f64} : (tensor<3x4x5xf64>) -> tensor<3x4x1xf64>
  %8 = aten.logsumexp %x {dim = array<i64: 0, 2>} : (tensor<3x4x5xf64>) -> tensor<4xf64>
  %9 = aten.mean_dim %x {dim = array<i64: -1>} : (tensor<3x4x5xf64>) -> tensor<3x4xf64>
  return %0, %1, %2, %3, %4#0, %5#0, %6, %7, %8, %9 : tensor<3x5xf64>, tensor<1x4x1xf64>, tensor<3x4xf64>, tensor<f64>, tensor<3x1x5xf64>, tensor<4x5xf64>, tensor<3x5xf64>, tensor<3x4x1xf64>, tensor<4xf64>, tensor<3x4xf64>
}
