func.func @f(%x: tensor<4x10xf64>) -> (tensor<4x3xf64>, tensor<2x10xf64>) {
  %0 = aten.slice_tensor %x[1, 8] {dim = 1 : i64, step = 3 : i64} : tensor<4x10xf64> -> tensor<4x3xf64>
  %1 = aten.slice_tensor %x[-2, 100] {dim = 0 : i64} : tensor<4x10xf64> -> tensor<2x10xf64>
  %2 = aten.mul_tensor %1, %1 : (tensor<2x10xf64>, tensor<2x10xf64>) -> tensor<2x10xf64>
  return %0, %2 : tensor<4x3xf64>, tensor<2x10xf64>
}
