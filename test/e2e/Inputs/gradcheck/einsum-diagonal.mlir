func.func @f(%x: tensor<3x3xf64>, %a: tensor<2x3x3xf64>, %c: tensor<3x3x4xf64>, %v: tensor<3xf64>, %w: tensor<3x3x3xf64>)
    -> (tensor<3xf64>, tensor<2x3xf64>, tensor<f64>, tensor<3x4xf64>, tensor<3xf64>, tensor<3x2xf64>) {
  %0 = aten.einsum "ii->i" (%x) : (tensor<3x3xf64>) -> tensor<3xf64>
  %1 = aten.einsum "bii->bi" (%a) : (tensor<2x3x3xf64>) -> tensor<2x3xf64>
  %2 = aten.einsum "ii" (%x) : (tensor<3x3xf64>) -> tensor<f64>
  %3 = aten.einsum "iij,i->ij" (%c, %v) : (tensor<3x3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  %4 = aten.einsum "iii->i" (%w) : (tensor<3x3x3xf64>) -> tensor<3xf64>
  %5 = aten.einsum "bjj,jk->kb" (%a, %x) : (tensor<2x3x3xf64>, tensor<3x3xf64>) -> tensor<3x2xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf64>, tensor<2x3xf64>, tensor<f64>, tensor<3x4xf64>, tensor<3xf64>, tensor<3x2xf64>
}
