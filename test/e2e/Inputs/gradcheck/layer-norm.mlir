// native_layer_norm's mean and rstd results are not returned: ATen marks them non-differentiable,
// so kiln (as torch.autograd) gives their cotangents no gradient and a finite difference would disagree.
func.func @f(%x: tensor<2x3x4xf64>, %w: tensor<3x4xf64>, %b: tensor<3x4xf64>, %y: tensor<5x6xf64>)
    -> (tensor<2x3x4xf64>, tensor<5x6xf64>) {
  %0:3 = aten.native_layer_norm %x weight %w bias %b {normalized_shape = array<i64: 3, 4>, eps = 1.0e-5 : f64} : (tensor<2x3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<2x3x4xf64>, tensor<2x1x1xf64>, tensor<2x1x1xf64>)
  %1:3 = aten.native_layer_norm %y {normalized_shape = array<i64: 6>, eps = 1.0e-3 : f64} : (tensor<5x6xf64>) -> (tensor<5x6xf64>, tensor<5x1xf64>, tensor<5x1xf64>)
  %2 = aten.layer_norm %x weight %w {normalized_shape = array<i64: 3, 4>} : (tensor<2x3x4xf64>, tensor<3x4xf64>) -> tensor<2x3x4xf64>
  %3 = aten.mul_tensor %0#0, %2 : (tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> tensor<2x3x4xf64>
  return %3, %1#0 : tensor<2x3x4xf64>, tensor<5x6xf64>
}
