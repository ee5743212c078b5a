func.func @f(%x: tensor<3x4xf64>, %y: tensor<4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %c = arith.constant dense<2.5> : tensor<f64>
  %one = arith.constant dense<1.0> : tensor<f64>
  %three = arith.constant dense<3.0> : tensor<f64>
  %0 = aten.log %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %1 = aten.log2 %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %2 = aten.log10 %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %3 = aten.log1p %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %4 = aten.sqrt %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %5 = aten.rsqrt %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %6 = aten.reciprocal %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %7 = aten.pow_tensor_tensor %x, %c : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %8 = aten.pow_tensor_tensor %x, %y : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %9 = aten.add_tensor %x, %one : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %10 = aten.acosh %9 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %11 = aten.div_tensor %x, %three : (tensor<3x4xf64>, tensor<f64>) -> tensor<3x4xf64>
  %12 = aten.atanh %11 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %13 = aten.hypot %x, %y : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %14 = aten.atan2 %y, %x : (tensor<4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %a0 = aten.add_tensor %0, %1 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %a1 = aten.add_tensor %a0, %2 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %a2 = aten.mul_tensor %a1, %3 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %b0 = aten.mul_tensor %4, %5 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %b1 = aten.add_tensor %b0, %6 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %b2 = aten.add_tensor %b1, %7 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %b3 = aten.add_tensor %b2, %8 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %c0 = aten.add_tensor %10, %12 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %c1 = aten.add_tensor %c0, %13 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %c2 = aten.add_tensor %c1, %14 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %a2, %b3, %c2 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}
