// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{few-outputs=0}),canonicalize)" | FileCheck %s --check-prefix=OFF

// kiln-map-linalg-to-gpu's few-outputs reductions: a reduction with few
// outputs and long reduction loops (a pool over H and W at batch 1, a 1x1
// convolution of a 1x1 map) gets a subgroup per output, not one thread.

// A global average pool's sum over H and W of an NHWC map at batch 1: 96
// outputs, 196 iterations over two reduction loops read across the
// channels. One subgroup per channel (8 a block: 12 blocks of 32 x 8
// threads), the lanes walking h * 14 + w from their lane number in steps of
// 32, each index split back into h and w; an xor butterfly of 5 shuffles,
// lane 0 adds the initial value and stores. Without the option: one thread
// per channel, all 196 iterations each, in one block.
// CHECK-LABEL: func.func @pool_nhwc
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C196:.*]] = arith.constant 196 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C12]], {{.*}} threads(%[[LANE:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[C8]],
// CHECK: scf.for %[[K:.*]] = %[[LANE]] to %[[C196]] step %[[C32]]
// CHECK-DAG: %[[W:.*]] = arith.remui %[[K]], %[[C14]]
// CHECK-DAG: %[[H:.*]] = arith.divui %[[K]], %[[C14]]
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[H]], %[[W]], %{{.*}}] : memref<1x14x14x96xf32>
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: memref.store
// CHECK-NOT: gpu.launch
// OFF-LABEL: func.func @pool_nhwc
// OFF-NOT: gpu.shuffle
// OFF: scf.for
// OFF-NOT: gpu.shuffle
// OFF: return
func.func @pool_nhwc(%x: memref<1x14x14x96xf32>, %y: memref<1x96xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x14x14x96xf32>) outs(%y : memref<1x96xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A squeeze-excite 1x1 convolution of a 1x1 map at batch 1 (a bf16 filter
// and input widened into a float32 accumulator): 60 outputs, a 240-long
// reduction over (c, kh, kw). One subgroup per output; each lane's
// products start from the neutral 0, the initial value (the bias) is added
// once by lane 0.
// CHECK-LABEL: func.func @se_conv
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-COUNT-5: gpu.shuffle xor
// OFF-LABEL: func.func @se_conv
// OFF-NOT: gpu.shuffle
// OFF: return
func.func @se_conv(%x: memref<1x240x1x1xbf16>, %w: memref<60x240x1x1xbf16>, %y: memref<1x60x1x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x240x1x1xbf16>, memref<60x240x1x1xbf16>) outs(%y : memref<1x60x1x1xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Many outputs (32 images' pools: 3072) but a short reduction (16) and
// many outputs (8192) with a long one keep one thread per output.
// CHECK-LABEL: func.func @short
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @short(%x: memref<32x4x4x96xf32>, %y: memref<32x96xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<32x4x4x96xf32>) outs(%y : memref<32x96xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @many
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @many(%x: memref<8x7x7x1024xf32>, %y: memref<8x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<8x7x7x1024xf32>) outs(%y : memref<8x1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// More outputs than few-outputs (32 images x 144 channels: 4608) but an NCHW
// map: each output's 56 x 56 elements lie together at the end of the input,
// so a subgroup per output still reads them contiguously (one thread per
// output would stride 3136 elements apart from its neighbours): 576 blocks
// of 8 subgroups, the lanes walking h * 56 + w.
// CHECK-LABEL: func.func @pool_nchw_batch
// CHECK-DAG: %[[C576:.*]] = arith.constant 576 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C576]], {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[C8]],
// CHECK: memref.load %{{.*}} : memref<32x144x56x56xbf16>
// CHECK-COUNT-5: gpu.shuffle xor
// OFF-LABEL: func.func @pool_nchw_batch
// OFF-NOT: gpu.shuffle
// OFF: return
func.func @pool_nchw_batch(%x: memref<32x144x56x56xbf16>, %y: memref<32x144xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<32x144x56x56xbf16>) outs(%y : memref<32x144xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return
}

// The same pool over an NHWC map: the reduction is not contiguous, but one
// thread per output would run 18 blocks each a 3136-long loop, so each
// output still gets a subgroup (the 8 of a block take 8 neighbouring
// channels, sharing the cache lines they read).
// CHECK-LABEL: func.func @pool_nhwc_batch
// CHECK-DAG: %[[C576:.*]] = arith.constant 576 : index
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C576]],
// CHECK: memref.load %{{.*}} : memref<32x56x56x144xbf16>
// CHECK-COUNT-5: gpu.shuffle xor
// OFF-LABEL: func.func @pool_nhwc_batch
// OFF-NOT: gpu.shuffle
// OFF: return
func.func @pool_nhwc_batch(%x: memref<32x56x56x144xbf16>, %y: memref<32x144xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<32x56x56x144xbf16>) outs(%y : memref<32x144xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return
}
