// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize)" | FileCheck %s --check-prefix=WARP
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-size=64}),canonicalize)" | FileCheck %s --check-prefix=WAVE64
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
