// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(kiln-memref-copy-to-linalg))' | FileCheck %s
// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(kiln-memref-copy-to-linalg,convert-linalg-to-loops))' | FileCheck %s --check-prefix=LOOPS

// Every memref.copy becomes linalg.copy (model objects link against no
// support library that memref.copy would call).

// A copy into the interior of a padded buffer (a strided destination).
// CHECK-LABEL: func.func @copy_into_padded
// CHECK-SAME: (%[[SRC:.*]]: memref<4x4xf32>, %[[DST:.*]]: memref<4x4xf32, strided<[6, 1], offset: 7>>)
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x4xf32>) outs(%[[DST]] : memref<4x4xf32, strided<[6, 1], offset: 7>>)
// LOOPS-LABEL: func.func @copy_into_padded
// LOOPS-NOT: memref.copy
// LOOPS: scf.for
// LOOPS: scf.for
// LOOPS: %[[V:.*]] = memref.load
// LOOPS: memref.store %[[V]]
func.func @copy_into_padded(%src: memref<4x4xf32>, %dst: memref<4x4xf32, strided<[6, 1], offset: 7>>) {
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  return
}

// Dynamic shapes and several copies in one function.
// CHECK-LABEL: func.func @dynamic_copies
// CHECK-SAME: (%[[A:.*]]: memref<?x8xf32>, %[[B:.*]]: memref<?x8xf32>, %[[C:.*]]: memref<?xi64>, %[[D:.*]]: memref<?xi64>)
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<?x8xf32>) outs(%[[B]] : memref<?x8xf32>)
// CHECK: linalg.copy ins(%[[C]] : memref<?xi64>) outs(%[[D]] : memref<?xi64>)
func.func @dynamic_copies(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %c: memref<?xi64>, %d: memref<?xi64>) {
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  memref.copy %c, %d : memref<?xi64> to memref<?xi64>
  return
}
