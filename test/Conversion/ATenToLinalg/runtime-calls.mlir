// RUN: kiln-opt %s -convert-aten-to-linalg | FileCheck %s

// A runtime call reads read-only buffer views of its operands; a tensor that
// feeds two calls gets a copy per call, so the two views cannot be merged
// and outlive the tensor's buffer.
// CHECK-LABEL: func.func @one_call
// CHECK: %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only
// CHECK: aten.call_runtime "kilntest::scaled_gelu"(%[[B]])
// CHECK-LABEL: func.func @two_calls
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[X:.*]])
// CHECK: %[[B1:.*]] = bufferization.to_buffer %[[C1]] read_only
// CHECK: aten.call_runtime "kilntest::scaled_gelu"(%[[B1]])
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// CHECK: %[[B2:.*]] = bufferization.to_buffer %[[C2]] read_only
// CHECK: aten.call_runtime "kilntest::scaled_gelu#backward"(%[[B2]],
func.func @one_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4xf32>, 5.000000e-01]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @two_calls(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4xf32>, 5.000000e-01]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.call_runtime "kilntest::scaled_gelu#backward"(%x, %0, %g) {args = [tensor<4xf32>, 5.000000e-01, tensor<4xf32>, tensor<4xf32>]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Two calls whose operands are different tensors here but the same after CSE
// (two expansions of a composite on the same values): each call's views carry
// its place among the function's calls, so CSE keeps one view per call, each
// read right before its call, after any op that may reuse the tensor's buffer.
// RUN: kiln-opt %s -convert-aten-to-linalg -cse | FileCheck %s --check-prefix=CSE
// CSE-LABEL: func.func @calls_after_cse
// CSE: %[[B1:.*]] = bufferization.to_buffer %[[T:[0-9]+]] read_only {kiln.call_operand = [[I:[0-9]+]] : i64}
// CSE: aten.call_runtime "kilntest::scaled_gelu"(%[[B1]])
// CSE-NOT: kiln.call_operand = [[I]] :
// CSE: %[[B2:.*]] = bufferization.to_buffer %[[T]] read_only {kiln.call_operand = {{[0-9]+}} : i64}
// CSE: aten.call_runtime "kilntest::scaled_gelu"(%[[B2]])
func.func @calls_after_cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = aten.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%a) {args = [tensor<4xf32>, 5.000000e-01]} : (tensor<4xf32>) -> tensor<4xf32>
  %b = aten.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.call_runtime "kilntest::scaled_gelu"(%b) {args = [tensor<4xf32>, 5.000000e-01]} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// A tensor list's elements are read through buffer views too; its args entry
// lists their buffer types.
// RUN: kiln-opt %s -convert-aten-to-linalg | FileCheck %s --check-prefix=LIST
// LIST-LABEL: func.func @tensor_list
// LIST: %[[A:.*]] = bufferization.to_buffer %{{.*}} read_only
// LIST: %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only
// LIST: aten.call_runtime "aten::block_diag"(%[[A]], %[[B]]) {args = {{\[\[}}memref<2x3xf32>, memref<3xf32>]]}
func.func @tensor_list(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x4xf32> {
  %0 = aten.call_runtime "aten::block_diag"(%a, %b) {args = [[tensor<2x3xf32>, tensor<3xf32>]]} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
