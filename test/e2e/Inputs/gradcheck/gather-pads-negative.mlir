// Pads with a negative (cropping) width on one side, each mode: the gradient
// scatter-adds through the pad's index map.
func.func @f(%x: tensor<2x4x5xf64>)
    -> (tensor<2x4x6xf64>, tensor<2x3x4xf64>, tensor<2x4x3xf64>) {
  %0 = aten.replication_pad %x {padding = array<i64: -1, 2>} : (tensor<2x4x5xf64>) -> tensor<2x4x6xf64>
  %1 = aten.reflection_pad %x {padding = array<i64: 2, -3, -2, 1>} : (tensor<2x4x5xf64>) -> tensor<2x3x4xf64>
  %2 = aten.circular_pad %x {padding = array<i64: -3, 1>} : (tensor<2x4x5xf64>) -> tensor<2x4x3xf64>
  return %0, %1, %2 : tensor<2x4x6xf64>, tensor<2x3x4xf64>, tensor<2x4x3xf64>
}
