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
