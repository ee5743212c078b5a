func.func @f(%x: tensor<2x4x5xf64>, %v: tensor<3x6xf64>)
    -> (tensor<2x4x8xf64>, tensor<2x7x9xf64>, tensor<2x5x8xf64>, tensor<3x10xf64>, tensor<5x9xf64>) {
  %0 = aten.reflection_pad %x {padding = array<i64: 1, 2>} : (tensor<2x4x5xf64>) -> tensor<2x4x8xf64>
  %1 = aten.reflection_pad %x {padding = array<i64: 3, 1, 2, 1>} : (tensor<2x4x5xf64>) -> tensor<2x7x9xf64>
  %2 = aten.replication_pad %x {padding = array<i64: 2, 1, 0, 1>} : (tensor<2x4x5xf64>) -> tensor<2x5x8xf64>
  %3 = aten.circular_pad %v {padding = array<i64: 3, 1>} : (tensor<3x6xf64>) -> tensor<3x10xf64>
  %4 = aten.circular_pad %v {padding = array<i64: 2, 1, 1, 1>} : (tensor<3x6xf64>) -> tensor<5x9xf64>
  return %0, %1, %2, %3, %4 : tensor<2x4x8xf64>, tensor<2x7x9xf64>, tensor<2x5x8xf64>, tensor<3x10xf64>, tensor<5x9xf64>
}
