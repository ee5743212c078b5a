func.func @f(%b: tensor<4xf64>, %x: tensor<3x5xf64>, %m: tensor<5x4xf64>) -> tensor<3x4xf64> {
  %0 = aten.addmm %b, %x, %m {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<4xf64>, tensor<3x5xf64>, tensor<5x4xf64>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
