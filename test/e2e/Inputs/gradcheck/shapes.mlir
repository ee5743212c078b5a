func.func @f(%x: tensor<2x3x4xf64>, %y: tensor<3x1xf64>) -> tensor<4x6x2xf64> {
  %0 = aten.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  %1 = aten.view %0[4, 6] : tensor<4x2x3xf64> -> tensor<4x6xf64>
  %2 = aten.unsqueeze %1, -1 : (tensor<4x6xf64>) -> tensor<4x6x1xf64>
  %3 = aten.expand %2[-1, -1, 2] : tensor<4x6x1xf64> -> tensor<4x6x2xf64>
  %4 = aten.squeeze_dims %y {dims = array<i64: 1>} : (tensor<3x1xf64>) -> tensor<3xf64>
  %5 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<2x3x4xf64>) -> tensor<2x12xf64>
  %6 = aten.view %5[4, 6, 1] : tensor<2x12xf64> -> tensor<4x6x1xf64>
  %7 = aten.mul_tensor %3, %6 : (tensor<4x6x2xf64>, tensor<4x6x1xf64>) -> tensor<4x6x2xf64>
  %8 = aten.view %4[1, 1, 3] : tensor<3xf64> -> tensor<1x1x3xf64>
  %9 = aten.expand %8[4, 6, 3] : tensor<1x1x3xf64> -> tensor<4x6x3xf64>
  %10 = aten.mean_dim %9 {dim = array<i64: 2>, keepdim = true} : (tensor<4x6x3xf64>) -> tensor<4x6x1xf64>
  %11 = aten.add_tensor %7, %10 : (tensor<4x6x2xf64>, tensor<4x6x1xf64>) -> tensor<4x6x2xf64>
  return %11 : tensor<4x6x2xf64>
}
