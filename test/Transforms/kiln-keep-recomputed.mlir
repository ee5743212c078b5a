// RUN: kiln-opt %s -kiln-keep-recomputed -cse | FileCheck %s
// RUN: kiln-opt %s -cse | FileCheck %s --check-prefix=MERGED

// An op whose location carries the recomputation marker (directly or fused
// into a larger location) gets the `autograd.recomputed` attribute, so CSE
// keeps it apart from the forward op it duplicates; the ops inside it are
// left unmarked. A plain duplicate is still merged. Without the pass CSE
// merges all four.
#fwd = loc("model.py":3:1)
// CHECK-LABEL: func.func @f(
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%[[X:[a-z0-9]*]] : tensor<4xf32>)
// CHECK-NOT: autograd.recomputed
// CHECK: math.tanh %{{.*}} : f32
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) {{.*}} attrs = {autograd.recomputed}
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh %{{.*}} : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]], %[[F]], %[[R]], %[[R]]
// MERGED-COUNT-1: linalg.generic
// MERGED-NOT: linalg.generic
// MERGED: return %[[F:.*]], %[[F]], %[[F]], %[[F]]
#map = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32 loc(#fwd)
    linalg.yield %t : f32 loc(#fwd)
  } -> tensor<4xf32> loc(#fwd)
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32 loc(#fwd)
    linalg.yield %t : f32 loc(#fwd)
  } -> tensor<4xf32> loc(#fwd)
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32 loc(fused<"autograd.recomputed">[#fwd])
    linalg.yield %t : f32 loc(fused<"autograd.recomputed">[#fwd])
  } -> tensor<4xf32> loc(fused<"autograd.recomputed">[#fwd])
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32 loc(#fwd)
    linalg.yield %t : f32 loc(#fwd)
  } -> tensor<4xf32> loc(fused[fused<"autograd.recomputed">[#fwd], "other.py":7:1])
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
