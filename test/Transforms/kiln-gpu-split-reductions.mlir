// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-split-reductions))' -split-input-file | FileCheck %s

// A batch norm's per-channel sum and sum of squares over N, H, W of NCHW:
// 64 outputs of 100352 iterations each. N becomes a parallel dim of the
// partials (64 x 32, filled with 0), H and W stay the reduction; the second
// stage folds the partials along N into the op's own outputs.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @channel_sums
// CHECK-SAME: (%[[IN:.*]]: tensor<32x64x56x56xf32>, %[[S:.*]]: tensor<64xf32>, %[[Q:.*]]: tensor<64xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<64x32xf32>)
// CHECK: %[[PART:.*]]:2 = linalg.generic {indexing_maps = [#[[X]], #[[P]], #[[P]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[IN]] : tensor<32x64x56x56xf32>)
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[PART]]#0, %[[PART]]#1 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%[[S]], %[[Q]] : tensor<64xf32>, tensor<64xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[O1:.*]]: f32, %[[O2:.*]]: f32):
// CHECK-NEXT: %[[Y1:.*]] = arith.addf %[[O1]], %[[A]] : f32
// CHECK-NEXT: %[[Y2:.*]] = arith.addf %[[B]], %[[O2]] : f32
// CHECK-NEXT: linalg.yield %[[Y1]], %[[Y2]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @channel_sums(%x: tensor<32x64x56x56xf32>, %s: tensor<64xf32>, %q: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>) {
  %0:2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                          affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (c)>],
                         iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<32x64x56x56xf32>) outs(%s, %q : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32, %acc2: f32):
    %sum = arith.addf %acc, %a : f32
    %sq = arith.mulf %a, %a : f32
    %sum2 = arith.addf %sq, %acc2 : f32
    linalg.yield %sum, %sum2 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
  return %0#0, %0#1 : tensor<64xf32>, tensor<64xf32>
}

// -----

// A maximum over a whole [32, 1000] tensor (a loss's reduction to one value):
// 32 partials of 1000, each started at the combiner's neutral element (-inf).
// CHECK-LABEL: func.func @full_max
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<32xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
// CHECK: arith.maximumf
func.func @full_max(%x: tensor<32x1000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<32x1000xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Left alone: many outputs (a row reduction), a dynamic loop, an output that
// is not one combiner of itself and a body value, and a short reduction.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.fill
func.func @left_alone(%rows: tensor<4096x768xf32>, %r: tensor<4096xf32>, %dyn: tensor<?x100000xf32>,
                      %d: tensor<f32>, %x: tensor<64x100000xf32>, %o: tensor<64xf32>, %short: tensor<8x100xf32>,
                      %so: tensor<8xf32>)
    -> (tensor<4096xf32>, tensor<f32>, tensor<64xf32>, tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%rows : tensor<4096x768xf32>) outs(%r : tensor<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%dyn : tensor<?x100000xf32>) outs(%d : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %2 = linalg.generic {indexing_maps = [affine_map<(c, j) -> (c, j)>, affine_map<(c, j) -> (c)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x100000xf32>) outs(%o : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    %s = arith.mulf %t, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(c, j) -> (c, j)>, affine_map<(c, j) -> (c)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<8x100xf32>) outs(%so : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %1, %2, %3 : tensor<4096xf32>, tensor<f32>, tensor<64xf32>, tensor<8xf32>
}

// -----

// A sum of a whole [100000, 64] tensor: its first loop alone would make too
// many partials, so it is cut into 4000 pieces of 25 (the input viewed as
// 4000x25x64), the largest divisor the 4096 partials allow; each partial sums
// 25 x 64 elements.
// CHECK-LABEL: func.func @wide_sum
// CHECK: %[[V:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4000, 25, 64]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[V]] : tensor<4000x25x64xf32>) outs(%{{.*}} : tensor<4000xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<4000xf32>)
func.func @wide_sum(%wide: tensor<100000x64xf32>, %w: tensor<f32>) -> tensor<f32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%wide : tensor<100000x64xf32>) outs(%w : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A squeeze-excite pool over an NHWC map at a large batch (loops in the
// input's order: n, h, w, c): 1024 outputs of 12544 iterations. The layout
// split makes H a parallel dim of the partials kept in the input's order
// (n, h, c: the first stage's threads read neighbouring channels), each over
// W; the second stage folds the partials along H into the op's output.
// CHECK-DAG: #[[X4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[P3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[IN2:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[OUT2:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @nhwc_pool
// CHECK-SAME: (%[[IN:.*]]: tensor<32x112x112x32xbf16>, %[[O:.*]]: tensor<32x32xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x112x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<32x112x32xf32>)
// CHECK: %[[PART:.*]] = linalg.generic {indexing_maps = [#[[X4]], #[[P3]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[IN]] : tensor<32x112x112x32xbf16>) outs(%[[F]] : tensor<32x112x32xf32>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN2]], #[[OUT2]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[PART]] : tensor<32x112x32xf32>) outs(%[[O]] : tensor<32x32xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[A]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @nhwc_pool(%x: tensor<32x112x112x32xbf16>, %o: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, c)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x : tensor<32x112x112x32xbf16>) outs(%o : tensor<32x32xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// A maximum over a small NHWC map with many channels (a global max pool,
// 21504 outputs of 196): H alone gives enough partials (32 x 14 x 672, each
// over the 14 of W, started at -inf).
// CHECK-LABEL: func.func @nhwc_max
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<32x14x672xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<32x14x672xf32>) outs(%{{.*}} : tensor<32x672xf32>)
// CHECK: arith.maximumf
func.func @nhwc_max(%x: tensor<32x14x14x672xf32>, %o: tensor<32x672xf32>) -> tensor<32x672xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, c)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%x : tensor<32x14x14x672xf32>) outs(%o : tensor<32x672xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<32x672xf32>
  return %0 : tensor<32x672xf32>
}

// -----

// Left alone by the layout split: a batch-1 pool (94080 elements), a pool
// with enough outputs already (64 x 2048), a depthwise window (its input read
// at h + kh), and a sum over the batch and sequence of [8, 1024, 768] whose
// whole loops would give only 6144 partials.
// CHECK-LABEL: func.func @layout_left_alone
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.fill
func.func @layout_left_alone(%b1: tensor<1x28x28x120xf32>, %o1: tensor<1x120xf32>, %big: tensor<64x7x7x2048xf32>,
                             %obig: tensor<64x2048xf32>, %dw: tensor<1x11x11x960xf32>, %f: tensor<5x5x960xf32>,
                             %odw: tensor<1x7x7x960xf32>, %seq: tensor<8x1024x768xf32>, %os: tensor<768xf32>)
    -> (tensor<1x120xf32>, tensor<64x2048xf32>, tensor<1x7x7x960xf32>, tensor<768xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, c)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%b1 : tensor<1x28x28x120xf32>) outs(%o1 : tensor<1x120xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x120xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, c)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
      ins(%big : tensor<64x7x7x2048xf32>) outs(%obig : tensor<64x2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<64x2048xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, h, w, kh, kw, c) -> (n, h + kh, w + kw, c)>,
                                        affine_map<(n, h, w, kh, kw, c) -> (kh, kw, c)>,
                                        affine_map<(n, h, w, kh, kw, c) -> (n, h, w, c)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
      ins(%dw, %f : tensor<1x11x11x960xf32>, tensor<5x5x960xf32>) outs(%odw : tensor<1x7x7x960xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %m = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x7x7x960xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(b, s, d) -> (b, s, d)>, affine_map<(b, s, d) -> (d)>],
                       iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%seq : tensor<8x1024x768xf32>) outs(%os : tensor<768xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<768xf32>
  return %0, %1, %2, %3 : tensor<1x120xf32>, tensor<64x2048xf32>, tensor<1x7x7x960xf32>, tensor<768xf32>
}
