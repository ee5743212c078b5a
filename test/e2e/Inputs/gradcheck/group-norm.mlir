func.func @f(%x: tensor<2x6x3x2xf64>, %w: tensor<6xf64>, %b: tensor<6xf64>, %y: tensor<3x4x5xf64>)
    -> (tensor<2x6x3x2xf64>, tensor<3x4x5xf64>) {
  %0:3 = aten.native_group_norm %x weight %w bias %b {group = 3 : i64, eps = 1.0e-5 : f64} : (tensor<2x6x3x2xf64>, tensor<6xf64>, tensor<6xf64>) -> (tensor<2x6x3x2xf64>, tensor<2x3xf64>, tensor<2x3xf64>)
  %1 = aten.group_norm %y {num_groups = 2 : i64} : (tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  return %0#0, %1 : tensor<2x6x3x2xf64>, tensor<3x4x5xf64>
}
