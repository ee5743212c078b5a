func.func @f(%a: tensor<2x3x4xf64>, %c: tensor<2x4x5xf64>, %x: tensor<3x4xf64>, %v: tensor<4xf64>, %w: tensor<1x4x5xf64>)
    -> (tensor<2x3x5xf64>, tensor<3xf64>, tensor<f64>, tensor<3x4x5xf64>, tensor<2x3x5xf64>, tensor<3x4xf64>) {
  %0 = aten.einsum "bij,bjk->bik" (%a, %c) : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  %1 = aten.einsum "ij->i" (%x) : (tensor<3x4xf64>) -> tensor<3xf64>
  %2 = aten.einsum "i,i" (%v, %v) : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
  %3 = aten.einsum "ij,bjk->ijk" (%x, %c) : (tensor<3x4xf64>, tensor<2x4x5xf64>) -> tensor<3x4x5xf64>
  %4 = aten.einsum "...ij,...jk->...ik" (%a, %w) : (tensor<2x3x4xf64>, tensor<1x4x5xf64>) -> tensor<2x3x5xf64>
  %5 = aten.einsum "ij,j->ij" (%x, %v) : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3x5xf64>, tensor<3xf64>, tensor<f64>, tensor<3x4x5xf64>, tensor<2x3x5xf64>, tensor<3x4xf64>
}
