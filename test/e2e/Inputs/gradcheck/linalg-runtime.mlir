// The dense linear algebra the runtime runs (aten.call_runtime), differentiated through the
// runtime's autograd formulas ("<op>#backward"). Symmetric positive-definite operands are
// built in the program (X X^T + 4 I); eigen- and singular vectors enter squared, which their
// sign choice does not change.
func.func @f(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>, %x: tensor<3x3xf64>, %r: tensor<3x4xf64>, %t: tensor<4x3xf64>)
    -> (tensor<3x3xf64>, tensor<3x2xf64>, tensor<f64>, tensor<f64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>,
        tensor<3xf64>, tensor<3x3xf64>, tensor<3x4xf64>, tensor<4x3xf64>, tensor<3x3xf64>, tensor<4x3xf64>, tensor<3x3xf64>,
        tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x4xf64>, tensor<3x2xf64>) {
  %eye = arith.constant dense<[[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]]> : tensor<3x3xf64>
  %xt = aten.permute %x {dims = array<i64: 1, 0>} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %xx = aten.matmul %x, %xt : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %spd = aten.add_tensor %xx, %eye : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %0 = aten.call_runtime "aten::linalg_inv"(%a) {args = [tensor<3x3xf64>]} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %1 = aten.call_runtime "aten::linalg_solve"(%a, %b) {args = [tensor<3x3xf64>, tensor<3x2xf64>, true]} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  %2 = aten.call_runtime "aten::linalg_det"(%a) {args = [tensor<3x3xf64>]} : (tensor<3x3xf64>) -> tensor<f64>
  %3:2 = aten.call_runtime "aten::linalg_slogdet"(%a) {args = [tensor<3x3xf64>]} : (tensor<3x3xf64>) -> (tensor<f64>, tensor<f64>)
  %4 = aten.call_runtime "aten::linalg_cholesky"(%spd) {args = [tensor<3x3xf64>, false]} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %5:2 = aten.call_runtime "aten::linalg_eigh"(%spd) {args = [tensor<3x3xf64>, "L"]} : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
  %v2 = aten.mul_tensor %5#1, %5#1 : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %6:3 = aten.call_runtime "aten::_linalg_svd"(%r) {args = [tensor<3x4xf64>, false, true, unit]} : (tensor<3x4xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x4xf64>)
  %u2 = aten.mul_tensor %6#0, %6#0 : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %vh2 = aten.mul_tensor %6#2, %6#2 : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %7:2 = aten.call_runtime "aten::linalg_qr"(%t) {args = [tensor<4x3xf64>, "reduced"]} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>)
  %8 = aten.call_runtime "aten::linalg_pinv.atol_rtol_tensor"(%r) {args = [tensor<3x4xf64>, unit, unit, false]} : (tensor<3x4xf64>) -> tensor<4x3xf64>
  %9 = aten.call_runtime "aten::linalg_matrix_exp"(%x) {args = [tensor<3x3xf64>]} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %10:2 = aten.call_runtime "aten::linalg_lu_factor"(%a) {args = [tensor<3x3xf64>, true]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>)
  %11 = aten.call_runtime "aten::linalg_lu_solve"(%10#0, %10#1, %b) {args = [tensor<3x3xf64>, tensor<3xi32>, tensor<3x2xf64>, true, false]} : (tensor<3x3xf64>, tensor<3xi32>, tensor<3x2xf64>) -> tensor<3x2xf64>
  %12:3 = aten.call_runtime "aten::linalg_lu"(%r) {args = [tensor<3x4xf64>, true]} : (tensor<3x4xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x4xf64>)
  %13 = aten.call_runtime "aten::cholesky_solve"(%b, %4) {args = [tensor<3x2xf64>, tensor<3x3xf64>, false]} : (tensor<3x2xf64>, tensor<3x3xf64>) -> tensor<3x2xf64>
  return %0, %1, %2, %3#1, %4, %5#0, %v2, %6#1, %u2, %vh2, %7#0, %7#1, %8, %9, %10#0, %11, %12#2, %13
      : tensor<3x3xf64>, tensor<3x2xf64>, tensor<f64>, tensor<f64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>,
        tensor<3xf64>, tensor<3x3xf64>, tensor<3x4xf64>, tensor<4x3xf64>, tensor<3x3xf64>, tensor<4x3xf64>, tensor<3x3xf64>,
        tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x4xf64>, tensor<3x2xf64>
}
