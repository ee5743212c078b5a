func.func @f(%x: tensor<3x4x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x4x1xf64>, tensor<3x4x1xf64>) {
  %0:2 = aten.var_mean_correction %x {dim = array<i64: 1>} : (tensor<3x4x5xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>)
  %1:2 = aten.std_mean_correction %x {dim = array<i64: -1>, keepdim = true, correction = 0.0 : f64} : (tensor<3x4x5xf64>) -> (tensor<3x4x1xf64>, tensor<3x4x1xf64>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x4x1xf64>, tensor<3x4x1xf64>
}
