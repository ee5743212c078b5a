// RUN: kiln-opt %s -split-input-file -kiln-early-dealloc | FileCheck %s

// Each buffer is freed right after the last op that uses it or a view of
// it; a use inside a loop counts as the loop.
// CHECK-LABEL: func.func @views_and_loops(
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<4xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: linalg.copy ins(%{{.*}} : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[V]] : memref<2x2xf32>)
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: scf.for
// CHECK: memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: linalg.fill
// CHECK-NEXT: return
func.func @views_and_loops(%in: memref<4xf32>, %out: memref<2x2xf32>, %acc: memref<f32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%a : memref<4xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.copy ins(%v : memref<2x2xf32>) outs(%out : memref<2x2xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %b[%i] : memref<4xf32>
    memref.store %x, %acc[] : memref<f32>
  }
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%in : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A buffer whose view leaves the block through the terminator, a dealloc of
// a buffer that is not allocated in the block, and a dealloc in another
// block than its allocation all stay where they are.
// CHECK-LABEL: func.func @stays(
// CHECK: linalg.copy
// CHECK-NEXT: arith.constant
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc %arg1
// CHECK: scf.if
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK: return
func.func @stays(%in: memref<4xf32>, %arg1: memref<4xf32>, %cond: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%in : memref<4xf32>) outs(%arg1 : memref<4xf32>)
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%in : memref<4xf32>)
  memref.dealloc %arg1 : memref<4xf32>
  scf.if %cond {
    linalg.copy ins(%a : memref<4xf32>) outs(%in : memref<4xf32>)
    linalg.fill ins(%z : f32) outs(%in : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
  }
  %c = memref.cast %a : memref<4xf32> to memref<?xf32>
  %r = memref.cast %c : memref<?xf32> to memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// The shape operand of a memref.reshape (index elements, as a view with two
// symbolic sizes in one group lowers) counts 8 bytes an element in the peak.
// CHECK-LABEL: func.func @reshape_shape_buffer
// CHECK-SAME: kiln.peak_buffer_bytes = 24
func.func @reshape_shape_buffer(%x: memref<?x32xf32>, %b: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %shape = memref.alloc() : memref<3xindex>
  memref.store %b, %shape[%c0] : memref<3xindex>
  memref.store %s, %shape[%c1] : memref<3xindex>
  memref.store %c32, %shape[%c2] : memref<3xindex>
  %r = memref.reshape %x(%shape) : (memref<?x32xf32>, memref<3xindex>) -> memref<?x?x32xf32>
  %d = memref.dim %r, %c1 : memref<?x?x32xf32>
  memref.dealloc %shape : memref<3xindex>
  return %d : index
}
