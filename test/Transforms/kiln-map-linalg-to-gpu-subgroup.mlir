// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize)" | FileCheck %s --check-prefix=WARP
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-size=64}),canonicalize)" | FileCheck %s --check-prefix=WAVE64
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-reductions=false}),canonicalize)" | FileCheck %s --check-prefix=OFF
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-size=512}))" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-size=0}))" 2>&1 | FileCheck %s --check-prefix=BAD

// An op smaller than a block (20 elements) gets a whole number of subgroups:
// one 32-thread NVIDIA warp by default, one 64-wide AMD wavefront (gfx9) with
// subgroup-size=64.
// WARP: %[[C32:.*]] = arith.constant 32 : index
// WARP: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C32]],
// WAVE64: %[[C64:.*]] = arith.constant 64 : index
// WAVE64: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C64]],
// BAD: error: subgroup-size must be in [1, block-size], got
func.func @small(%a: memref<20xf32>, %b: memref<20xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<20xf32>) outs(%b : memref<20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// A row reduction read along its rows (softmax's and layer norm's sums and
// maxima) gets one subgroup per output element: 8 rows of 32 lanes a block
// (blocks = ceil(128 / 8)); each lane sums every 32nd element from the
// neutral element, a butterfly of xor shuffles combines the lanes, and lane
// 0 adds the output's initial value and stores.
// WARP-LABEL: func.func @row_max
// WARP-DAG: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// WARP: gpu.launch blocks({{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[LANE:.*]], %[[R:.*]], %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
// WARP: scf.if
// A static row of 768 is 24 steps of 32 lanes, taken 8 at a time, the 8
// loads first (lane + 32 * step).
// WARP: %[[P:.*]] = scf.for %[[S:.*]] = %c0 to %c24 step %c8 iter_args(%{{.*}} = %[[NEG]]) -> (f32)
// WARP: %[[S32:.*]] = arith.muli %[[S]], %c32
// WARP: arith.addi %[[S32]], %[[LANE]]
// WARP-COUNT-8: memref.load %arg0
// WARP-COUNT-8: arith.maximumf
// WARP: gpu.shuffle xor %[[P]], %c16_i32, %c32_i32 : f32
// WARP: arith.maximumf
// WARP-COUNT-4: gpu.shuffle xor
// WARP: %[[L0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// WARP: scf.if %[[L0]]
// WARP: memref.load %arg1
// WARP: arith.maximumf
// WARP: memref.store
// A 64-wide wavefront shuffles over 64 lanes (6 steps), 4 rows a block.
// WAVE64-LABEL: func.func @row_max
// WAVE64: threads({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c4, %{{.*}} = %c1)
// WAVE64: scf.for %{{.*}} = %c0 to %c12 step %c4 iter_args(
// WAVE64: gpu.shuffle xor %{{.*}}, %c32_i32, %c64_i32 : f32
// WAVE64-COUNT-5: gpu.shuffle xor
// With subgroup-reductions=false it is one thread per row again.
// OFF-LABEL: func.func @row_max
// OFF-NOT: gpu.shuffle
func.func @row_max(%a: memref<128x768xf32>, %b: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x768xf32>) outs(%b : memref<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %o, %x : f32
    linalg.yield %m : f32
  }
  return
}

// Kept one thread per output element: a column sum with many outputs
// (lanes would read 8192 elements apart; neighbouring threads read
// neighbouring columns instead, and 8192 threads fill 32 blocks; with few
// outputs, see kiln-map-linalg-to-gpu-few-outputs.mlir),
// a row shorter than a subgroup, and an argmax (two outputs combined by a
// compare and selects, not one associative op).
// WARP-LABEL: func.func @column_sum
// WARP-NOT: gpu.shuffle
// WARP-LABEL: func.func @short_rows
// WARP-NOT: gpu.shuffle
// WARP-LABEL: func.func @argmax
// WARP-NOT: gpu.shuffle
// WARP: return
func.func @column_sum(%a: memref<128x8192xf32>, %b: memref<8192xf32>) {
  linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x8192xf32>) outs(%b : memref<8192xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}
func.func @short_rows(%a: memref<128x16xf32>, %b: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x16xf32>) outs(%b : memref<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}
func.func @argmax(%a: memref<128x768xf32>, %v: memref<128xf32>, %i: memref<128xi64>) {
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>, affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<128x768xf32>) outs(%v, %i : memref<128xf32>, memref<128xi64>) {
  ^bb0(%x: f32, %o: f32, %oi: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %x, %o : f32
    %nv = arith.select %gt, %x, %o : f32
    %ni = arith.select %gt, %ki, %oi : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}
