func.func @f(%x: tensor<2x3xf64>, %y: tensor<2x1xf64>, %z: tensor<2x4xf64>) -> (tensor<2x8xf64>, tensor<6x3xf64>) {
  %0 = aten.cat %x, %y, %z {dim = -1 : i64} : (tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x4xf64>) -> tensor<2x8xf64>
  %1 = aten.mul_tensor %x, %x : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %2 = aten.cat %x, %1, %x : (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<6x3xf64>
  return %0, %2 : tensor<2x8xf64>, tensor<6x3xf64>
}
