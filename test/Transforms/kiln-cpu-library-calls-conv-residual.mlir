// RUN: kiln-opt %s --kiln-cpu-library-calls --cse | FileCheck %s

// A residual added to a biased convolution's output, and the activation
// after the add, go into the CPU runtime's call as oneDNN's binary-add and
// eltwise post-ops (LibraryCallConvEpilogue.cpp): kiln_cpu_conv_bias_add_f32.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>

// relu(conv + bias + r) in place: one call (flags 2 + 4 + 8) with the
// residual as its last operand; no loop is left.
// CHECK-DAG: func.func private @kiln_cpu_conv_bias_add_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @residual_relu_in_place(
// CHECK-SAME: %[[R:[a-z0-9]+]]: memref<1x28x28x64xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 14 : i32
// CHECK-NOT: linalg
// CHECK: %[[RV:.*]] = memref.reinterpret_cast %[[R]]
// CHECK: call @kiln_cpu_conv_bias_add_f32(%[[FLAGS]], {{.*}}, %[[RV]])
// CHECK-NOT: linalg
// CHECK: return
func.func @residual_relu_in_place(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32> {kiln.kind = "derived", kiln.name = "c.weight#bn"},
                                  %bias: memref<64xf32>, %r: memref<1x28x28x64xf32>, %out: memref<1x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %out : memref<1x28x28x64xf32>, memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %a, %v : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// conv + bias + r into a buffer of the add's own (the convolution's output
// dies there): the call writes that buffer, no activation (flags 2 + 8),
// and the output's allocation is gone.
// CHECK-LABEL: func.func @residual_into_its_own_buffer(
// CHECK-SAME: %[[R:[a-z0-9]+]]: memref<1x28x28x64xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 10 : i32
// CHECK-DAG: %[[SUM:.*]] = memref.alloc() : memref<1x28x28x64xf32>
// CHECK-NOT: linalg
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[SUM]]
// CHECK: %[[RV:.*]] = memref.reinterpret_cast %[[R]]
// CHECK: call @kiln_cpu_conv_bias_add_f32(%[[FLAGS]], {{.*}}, %[[Y]], %{{.*}}, %[[RV]])
// CHECK-NOT: linalg
// CHECK: return %[[SUM]]
func.func @residual_into_its_own_buffer(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32> {kiln.kind = "derived", kiln.name = "c.weight#bn"},
                                        %bias: memref<64xf32>, %r: memref<1x28x28x64xf32>) -> memref<1x28x28x64xf32> {
  %out = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %sum = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out, %r : memref<1x28x28x64xf32>, memref<1x28x28x64xf32>) outs(%sum : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %a: f32, %o: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  }
  memref.dealloc %out : memref<1x28x28x64xf32>
  return %sum : memref<1x28x28x64xf32>
}

// Left alone: a residual that another op writes between the call and the
// add (the call would read it too early), and a product instead of a sum.
// Each convolution is a kiln_cpu_conv_bias_f32 call; the loops stay.
// CHECK-LABEL: func.func @not_a_residual(
// CHECK: call @kiln_cpu_conv_bias_f32(
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: call @kiln_cpu_conv_bias_f32(
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: return
func.func @not_a_residual(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>, %bias: memref<64xf32>,
                          %r: memref<1x28x28x64xf32>, %out: memref<1x28x28x64xf32>, %out2: memref<1x28x28x64xf32>) {
  %r2 = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : memref<1x28x28x64xf32>) outs(%r2 : memref<1x28x28x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out, %r2 : memref<1x28x28x64xf32>, memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %a: f32, %o: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out2 : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out2 : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out2, %r : memref<1x28x28x64xf32>, memref<1x28x28x64xf32>) outs(%out2 : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %a: f32, %o: f32):
    %s = arith.mulf %v, %a : f32
    linalg.yield %s : f32
  }
  return
}
