func.func @f(%v: tensor<2x2x5xf64>, %x: tensor<1x2x4x5xf64>, %w: tensor<1x1x2x3x4xf64>)
    -> (tensor<2x2x12xf64>, tensor<2x2x3xf64>, tensor<1x2x7x9xf64>, tensor<1x2x3x3xf64>, tensor<1x1x3x5x6xf64>, tensor<1x2x8x7xf64>, tensor<1x2x6x3xf64>, tensor<1x2x10x12xf64>) {
  %0 = aten.upsample_linear1d %v {scales = array<f64: 2.5>} : (tensor<2x2x5xf64>) -> tensor<2x2x12xf64>
  %1 = aten.upsample_linear1d %v {output_size = array<i64: 3>, align_corners = true} : (tensor<2x2x5xf64>) -> tensor<2x2x3xf64>
  %2 = aten.upsample_bilinear2d %x {output_size = array<i64: 7, 9>, align_corners = true} : (tensor<1x2x4x5xf64>) -> tensor<1x2x7x9xf64>
  %3 = aten.upsample_bilinear2d %x {output_size = array<i64: 3, 3>} : (tensor<1x2x4x5xf64>) -> tensor<1x2x3x3xf64>
  %4 = aten.upsample_trilinear3d %w {output_size = array<i64: 3, 5, 6>} : (tensor<1x1x2x3x4xf64>) -> tensor<1x1x3x5x6xf64>
  %5 = aten.upsample_bicubic2d %x {output_size = array<i64: 8, 7>} : (tensor<1x2x4x5xf64>) -> tensor<1x2x8x7xf64>
  %6 = aten.upsample_bicubic2d %x {output_size = array<i64: 6, 3>, align_corners = true} : (tensor<1x2x4x5xf64>) -> tensor<1x2x6x3xf64>
  %7 = aten.upsample_bicubic2d %x {scales = array<f64: 2.7, 2.5>} : (tensor<1x2x4x5xf64>) -> tensor<1x2x10x12xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x2x12xf64>, tensor<2x2x3xf64>, tensor<1x2x7x9xf64>, tensor<1x2x3x3xf64>, tensor<1x1x3x5x6xf64>, tensor<1x2x8x7xf64>, tensor<1x2x6x3xf64>, tensor<1x2x10x12xf64>
}
