// RUN: kiln-opt %s --kiln-cpu-library-calls | FileCheck %s

// Three 3x3 convolutions in a chain (channels last, 16 channels). The second
// and third read zero-padded copies of the previous result, and bufferization
// gave the second's result the buffer of its own (unpadded) input: the padding
// folds into the calls anyway, the second call writing a fresh buffer that the
// third reads (the old one freed after the call). Buffers only convolution
// calls touch are marked for oneDNN's blocked layout: the first result
// (y of the first, x of the second: 256 = KILN_CPU_Y_BLOCKED, 128 =
// KILN_CPU_X_BLOCKED) and the second (y, then x); the function's argument and
// the last result, which a copy reads, stay NHWC. Flags: + 2 overwrite (the
// bias broadcast folded in).

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<1x18x18x16xf32>
// CHECK: %[[A:.*]] = memref.alloc() {{.*}} : memref<1x16x16x16xf32>
// CHECK: %[[AV:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: call @kiln_cpu_conv_bias_f32(%c258_i32, {{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}}, {{.*}}, %[[AV]],
// CHECK: %[[F:.*]] = memref.alloc() {{.*}} : memref<1x16x16x16xf32>
// CHECK: %[[AX:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[FV:.*]] = memref.reinterpret_cast %[[F]]
// CHECK: call @kiln_cpu_conv_bias_f32(%c386_i32, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, {{.*}}, %[[AX]], %{{.*}}, %[[FV]],
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[C:.*]] = memref.alloc() {{.*}} : memref<1x16x16x16xf32>
// CHECK: %[[FX:.*]] = memref.reinterpret_cast %[[F]]
// CHECK: call @kiln_cpu_conv_bias_f32(%c130_i32{{[_0-9]*}}, {{.*}}, %[[FX]],
// CHECK: linalg.copy ins(%[[C]]
// CHECK: memref.dealloc %[[F]]
// CHECK-NOT: linalg.map
// CHECK-NOT: memref.subview
// CHECK: return
#in = affine_map<(n, h, w, f, kh, kw, c) -> (n, h + kh, w + kw, c)>
#flt = affine_map<(n, h, w, f, kh, kw, c) -> (f, kh, kw, c)>
#out = affine_map<(n, h, w, f, kh, kw, c) -> (n, h, w, f)>
#bias = affine_map<(n, h, w, c) -> (c)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @chain(%x: memref<1x18x18x16xf32>, %w1: memref<16x3x3x16xf32> {kiln.kind = "param"}, %w2: memref<16x3x3x16xf32> {kiln.kind = "param"},
                 %w3: memref<16x3x3x16xf32> {kiln.kind = "param"}, %b: memref<16xf32> {kiln.kind = "param"}, %res: memref<1x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<16xf32>) outs(%a : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.generic {indexing_maps = [#in, #flt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w1 : memref<1x18x18x16xf32>, memref<16x3x3x16xf32>) outs(%a : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %p = memref.alloc() {alignment = 64 : i64} : memref<1x18x18x16xf32>
  linalg.map outs(%p : memref<1x18x18x16xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %interior = memref.subview %p[0, 1, 1, 0] [1, 16, 16, 16] [1, 1, 1, 1] : memref<1x18x18x16xf32> to memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>
  linalg.copy ins(%a : memref<1x16x16x16xf32>) outs(%interior : memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>)
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<16xf32>) outs(%a : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.generic {indexing_maps = [#in, #flt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w2 : memref<1x18x18x16xf32>, memref<16x3x3x16xf32>) outs(%a : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x18x18x16xf32>
  linalg.map outs(%q : memref<1x18x18x16xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %interior2 = memref.subview %q[0, 1, 1, 0] [1, 16, 16, 16] [1, 1, 1, 1] : memref<1x18x18x16xf32> to memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>
  linalg.copy ins(%a : memref<1x16x16x16xf32>) outs(%interior2 : memref<1x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>)
  %c = memref.alloc() {alignment = 64 : i64} : memref<1x16x16x16xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<16xf32>) outs(%c : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.generic {indexing_maps = [#in, #flt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%q, %w3 : memref<1x18x18x16xf32>, memref<16x3x3x16xf32>) outs(%c : memref<1x16x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%c : memref<1x16x16x16xf32>) outs(%res : memref<1x16x16x16xf32>)
  memref.dealloc %a : memref<1x16x16x16xf32>
  memref.dealloc %p : memref<1x18x18x16xf32>
  memref.dealloc %q : memref<1x18x18x16xf32>
  memref.dealloc %c : memref<1x16x16x16xf32>
  return
}

// A dynamic batch: the fresh buffer takes the output's size, and the bias
// broadcast the call does not fold (it accumulates onto it) initialises the
// fresh buffer instead of the input the call reads. Dynamic shapes stay NHWC.
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x16x16x16xf32>
// CHECK: linalg.copy
// CHECK: %[[N:.*]] = memref.dim %[[T]]
// CHECK: %[[F:.*]] = memref.alloc(%[[N]]) {{.*}} : memref<?x16x16x16xf32>
// CHECK: linalg.generic {{.*}} outs(%[[F]] :
// CHECK: call @kiln_cpu_conv_f32(%c0_i32, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %c0_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c1_i64{{[_0-9]*}},
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK: linalg.copy ins(%[[F]]
// CHECK: memref.dealloc %[[F]]
func.func @dynamic_batch(%a: memref<?x16x16x16xf32>, %w: memref<16x3x3x16xf32> {kiln.kind = "param"}, %b: memref<16xf32> {kiln.kind = "param"}, %res: memref<?x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x16x16x16xf32>
  %t = memref.alloc(%n) {alignment = 64 : i64} : memref<?x16x16x16xf32>
  linalg.copy ins(%a : memref<?x16x16x16xf32>) outs(%t : memref<?x16x16x16xf32>)
  %p = memref.alloc(%n) {alignment = 64 : i64} : memref<?x18x18x16xf32>
  linalg.map outs(%p : memref<?x18x18x16xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %interior = memref.subview %p[0, 1, 1, 0] [%n, 16, 16, 16] [1, 1, 1, 1] : memref<?x18x18x16xf32> to memref<?x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>
  linalg.copy ins(%t : memref<?x16x16x16xf32>) outs(%interior : memref<?x16x16x16xf32, strided<[5184, 288, 16, 1], offset: 304>>)
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<16xf32>) outs(%t : memref<?x16x16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.generic {indexing_maps = [#in, #flt, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%p, %w : memref<?x18x18x16xf32>, memref<16x3x3x16xf32>) outs(%t : memref<?x16x16x16xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%t : memref<?x16x16x16xf32>) outs(%res : memref<?x16x16x16xf32>)
  memref.dealloc %t : memref<?x16x16x16xf32>
  memref.dealloc %p : memref<?x18x18x16xf32>
  return
}
