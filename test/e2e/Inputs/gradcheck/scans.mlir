func.func @f(%x: tensor<3x4x5xf64>, %y: tensor<4x3xf64>)
    -> (tensor<3x4x5xf64>, tensor<3x4x5xf64>, tensor<3x4x5xf64>, tensor<4x3xf64>, tensor<3x5xf64>, tensor<4x1xf64>, tensor<f64>) {
  %0 = aten.cumsum %x {dim = 1 : i64} : (tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  %1 = aten.cumsum %x {dim = -1 : i64} : (tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  %2 = aten.cumprod %x {dim = 2 : i64} : (tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  %3 = aten.cumprod %y {dim = 0 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  %4 = aten.prod_dim_int %x {dim = array<i64: 1>} : (tensor<3x4x5xf64>) -> tensor<3x5xf64>
  %5 = aten.prod_dim_int %y {dim = array<i64: -1>, keepdim = true} : (tensor<4x3xf64>) -> tensor<4x1xf64>
  %6 = aten.prod_dim_int %y : (tensor<4x3xf64>) -> tensor<f64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x4x5xf64>, tensor<3x4x5xf64>, tensor<3x4x5xf64>, tensor<4x3xf64>, tensor<3x5xf64>, tensor<4x1xf64>, tensor<f64>
}
