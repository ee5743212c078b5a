// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{row-blocks=0}),canonicalize)" | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{row-blocks=64}),canonicalize)" | FileCheck %s --check-prefix=B64
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{subgroup-size=64}),canonicalize)" | FileCheck %s --check-prefix=WAVE64
// RUN: not kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{row-blocks=-1}))" 2>&1 | FileCheck %s --check-prefix=BAD

// How many rows a block of a subgroup-per-row kernel takes (`row-blocks`,
// 256 by default): a block's subgroups (256 / 32 = 8), halved while the
// kernel's static rows would fill fewer blocks than that.

#row = affine_map<(i, k) -> (i)>
#elt = affine_map<(i, k) -> (i, k)>
#w = affine_map<(i, k) -> (k)>

// A layer norm's statistics and normalisation over 512 rows of 768 (a
// batch-1 transformer's 512 tokens): one row group. 8 rows a block would be
// 64 blocks; 2 rows a block are 256. With row-blocks=0, 8 rows and 64
// blocks; with row-blocks=64 the 64 blocks are enough. With 64-lane
// subgroups a block holds 4 rows, and 2 rows give 256 blocks.
// CHECK-LABEL: func.func @norm_512
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c2, %{{.*}} = %c1)
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func @norm_512
// OFF: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
// B64-LABEL: func.func @norm_512
// B64: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
// WAVE64-LABEL: func.func @norm_512
// WAVE64: gpu.launch blocks({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c2, %{{.*}} = %c1)
func.func @norm_512(%x: memref<512x768xf32>, %g: memref<768xf32>, %y: memref<512x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %sum = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<512xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x768xf32>) outs(%sum : memref<512xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#elt, #row, #w, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %g : memref<512x768xf32>, memref<512xf32>, memref<768xf32>) outs(%y : memref<512x768xf32>) {
  ^bb0(%a: f32, %s: f32, %gw: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %a, %m : f32
    %p = arith.mulf %d, %gw : f32
    linalg.yield %p : f32
  }
  memref.dealloc %sum : memref<512xf32>
  return
}

// A lone row reduction over 49 rows (a late stage's 7x7 tokens): one row a
// block, 49 blocks, where 8 rows a block would leave 7 blocks. With
// row-blocks=0 a block still takes no more rows than there are.
// CHECK-LABEL: func.func @sum_49
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c49, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1)
// OFF-LABEL: func.func @sum_49
// OFF: gpu.launch blocks({{.*}}) in (%{{.*}} = %c7, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
func.func @sum_49(%x: memref<49x384xf32>, %s: memref<49xf32>) {
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<49x384xf32>) outs(%s : memref<49xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Many rows (4096, a batch-8 transformer's 512 tokens) fill 512 blocks of 8
// rows: unchanged.
// CHECK-LABEL: func.func @max_4096
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
func.func @max_4096(%x: memref<4096x512xf32>, %s: memref<4096xf32>) {
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4096x512xf32>) outs(%s : memref<4096xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// Dynamic rows keep a block's subgroups (8 rows).
// CHECK-LABEL: func.func @sum_dynamic
// CHECK: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
func.func @sum_dynamic(%x: memref<?x384xf32>, %s: memref<?xf32>) {
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x384xf32>) outs(%s : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// BAD: row-blocks must be at least 0, got -1
