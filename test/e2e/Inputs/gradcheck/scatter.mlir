func.func @f(%x: tensor<3x5xf64>, %s: tensor<2x5xf64>, %t: tensor<3x4xf64>, %v: tensor<2x5xf64>, %w: tensor<f64>)
    -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>) {
  %i = arith.constant dense<[[0, 1, 2, 0, 1], [2, 0, 1, 1, 2]]> : tensor<2x5xi64>
  %j = arith.constant dense<[[4, 0, 2], [1, 3, 4], [0, 2, 1]]> : tensor<3x3xi64>
  %k = arith.constant dense<[[0, 1, 0, 2, 1], [0, 2, 1, 0, 2]]> : tensor<2x5xi64>
  %rows = arith.constant dense<[2, 0]> : tensor<2xi64>
  // scatter (unique positions per column), scatter_add with repeats, without self
  %0 = aten.scatter %x, %i, %s {dim = 0 : i64} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %1 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "sum"} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %2 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "sum", include_self = false} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  // a src larger than its index along dim 1
  %3 = aten.scatter %x, %j, %t {dim = 1 : i64} : (tensor<3x5xf64>, tensor<3x3xi64>, tensor<3x4xf64>) -> tensor<3x5xf64>
  // index_put without accumulate (distinct rows) and with it
  %4 = aten.index_put %x[%rows], %v {index_dims = array<i64: 0>} : (tensor<3x5xf64>, tensor<2xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %5 = aten.index_put %x[%rows], %v {index_dims = array<i64: 0>, accumulate = true} : (tensor<3x5xf64>, tensor<2xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  // a 0-d src written at every indexed position (scatter.value)
  %6 = aten.scatter %x, %i, %w {dim = 0 : i64} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<f64>) -> tensor<3x5xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>
}
