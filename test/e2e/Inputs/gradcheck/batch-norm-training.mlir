// Only the normalized results are returned: ATen marks the saved statistics and the new running
// statistics non-differentiable, so kiln (as torch.autograd) gives their cotangents no gradient.
func.func @f(%x: tensor<4x3x2x2xf64>, %w: tensor<3xf64>, %b: tensor<3xf64>, %rm: tensor<3xf64>, %rv: tensor<3xf64>, %y: tensor<5x2x3xf64>)
    -> (tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>, tensor<5x2x3xf64>) {
  %0:3 = aten.native_batch_norm %x weight %w bias %b mean %rm var %rv {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64}
      : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>)
  %1:5 = aten._native_batch_norm_legit_functional %x weight %w bias %b mean %rm var %rv {training = true, momentum = 0.25 : f64, eps = 1.0e-3 : f64}
      : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  %2:3 = aten.native_batch_norm %y {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64}
      : (tensor<5x2x3xf64>) -> (tensor<5x2x3xf64>, tensor<2xf64>, tensor<2xf64>)
  return %0#0, %1#0, %2#0 : tensor<4x3x2x2xf64>, tensor<4x3x2x2xf64>, tensor<5x2x3xf64>
}
