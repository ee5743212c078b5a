func.func @f(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %0 = aten.tanh %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %1 = aten.exp %0 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %2 = aten.sigmoid %1 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %3 = aten.silu %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %4 = aten.sin %3 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %5 = aten.cos %4 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %6 = aten.atan %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %7 = aten.erf %6 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %8 = aten.neg %7 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %9 = aten.elu %8 {alpha = 1.5 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %10 = aten.softplus %9 {beta = 2.0 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %11 = aten.leaky_relu %x {negative_slope = 0.2 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %12 = aten.mish %11 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %13 = aten.asinh %12 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %14 = aten.expm1 %13 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %15 = aten.tan %14 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %16 = aten.sinh %15 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %17 = aten.cosh %16 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %18 = aten.hardtanh %x {min_val = -0.5 : f64, max_val = 0.5 : f64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %19 = aten.hardswish %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %20 = aten.abs %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %21 = aten.asin %18 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %22 = aten.acos %21 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %23 = aten.hardsigmoid %19 : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %24 = aten.erfc %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %25 = aten.exp2 %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %26 = aten.floor %x : (tensor<3x4xf64>) -> tensor<3x4xf64>
  %s0 = aten.add_tensor %2, %5 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s1 = aten.add_tensor %s0, %10 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s2 = aten.add_tensor %s1, %17 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s3 = aten.mul_tensor %22, %23 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s4 = aten.add_tensor %s3, %20 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s5 = aten.mul_tensor %24, %25 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s6 = aten.add_tensor %s4, %s5 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s7 = aten.add_tensor %s6, %26 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %s2, %s7 : tensor<3x4xf64>, tensor<3x4xf64>
}
