// f(x, y) = sin(x) * y, y broadcast over the rows of x.
func.func @f(%x: tensor<2x3xf64>, %y: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = aten.sin %x : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %1 = aten.mul_tensor %0, %y : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %1 : tensor<2x3xf64>
}
