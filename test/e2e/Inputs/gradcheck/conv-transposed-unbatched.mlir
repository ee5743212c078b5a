func.func @f(%x1: tensor<2x4x5xf64>, %w1: tensor<4x3x3xf64>, %b1: tensor<6xf64>, %x3: tensor<1x2x3x3x3xf64>, %w3: tensor<2x2x2x2x2xf64>,
             %xu: tensor<3x6x6xf64>, %wu: tensor<4x3x3x3xf64>, %xt: tensor<4x3x3xf64>, %wt: tensor<4x2x2x2xf64>)
    -> (tensor<2x6x10xf64>, tensor<1x2x5x5x5xf64>, tensor<4x4x4xf64>, tensor<2x6x6xf64>) {
  // transposed 1-d: stride 2, padding 1, output padding 1, groups 2, a bias
  %0 = aten.convolution %x1, %w1, %b1 {stride = array<i64: 2>, padding = array<i64: 1>, dilation = array<i64: 1>, transposed = true, output_padding = array<i64: 1>, groups = 2 : i64} : (tensor<2x4x5xf64>, tensor<4x3x3xf64>, tensor<6xf64>) -> tensor<2x6x10xf64>
  // transposed 3-d: stride 2, sliced (an uneven cotangent)
  %2 = aten.convolution %x3, %w3 {stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0>, dilation = array<i64: 1, 1, 1>, transposed = true, output_padding = array<i64: 0, 0, 0>, groups = 1 : i64} : (tensor<1x2x3x3x3xf64>, tensor<2x2x2x2x2xf64>) -> tensor<1x2x6x6x6xf64>
  %3 = aten.slice_tensor %2[0, 5] {dim = 2 : i64} : tensor<1x2x6x6x6xf64> -> tensor<1x2x5x6x6xf64>
  %4 = aten.slice_tensor %3[1, 6] {dim = 3 : i64} : tensor<1x2x5x6x6xf64> -> tensor<1x2x5x5x6xf64>
  %5 = aten.slice_tensor %4[0, 5] {dim = 4 : i64} : tensor<1x2x5x5x6xf64> -> tensor<1x2x5x5x5xf64>
  // an unbatched 2-d convolution (input [C, H, W])
  %6 = aten.convolution %xu, %wu {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<3x6x6xf64>, tensor<4x3x3x3xf64>) -> tensor<4x4x4xf64>
  // an unbatched transposed 2-d convolution, stride 2
  %7 = aten.convolution %xt, %wt {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<4x3x3xf64>, tensor<4x2x2x2xf64>) -> tensor<2x6x6xf64>
  return %0, %5, %6, %7 : tensor<2x6x10xf64>, tensor<1x2x5x5x5xf64>, tensor<4x4x4xf64>, tensor<2x6x6xf64>
}
