// RUN: kiln-opt %s -split-input-file --kiln-cpu-pipeline | FileCheck %s --implicit-check-not=bufferization.clone --implicit-check-not=unrealized_conversion_cast --implicit-check-not=memref.

// A result that is a view of an argument (here a reshape, a collapse, and the
// argument itself) must be returned in a buffer of its own: bufferization
// writes it as bufferization.clone, which the pipeline lowers to an
// allocation and a copy loop, leaving only the LLVM dialect.

// CHECK-LABEL: llvm.func @reshape_result(
// CHECK: llvm.call @kiln_cpu_alloc
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: llvm.return
func.func @reshape_result(%x: tensor<2x3x4xf32>) -> tensor<3x8xf32> {
  %0 = aten.view %x[3, 8] : tensor<2x3x4xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// CHECK-LABEL: llvm.func @flatten_result(
// CHECK: llvm.call @kiln_cpu_alloc
// CHECK: llvm.return
func.func @flatten_result(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: llvm.func @identity_result(
// CHECK: llvm.call @kiln_cpu_alloc
// CHECK: llvm.return
func.func @identity_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.permute %x {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
