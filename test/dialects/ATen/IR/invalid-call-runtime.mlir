// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// A tensor list in a runtime call's args names one operand per element.
func.func @list_element_not_a_type(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{a list argument holds 1 : i64, not a tensor type}}
  %0 = aten.call_runtime "aten::block_diag"(%a) {args = [[tensor<2xf32>, 1]]} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @list_longer_than_operands(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{args name more operands than the op has}}
  %0 = aten.call_runtime "aten::block_diag"(%a) {args = [[tensor<2xf32>, tensor<2xf32>]]} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @list_element_type_mismatch(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{operand 1 has type 'tensor<3xf32>', args say 'tensor<2xf32>'}}
  %0 = aten.call_runtime "aten::block_diag"(%a, %b) {args = [[tensor<2xf32>, tensor<2xf32>]]} : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @list_ok(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  %0 = aten.call_runtime "aten::block_diag"(%a, %b) {args = [[tensor<2xf32>, tensor<3xf32>]]} : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
