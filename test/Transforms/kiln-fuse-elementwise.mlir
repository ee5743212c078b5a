// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kiln-fuse-elementwise))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(kiln-fuse-elementwise{recompute-broadcasts=true}))' | FileCheck %s --check-prefix=RECOMPUTE

#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A chain of elementwise ops becomes one generic computing 2 * max(x, 0).
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x64xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[M:.*]] = arith.maximumf %[[IN]], %{{.*}} : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[M]], %{{.*}} : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @elementwise_chain(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<8x64xf32>) outs(%e1 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c2 = arith.constant 2.0 : f32
    %m = arith.mulf %in, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

// A bias broadcast feeding an add fuses: the add reads the bias directly.
// CHECK-LABEL: func.func @bias_broadcast_add
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @bias_broadcast_add(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A relu feeding a matmul contraction is NOT fused into it: the contraction
// reads each element of its lhs once per output column, so fusing would
// recompute the relu 16 times per element.
// CHECK-LABEL: func.func @relu_into_matmul_not_fused
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<16x64xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x64xf32>)
// CHECK: arith.maximumf
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[R]], %[[W]] : tensor<8x64xf32>, tensor<16x64xf32>)
// CHECK-NOT: arith.maximumf
// CHECK: return %[[Y]]
func.func @relu_into_matmul_not_fused(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%r, %w : tensor<8x64xf32>, tensor<16x64xf32>) outs(%f : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#all = affine_map<(d0, d1) -> ()>

// A relu feeding a full reduction reads each element once: it fuses.
// CHECK-LABEL: func.func @relu_into_full_reduction
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<8x64xf32>)
// CHECK: %[[M:.*]] = arith.maximumf
// CHECK: arith.addf %{{.*}}, %[[M]] : f32
// CHECK: return %[[Y]]
func.func @relu_into_full_reduction(%x: tensor<8x64xf32>) -> tensor<f32> {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<f32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %y = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]} ins(%r : tensor<8x64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %y : tensor<f32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// A transposed read is still one read per element: it fuses.
// CHECK-LABEL: func.func @permuted_read_fused
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @permuted_read_fused(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e0 = tensor.empty() : tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x8xf32>) outs(%e0 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %y = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<8x8xf32>) outs(%e1 : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c2 = arith.constant 2.0 : f32
    %m = arith.mulf %in, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d0)>

// A consumer that broadcasts the producer (reads each element many times)
// does not fuse it.
// CHECK-LABEL: func.func @broadcast_read_not_fused
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<8xf32>)
// CHECK-NOT: math.exp
func.func @broadcast_read_not_fused(%x: tensor<8xf32>) -> tensor<8x64xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<8xf32>) outs(%e1 : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A producer with another user is not fused: the fused consumer would compute
// exp(x) again while the producer stays for its other user (a residual stream
// fused into every later layer recomputes all earlier ones). exp(x) stays one
// generic; the mul and the row sum each read it.
// CHECK-LABEL: func.func @shared_producer_not_fused
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x64xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<8x64xf32>)
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<8x64xf32>)
// CHECK-NOT: math.exp
// CHECK: return
func.func @shared_producer_not_fused(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8x64xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<8x64xf32>) outs(%e0 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<8xf32>
  %s1 = linalg.fill ins(%z : f32) outs(%s0 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<8x64xf32>) outs(%s1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m, %s : tensor<8x64xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>

// A producer that only moves data (a broadcast) fuses into each of its
// users: nothing is computed twice.
// CHECK-LABEL: func.func @shared_broadcast_fused
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @shared_broadcast_fused(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x16xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %s, %p : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

#vec = affine_map<(d0) -> (d0)>
#nchw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#pool = affine_map<(d0, d1, d2, d3) -> (d0, d1)>

// A batch norm: its per-channel scale and shift, computed from its weights,
// feed the elementwise op that applies them through a broadcast. Without
// recompute-broadcasts they stay a kernel of their own; with it the apply
// op recomputes them per element (one generic), but a reduction reading a
// broadcast producer, or a producer with a second user, is left alone.
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-NOT: math.rsqrt
// CHECK: return
// RECOMPUTE-LABEL: func.func @batch_norm
// RECOMPUTE-SAME: (%[[X:.*]]: tensor<2x8x4x4xf32>, %[[VAR:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xf32>)
// RECOMPUTE-NOT: iterator_types = ["parallel"]}
// RECOMPUTE: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[VAR]], %[[G]] : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
// RECOMPUTE: math.rsqrt
// RECOMPUTE: arith.mulf
// RECOMPUTE: linalg.yield
// RECOMPUTE: return %[[Y]]
func.func @batch_norm(%x: tensor<2x8x4x4xf32>, %var: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
  %eps = arith.constant 1.0e-5 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#vec, #vec, #vec], iterator_types = ["parallel"]} ins(%var, %g : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %a = arith.addf %v, %eps : f32
    %r = math.rsqrt %a : f32
    %m = arith.mulf %w, %r : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<2x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<2x8x4x4xf32>, tensor<8xf32>) outs(%e1 : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x8x4x4xf32>
  return %y : tensor<2x8x4x4xf32>
}

// RECOMPUTE-LABEL: func.func @reduction_keeps_its_producer
// RECOMPUTE: math.rsqrt
// RECOMPUTE: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// RECOMPUTE-NOT: math.rsqrt
// RECOMPUTE: return
func.func @reduction_keeps_its_producer(%x: tensor<2x8x4x4xf32>, %var: tensor<8xf32>) -> tensor<2x8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%var : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #ch, #pool], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %s : tensor<2x8x4x4xf32>, tensor<8xf32>) outs(%f : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %m, %o : f32
    linalg.yield %t : f32
  } -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// RECOMPUTE-LABEL: func.func @shared_producer
// RECOMPUTE: math.rsqrt
// RECOMPUTE: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// RECOMPUTE-NOT: math.rsqrt
// RECOMPUTE: return
func.func @shared_producer(%x: tensor<2x8x4x4xf32>, %var: tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%var : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<2x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #ch, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<2x8x4x4xf32>, tensor<8xf32>) outs(%e1 : tensor<2x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x8x4x4xf32>
  return %y, %s : tensor<2x8x4x4xf32>, tensor<8xf32>
}
