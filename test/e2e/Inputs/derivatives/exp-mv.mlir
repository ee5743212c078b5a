// f(x) = exp(A x) for a constant A [3, 4].
func.func @f(%x: tensor<4xf64>) -> tensor<3xf64> {
  %a = arith.constant dense<[[0.5, -1.0, 0.25, 2.0], [1.5, 0.0, -0.5, 0.75], [-0.25, 1.0, 1.0, -1.5]]> : tensor<3x4xf64>
  %0 = aten.mv %a, %x : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
  %1 = aten.exp %0 : (tensor<3xf64>) -> tensor<3xf64>
  return %1 : tensor<3xf64>
}
