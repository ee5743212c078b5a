// RUN: kiln-opt %s --kiln-cpu-pipeline | FileCheck %s

// Each runtime call becomes a kiln_rt_call_op call naming its op through a
// string global; two calls of one op get two globals, numbered past the names
// the module already has.
// CHECK-DAG: llvm.mlir.global internal constant @__kiln_rt_str_kilntest__scaled_gelu_0("kilntest::scaled_gelu\00")
// CHECK-DAG: llvm.mlir.global internal constant @__kiln_rt_str_kilntest__scaled_gelu_1("kilntest::scaled_gelu\00")
// CHECK-LABEL: llvm.func @twice
// CHECK-DAG: llvm.mlir.addressof @__kiln_rt_str_kilntest__scaled_gelu_0
// CHECK-DAG: llvm.mlir.addressof @__kiln_rt_str_kilntest__scaled_gelu_1
// CHECK: llvm.call @kiln_rt_call_op
// CHECK: llvm.call @kiln_rt_call_op
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4xf32>, 5.000000e-01]} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.call_runtime "kilntest::scaled_gelu"(%0) {args = [tensor<4xf32>, 2.000000e+00]} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A Tensor[] argument: one operand per element, passed as an array of tensor
// records (tag 0) that the argument's own record (tag 8, KILN_RT_TENSOR_LIST)
// points to with the element count in its rank field.
// RUN: kiln-opt %s --kiln-cpu-pipeline | FileCheck %s --check-prefix=LIST
// LIST-LABEL: llvm.func @tensor_list
// LIST-DAG: llvm.mlir.constant(8 : i64)
// LIST-DAG: llvm.mlir.constant(2 : i64)
// LIST: llvm.call @kiln_rt_call_op
func.func @tensor_list(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<5x4xf32> {
  %0 = aten.call_runtime "aten::block_diag"(%a, %b) {args = [[tensor<2x3xf32>, tensor<3xf32>]]} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
