// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s

// Row groups whose elementwise ops read inputs broadcast along some of the
// row loops: an attention softmax over (batch, head, query) rows of 512 keys
// whose scores are scaled and masked with a (query, key) mask that every batch
// and head shares. The mask op joins the softmax: one launch, no scores
// buffer written between them.

#s4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#m4 = affine_map<(b, h, i, j) -> (0, 0, i, j)>
#hb = affine_map<(b, h, i, j) -> (h, i, j)>
#r4 = affine_map<(b, h, i, j) -> (b, h, i)>

// The i1 mask (not packed in bytes) is read an element at a time; the float
// scores still take vectors of 4.
// CHECK-LABEL: func.func @masked_softmax
// CHECK: gpu.launch blocks
// CHECK: vector.load %arg0{{.*}} : memref<2x12x512x512xf32>, vector<4xf32>
// CHECK: memref.load %arg1{{.*}} : memref<1x1x512x512xi1>
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @masked_softmax(%s: memref<2x12x512x512xf32>, %mask: memref<1x1x512x512xi1>, %p: memref<2x12x512x512xf32>) {
  %scale = arith.constant 0.125 : f32
  %neg = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#s4, #m4, #s4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %mask : memref<2x12x512x512xf32>, memref<1x1x512x512xi1>) outs(%p : memref<2x12x512x512xf32>) {
  ^bb0(%a: f32, %keep: i1, %o: f32):
    %x = arith.mulf %a, %scale : f32
    %y = arith.select %keep, %x, %neg : f32
    linalg.yield %y : f32
  }
  %max = memref.alloc() : memref<2x12x512xf32>
  linalg.fill ins(%neg : f32) outs(%max : memref<2x12x512xf32>)
  linalg.generic {indexing_maps = [#s4, #r4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p : memref<2x12x512x512xf32>) outs(%max : memref<2x12x512xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %m, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#s4, #r4, #s4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %max : memref<2x12x512x512xf32>, memref<2x12x512xf32>) outs(%p : memref<2x12x512x512xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  memref.dealloc %max : memref<2x12x512xf32>
  return
}

// A bias per head and position (h, i, j), shared by the batch, read as
// vectors like the scores.
// CHECK-LABEL: func.func @biased_max
// CHECK: gpu.launch blocks
// CHECK-DAG: vector.load %arg0{{.*}} : memref<4x3x128x128xf32>
// CHECK-DAG: vector.load %arg1{{.*}} : memref<3x128x128xf32>
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @biased_max(%s: memref<4x3x128x128xf32>, %bias: memref<3x128x128xf32>, %p: memref<4x3x128x128xf32>, %max: memref<4x3x128xf32>) {
  %neg = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#s4, #hb, #s4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %bias : memref<4x3x128x128xf32>, memref<3x128x128xf32>) outs(%p : memref<4x3x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.addf %a, %b : f32
    linalg.yield %x : f32
  }
  linalg.fill ins(%neg : f32) outs(%max : memref<4x3x128xf32>)
  linalg.generic {indexing_maps = [#s4, #r4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p : memref<4x3x128x128xf32>) outs(%max : memref<4x3x128xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %m, %a : f32
    linalg.yield %r : f32
  }
  return
}

// An input read along a row loop at the element's place (a transposed
// read) does not join: the map's loops are out of order.
// CHECK-LABEL: func.func @transposed_input
// CHECK-COUNT-2: gpu.launch blocks
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @transposed_input(%s: memref<64x64xf32>, %t: memref<64x64xf32>, %p: memref<64x64xf32>, %max: memref<64xf32>) {
  %neg = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %t : memref<64x64xf32>, memref<64x64xf32>) outs(%p : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.addf %a, %b : f32
    linalg.yield %x : f32
  }
  linalg.fill ins(%neg : f32) outs(%max : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%p : memref<64x64xf32>) outs(%max : memref<64xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %m, %a : f32
    linalg.yield %r : f32
  }
  return
}
