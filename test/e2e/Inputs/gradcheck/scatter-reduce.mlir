func.func @f(%x: tensor<3x5xf64>, %s: tensor<2x5xf64>, %t: tensor<3x4xf64>)
    -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>) {
  %k = arith.constant dense<[[0, 1, 0, 2, 1], [0, 2, 1, 0, 2]]> : tensor<2x5xi64>
  %j = arith.constant dense<[[4, 0, 4], [1, 3, 1], [0, 0, 0]]> : tensor<3x3xi64>
  // repeated positions (column 0 twice to row 0), with and without self
  %0 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "prod"} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %1 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "prod", include_self = false} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %2 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "mean"} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %3 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "mean", include_self = false} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %4 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "amax"} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  %5 = aten.scatter %x, %k, %s {dim = 0 : i64, reduce = "amin", include_self = false} : (tensor<3x5xf64>, tensor<2x5xi64>, tensor<2x5xf64>) -> tensor<3x5xf64>
  // along dim 1 with a src larger than the index
  %6 = aten.scatter %x, %j, %t {dim = 1 : i64, reduce = "prod"} : (tensor<3x5xf64>, tensor<3x3xi64>, tensor<3x4xf64>) -> tensor<3x5xf64>
  %7 = aten.scatter %x, %j, %t {dim = 1 : i64, reduce = "amax", include_self = false} : (tensor<3x5xf64>, tensor<3x3xi64>, tensor<3x4xf64>) -> tensor<3x5xf64>
  %8 = aten.scatter %x, %j, %t {dim = 1 : i64, reduce = "mean"} : (tensor<3x5xf64>, tensor<3x3xi64>, tensor<3x4xf64>) -> tensor<3x5xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>, tensor<3x5xf64>
}
