func.func @f(%x: tensor<3x4xf64>, %y: tensor<4xf64>, %v: tensor<f64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %m = arith.constant dense<[[true, false, true, false], [false, false, true, true], [true, true, false, false]]> : tensor<3x4xi1>
  %lo = arith.constant dense<-0.3> : tensor<f64>
  %0 = aten.where_self %m, %x, %y : (tensor<3x4xi1>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %1 = aten.masked_fill_tensor %x, %m, %v : (tensor<3x4xf64>, tensor<3x4xi1>, tensor<f64>) -> tensor<3x4xf64>
  %2 = aten.clamp_tensor %x min %lo max %y : (tensor<3x4xf64>, tensor<f64>, tensor<4xf64>) -> tensor<3x4xf64>
  %3 = aten.maximum %x, %y : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %4 = aten.minimum %y, %x : (tensor<4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %0, %1, %2, %3, %4 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}
