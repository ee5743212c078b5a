func.func @f(%x: tensor<3x5xf64>, %y: tensor<2x3x4xf64>) -> (tensor<3x5xf64>, tensor<3x5xf64>, tensor<2x3x4xf64>) {
  %0 = aten._softmax %x {dim = -1 : i64} : (tensor<3x5xf64>) -> tensor<3x5xf64>
  %1 = aten._log_softmax %x {dim = 0 : i64} : (tensor<3x5xf64>) -> tensor<3x5xf64>
  %2 = aten.softmax_int %y {dim = 1 : i64} : (tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %0, %1, %2 : tensor<3x5xf64>, tensor<3x5xf64>, tensor<2x3x4xf64>
}
