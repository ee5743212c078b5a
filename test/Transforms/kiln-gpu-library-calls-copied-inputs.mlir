// RUN: kiln-opt %s --kiln-gpu-library-calls | FileCheck %s
// RUN: kiln-opt %s --kiln-cpu-library-calls | FileCheck %s --check-prefix=CPU

// Attention's scores written out as a batched product: q and k of a fused
// projection (1, S, 3 * H * D), split into heads (1, S, H, D) and copied as
// (1, H, S, D) for the product q k^T. On the GPU the product reads the
// projection through transposed views (batch stride D, row stride 3 * H * D)
// and the two copies and their buffers go away.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#heads = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#qmap = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#kmap = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#smap = affine_map<(b, h, i, j, d) -> (b, h, i, j)>

// CHECK-LABEL: func.func @scores
// CHECK-NOT: linalg.generic
// CHECK: %[[Q:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 12, 512, 64], strides: [1179648, 64, 2304, 1]
// CHECK: %[[K:.*]] = memref.reinterpret_cast %{{.*}} to offset: [768], sizes: [1, 12, 512, 64], strides: [1179648, 64, 2304, 1]
// CHECK: memref.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] {{.*}} into memref<12x512x64xf32, strided<[64, 2304, 1]>>
// CHECK: memref.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] {{.*}} into memref<12x512x64xf32, strided<[64, 2304, 1], offset: 768>>
// CHECK: call @kiln_gpu_gemm_f32(%c0_i32, %c1_i32,
// CHECK-NOT: linalg.generic
// CHECK: return
// On the CPU the copies stay.
// CPU-LABEL: func.func @scores
// CPU-COUNT-2: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
func.func @scores(%proj: memref<1x512x2304xf32>, %s: memref<1x12x512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %qs = memref.subview %proj[0, 0, 0] [1, 512, 768] [1, 1, 1] : memref<1x512x2304xf32> to memref<1x512x768xf32, strided<[1179648, 2304, 1]>>
  %ks = memref.subview %proj[0, 0, 768] [1, 512, 768] [1, 1, 1] : memref<1x512x2304xf32> to memref<1x512x768xf32, strided<[1179648, 2304, 1], offset: 768>>
  %q4 = memref.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 512, 12, 64] : memref<1x512x768xf32, strided<[1179648, 2304, 1]>> into memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1]>>
  %k4 = memref.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 512, 12, 64] : memref<1x512x768xf32, strided<[1179648, 2304, 1], offset: 768>> into memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1], offset: 768>>
  %q = memref.alloc() : memref<1x12x512x64xf32>
  %k = memref.alloc() : memref<1x12x512x64xf32>
  linalg.generic {indexing_maps = [#heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k4 : memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1], offset: 768>>) outs(%k : memref<1x12x512x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q4 : memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1]>>) outs(%q : memref<1x12x512x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<1x12x512x512xf32>)
  linalg.generic {indexing_maps = [#qmap, #kmap, #smap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<1x12x512x64xf32>, memref<1x12x512x64xf32>) outs(%s : memref<1x12x512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  memref.dealloc %q : memref<1x12x512x64xf32>
  memref.dealloc %k : memref<1x12x512x64xf32>
  return
}

// Not read through: a copy that also scales (the body is not the element),
// and a copy whose buffer is read again after the product.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-NOT: memref.reinterpret_cast
// CHECK: call @kiln_gpu_gemm_f32
// CHECK: linalg.generic
// CHECK: return
func.func @kept(%proj: memref<1x512x2304xf32>, %s: memref<1x12x512x512xf32>, %out: memref<1x12x512x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 0.125 : f32
  %qs = memref.subview %proj[0, 0, 0] [1, 512, 768] [1, 1, 1] : memref<1x512x2304xf32> to memref<1x512x768xf32, strided<[1179648, 2304, 1]>>
  %ks = memref.subview %proj[0, 0, 768] [1, 512, 768] [1, 1, 1] : memref<1x512x2304xf32> to memref<1x512x768xf32, strided<[1179648, 2304, 1], offset: 768>>
  %q4 = memref.expand_shape %qs [[0], [1], [2, 3]] output_shape [1, 512, 12, 64] : memref<1x512x768xf32, strided<[1179648, 2304, 1]>> into memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1]>>
  %k4 = memref.expand_shape %ks [[0], [1], [2, 3]] output_shape [1, 512, 12, 64] : memref<1x512x768xf32, strided<[1179648, 2304, 1], offset: 768>> into memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1], offset: 768>>
  %q = memref.alloc() : memref<1x12x512x64xf32>
  %k = memref.alloc() : memref<1x12x512x64xf32>
  linalg.generic {indexing_maps = [#heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k4 : memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1], offset: 768>>) outs(%k : memref<1x12x512x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#heads, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q4 : memref<1x512x12x64xf32, strided<[1179648, 2304, 64, 1]>>) outs(%q : memref<1x12x512x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %x = arith.mulf %in, %c : f32
    linalg.yield %x : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<1x12x512x512xf32>)
  linalg.generic {indexing_maps = [#qmap, #kmap, #smap], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<1x12x512x64xf32>, memref<1x12x512x64xf32>) outs(%s : memref<1x12x512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : memref<1x12x512x64xf32>) outs(%out : memref<1x12x512x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %q : memref<1x12x512x64xf32>
  memref.dealloc %k : memref<1x12x512x64xf32>
  return
}
