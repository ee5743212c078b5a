func.func @f(%x: tensor<4x5xf64>, %y: tensor<2x3xf64>) -> (tensor<4x5xf64>, tensor<4xf64>, tensor<f64>) {
  %0 = aten.cumprod %x {dim = 1 : i64} : (tensor<4x5xf64>) -> tensor<4x5xf64>
  %1 = aten.prod_dim_int %x {dim = array<i64: 1>} : (tensor<4x5xf64>) -> tensor<4xf64>
  %2 = aten.prod_dim_int %y : (tensor<2x3xf64>) -> tensor<f64>
  return %0, %1, %2 : tensor<4x5xf64>, tensor<4xf64>, tensor<f64>
}
