func.func @f(%w: tensor<6x3xf64>, %x: tensor<4x5xf64>) -> (tensor<2x3x3xf64>, tensor<4x3xf64>, tensor<4x2xf64>, tensor<4xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<5x4xf64>) {
  %ids = arith.constant dense<[[1, 4, 1], [0, 5, 4]]> : tensor<2x3xi64>
  %sel = arith.constant dense<[4, 0, 4]> : tensor<3xi64>
  %gi = arith.constant dense<[[0, 0], [3, 1], [2, 2], [4, 0]]> : tensor<4x2xi64>
  %0 = aten.index_tensor %w[%ids] {index_dims = array<i64: 0>} : (tensor<6x3xf64>, tensor<2x3xi64>) -> tensor<2x3x3xf64>
  %1 = aten.index_select %x, %sel {dim = 1 : i64} : (tensor<4x5xf64>, tensor<3xi64>) -> tensor<4x3xf64>
  %2 = aten.gather %x, %gi {dim = 1 : i64} : (tensor<4x5xf64>, tensor<4x2xi64>) -> tensor<4x2xf64>
  %3 = aten.select_int %x[-2] {dim = 1 : i64} : tensor<4x5xf64> -> tensor<4xf64>
  %4 = aten.flip %x {dims = array<i64: 0, 1>} : (tensor<4x5xf64>) -> tensor<4x5xf64>
  %5 = aten.roll %x {shifts = array<i64: 2, -1>, dims = array<i64: 1, 0>} : (tensor<4x5xf64>) -> tensor<4x5xf64>
  %6 = aten.tril %x {diagonal = 1 : i64} : tensor<4x5xf64>
  %7 = aten.constant_pad_nd %x {pad = array<i64: -1, 0, 1, 0>, value = 2.5 : f64} : (tensor<4x5xf64>) -> tensor<5x4xf64>
  %8 = aten.mul_tensor %4, %5 : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64>
  return %0, %1, %2, %3, %8, %6, %4, %7 : tensor<2x3x3xf64>, tensor<4x3xf64>, tensor<4x2xf64>, tensor<4xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<5x4xf64>
}
