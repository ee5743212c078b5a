// RUN: kiln-opt %s -canonicalize | FileCheck %s

// On buffers a runtime call allocates and writes its results. A result that
// only a dealloc uses must not let the dealloc's canonicalization erase the
// call (its other result is still returned): the call stays, and the dealloc
// frees both results.

// CHECK-LABEL: func.func @unused_result
// CHECK: %[[A:.*]]:2 = aten.call_runtime "aten::sort"(%arg0)
// CHECK: %[[B:.*]]:2 = aten.call_runtime "aten::sort"(%arg1)
// CHECK: bufferization.dealloc (%[[A]]#0, %[[A]]#1, %[[B]]#0, %[[B]]#1 : {{.*}}) retain (%[[A]]#1, %[[B]]#1 :
// CHECK: return %[[A]]#1, %[[B]]#1
func.func @unused_result(%arg0: memref<5xf32>, %arg1: memref<5xf32>) -> (memref<5xi64>, memref<5xi64>) {
  %true = arith.constant true
  %0:2 = aten.call_runtime "aten::sort"(%arg0) {args = [memref<5xf32>, -1, false]} : (memref<5xf32>) -> (memref<5xf32>, memref<5xi64>)
  %1:2 = aten.call_runtime "aten::sort"(%arg1) {args = [memref<5xf32>, -1, false]} : (memref<5xf32>) -> (memref<5xf32>, memref<5xi64>)
  %b0, %o0, %s0, %t0 = memref.extract_strided_metadata %0#0 : memref<5xf32> -> memref<f32>, index, index, index
  %b1, %o1, %s1, %t1 = memref.extract_strided_metadata %0#1 : memref<5xi64> -> memref<i64>, index, index, index
  %b2, %o2, %s2, %t2 = memref.extract_strided_metadata %1#0 : memref<5xf32> -> memref<f32>, index, index, index
  %b3, %o3, %s3, %t3 = memref.extract_strided_metadata %1#1 : memref<5xi64> -> memref<i64>, index, index, index
  %2:2 = bufferization.dealloc (%b0, %b1, %b2, %b3 : memref<f32>, memref<i64>, memref<f32>, memref<i64>) if (%true, %true, %true, %true) retain (%0#1, %1#1 : memref<5xi64>, memref<5xi64>)
  return %0#1, %1#1 : memref<5xi64>, memref<5xi64>
}
