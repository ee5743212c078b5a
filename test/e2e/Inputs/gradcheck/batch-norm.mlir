func.func @f(%x: tensor<2x3x4x4xf64>, %w: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<2x3x4x4xf64> {
  %m = arith.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf64>
  %v = arith.constant dense<[0.5, 1.5, 2.0]> : tensor<3xf64>
  %0:3 = aten._native_batch_norm_legit_no_training %x weight %w bias %b mean %m var %v {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x3x4x4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x4x4xf64>, tensor<0xf64>, tensor<0xf64>)
  return %0#0 : tensor<2x3x4x4xf64>
}
