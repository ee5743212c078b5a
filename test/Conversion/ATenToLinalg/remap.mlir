// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg,canonicalize))' | FileCheck %s

// flip, roll, repeat, tril/triu and pads (Remap.cpp): one linalg.generic over the
// result reading the source with tensor.extract at coordinates computed from
// the result's own.

// flip reads at n - 1 - i; roll at ((i - shift) mod n + n) mod n.
// CHECK-LABEL: func.func @flip_roll
// CHECK: tensor.dim %{{.*}}, %c1 : tensor<4x?xf32>
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[F:.*]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[F]]]
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[S:.*]] = arith.subi %[[I]], %c2 : index
// CHECK: %[[M:.*]] = arith.remsi %[[S]], %c4 : index
// CHECK: %[[P:.*]] = arith.addi %[[M]], %c4 : index
// CHECK: %[[R:.*]] = arith.remsi %[[P]], %c4 : index
// CHECK: tensor.extract %{{.*}}[%[[R]], %{{.*}}]
func.func @flip_roll(%x: tensor<4x?xf32>) -> (tensor<4x?xf32>, tensor<4x?xf32>) {
  %0 = aten.flip %x {dims = array<i64: -1>} : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = aten.roll %x {shifts = array<i64: 2>, dims = array<i64: 0>} : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0, %1 : tensor<4x?xf32>, tensor<4x?xf32>
}

// repeat reads at i mod n (the leading new dim is ignored); tril keeps j - i <= k.
// CHECK-LABEL: func.func @repeat_tril
// CHECK: outs(%{{.*}} : tensor<2x4x9xf32>)
// CHECK: %[[A:.*]] = linalg.index 1 : index
// CHECK: %[[B:.*]] = linalg.index 2 : index
// CHECK: %[[AM:.*]] = arith.remui %[[A]], %c2 : index
// CHECK: %[[BM:.*]] = arith.remui %[[B]], %c3 : index
// CHECK: tensor.extract %{{.*}}[%[[AM]], %[[BM]]] : tensor<2x3xf32>
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %c1 : index
// CHECK: arith.select %[[KEEP]], %{{.*}}, %{{.*}} : f32
func.func @repeat_tril(%x: tensor<2x3xf32>) -> (tensor<2x4x9xf32>, tensor<2x3xf32>) {
  %0 = aten.repeat %x {repeats = array<i64: 2, 2, 3>} : (tensor<2x3xf32>) -> tensor<2x4x9xf32>
  %1 = aten.tril %x {diagonal = 1 : i64} : tensor<2x3xf32>
  return %0, %1 : tensor<2x4x9xf32>, tensor<2x3xf32>
}

// A negative constant pad crops, a positive one is tensor.pad; reflection
// reads at |j| mirrored at the far edge.
// CHECK-LABEL: func.func @pads
// CHECK: %[[CROP:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 4] [1, 1] : tensor<2x5xf32> to tensor<2x4xf32>
// CHECK: tensor.pad %[[CROP]] low[0, 0] high[0, 3]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = arith.subi %[[J]], %c2 : index
// CHECK: %[[NS:.*]] = arith.subi %c2, %[[J]] : index
// CHECK: %[[ABS:.*]] = arith.maxsi %[[S]], %[[NS]] : index
// CHECK: %[[MIR:.*]] = arith.subi %c8, %[[ABS]] : index
// CHECK: arith.minsi %[[ABS]], %[[MIR]] : index
func.func @pads(%x: tensor<2x5xf32>) -> (tensor<2x7xf32>, tensor<2x8xf32>) {
  %0 = aten.constant_pad_nd %x {pad = array<i64: -1, 3>, value = 2.5 : f64} : (tensor<2x5xf32>) -> tensor<2x7xf32>
  %1 = aten.reflection_pad %x {padding = array<i64: 2, 1>} : (tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x7xf32>, tensor<2x8xf32>
}
