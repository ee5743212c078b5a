func.func @f(%a: tensor<2x1x3x4xf64>, %b: tensor<5x4x2xf64>, %v: tensor<4xf64>, %m: tensor<3x4xf64>,
             %c: tensor<5x3x4xf64>, %s: tensor<3x2xf64>, %n: tensor<4x2xf64>)
    -> (tensor<2x5x3x2xf64>, tensor<5x2xf64>, tensor<3x2xf64>, tensor<f64>, tensor<3xf64>, tensor<3x4xf64>,
        tensor<5x3x2xf64>, tensor<2x1x3xf64>, tensor<5x3x2xf64>) {
  %0 = aten.matmul %a, %b : (tensor<2x1x3x4xf64>, tensor<5x4x2xf64>) -> tensor<2x5x3x2xf64>
  %1 = aten.matmul %v, %b : (tensor<4xf64>, tensor<5x4x2xf64>) -> tensor<5x2xf64>
  %2 = aten.mm %m, %n : (tensor<3x4xf64>, tensor<4x2xf64>) -> tensor<3x2xf64>
  %3 = aten.dot %v, %v : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
  %4 = aten.mv %m, %v : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
  %5 = aten.outer %4, %v : (tensor<3xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  %6 = aten.bmm %c, %b : (tensor<5x3x4xf64>, tensor<5x4x2xf64>) -> tensor<5x3x2xf64>
  %7 = aten.matmul %a, %v : (tensor<2x1x3x4xf64>, tensor<4xf64>) -> tensor<2x1x3xf64>
  %8 = aten.baddbmm %s, %c, %b {beta = 0.5 : f64, alpha = 2.0 : f64} : (tensor<3x2xf64>, tensor<5x3x4xf64>, tensor<5x4x2xf64>) -> tensor<5x3x2xf64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x5x3x2xf64>, tensor<5x2xf64>, tensor<3x2xf64>, tensor<f64>, tensor<3xf64>, tensor<3x4xf64>, tensor<5x3x2xf64>, tensor<2x1x3xf64>, tensor<5x3x2xf64>
}
