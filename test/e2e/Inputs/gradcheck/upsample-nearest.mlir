func.func @f(%x: tensor<2x3x4x5xf64>, %v: tensor<2x2x5xf64>, %w: tensor<1x2x2x3x2xf64>)
    -> (tensor<2x3x8x10xf64>, tensor<2x3x6x7xf64>, tensor<2x3x3x2xf64>, tensor<2x2x12xf64>, tensor<1x2x3x4x5xf64>) {
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8, 10>} : (tensor<2x3x4x5xf64>) -> tensor<2x3x8x10xf64>
  %1 = aten.upsample_nearest2d %x {output_size = array<i64: 6, 7>} : (tensor<2x3x4x5xf64>) -> tensor<2x3x6x7xf64>
  %2 = aten._upsample_nearest_exact2d %x {output_size = array<i64: 3, 2>} : (tensor<2x3x4x5xf64>) -> tensor<2x3x3x2xf64>
  %3 = aten.upsample_nearest1d %v {scales = array<f64: 2.5>} : (tensor<2x2x5xf64>) -> tensor<2x2x12xf64>
  %4 = aten._upsample_nearest_exact3d %w {output_size = array<i64: 3, 4, 5>} : (tensor<1x2x2x3x2xf64>) -> tensor<1x2x3x4x5xf64>
  return %0, %1, %2, %3, %4 : tensor<2x3x8x10xf64>, tensor<2x3x6x7xf64>, tensor<2x3x3x2xf64>, tensor<2x2x12xf64>, tensor<1x2x3x4x5xf64>
}
