// RUN: kiln-opt %s --kiln-cpu-library-calls --cse | FileCheck %s

// A convolution's bias and ReLU go into the CPU runtime's call
// (LibraryCallConvEpilogue.cpp): the broadcast of a bias vector along the
// output channels that filled the whole output just before, and the ReLU
// that rewrites the whole output in place just after.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>
#width = affine_map<(n, h, w, c) -> (w)>

// Bias and ReLU: one kiln_cpu_conv_bias_f32 call that overwrites its output
// and applies the ReLU (flags 2 + 4 + 8, the filter a constant weight).
// CHECK-DAG: func.func private @kiln_cpu_conv_bias_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 14 : i32
// CHECK-NOT: linalg
// CHECK: %[[B:.*]] = memref.cast %[[BIAS]] : memref<64xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]], {{.*}}, %[[B]])
// CHECK-NOT: linalg
// CHECK: return
func.func @conv_bias_relu(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32> {kiln.kind = "derived", kiln.name = "c.weight#bn"},
                          %bias: memref<64xf32>, %out: memref<1x28x28x64xf32>) {
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
      ins(%out : memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// Left alone: a broadcast along another dim than the channels is no bias
// (it stays, the call accumulates onto it: flags 0), and an op after the
// call that is not a ReLU stays too.
// CHECK-LABEL: func.func @not_a_bias(
// CHECK: linalg.generic
// CHECK: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK: call @kiln_cpu_conv_f32(%[[FLAGS]],
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: return
func.func @not_a_bias(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>, %bias: memref<28xf32>,
                      %out: memref<1x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#width, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<28xf32>) outs(%out : memref<1x28x28x64xf32>) {
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
      ins(%out : memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  }
  return
}

// SiLU (x / (1 + exp(-x))) into a buffer of its own, the convolution's
// output dead after it: the call writes that buffer (flags 2 + 32), and the
// convolution's own buffer goes away.
// CHECK-LABEL: func.func @conv_silu_elsewhere(
// CHECK: %[[Z:.*]] = memref.alloc() : memref<1x28x28x64xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAGS:.*]] = arith.constant 34 : i32
// CHECK: memref.reinterpret_cast %[[Z]]
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]],
// CHECK-NOT: math.exp
// CHECK: linalg.copy ins(%[[Z]]
func.func @conv_silu_elsewhere(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>, %bias: memref<64xf32>,
                               %res: memref<1x28x28x64xf32>) {
  %y = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%y : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%y : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %z = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x28x28x64xf32>) outs(%z : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %v, %d : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<1x28x28x64xf32>
  linalg.copy ins(%z : memref<1x28x28x64xf32>) outs(%res : memref<1x28x28x64xf32>)
  memref.dealloc %z : memref<1x28x28x64xf32>
  return
}

// The output starts as a copy of another buffer (a bias broadcast shared with
// a later convolution), then a ReLU into a buffer of its own: the call must
// accumulate onto that copy, so it keeps writing the convolution's buffer
// (flags 0) and the ReLU stays a loop; writing the ReLU's buffer instead
// would add the convolution to whatever that buffer held.
// CHECK-LABEL: func.func @conv_accumulate_relu_elsewhere(
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x28x28x64xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<1x28x28x64xf32>) outs(%[[Y]]
// CHECK: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK: memref.reinterpret_cast %[[Y]]
// CHECK: call @kiln_cpu_conv_f32(%[[FLAGS]],
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Y]]
// CHECK: arith.maximumf
func.func @conv_accumulate_relu_elsewhere(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>,
                                          %init: memref<1x28x28x64xf32>, %res: memref<1x28x28x64xf32>) {
  %y = memref.alloc() : memref<1x28x28x64xf32>
  linalg.copy ins(%init : memref<1x28x28x64xf32>) outs(%y : memref<1x28x28x64xf32>)
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%y : memref<1x28x28x64xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %z = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x28x28x64xf32>) outs(%z : memref<1x28x28x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<1x28x28x64xf32>
  linalg.copy ins(%z : memref<1x28x28x64xf32>) outs(%res : memref<1x28x28x64xf32>)
  memref.dealloc %z : memref<1x28x28x64xf32>
  return
}

// A depthwise (grouped, channels-last) convolution's ReLU into a buffer of
// its own, the output dead after: the call writes that buffer too (flags
// 2 + 4 + 8), its channels not split into (groups, 1) views, and the
// convolution's own buffer goes away.
#dw_in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#dw_w = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, f, kh, kw, c)>
#dw_out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
// CHECK-LABEL: func.func @depthwise_relu_elsewhere(
// CHECK: %[[Z:.*]] = memref.alloc() : memref<1x28x28x16xf32>
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 14 : i32
// CHECK-DAG: %[[G:.*]] = arith.constant 16 : i64
// CHECK: memref.extract_strided_metadata %[[Z]] : memref<1x28x28x16xf32>
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]], %[[G]],
// CHECK-NOT: arith.maximumf
// CHECK-NOT: memref.dealloc
// CHECK: linalg.copy ins(%[[Z]]
func.func @depthwise_relu_elsewhere(%in: memref<1x30x30x16xf32>,
                                    %w: memref<16x3x3x1xf32> {kiln.kind = "derived", kiln.name = "dw.weight#bn"},
                                    %bias: memref<16xf32>, %res: memref<1x28x28x16xf32>) {
  %y = memref.alloc() : memref<1x28x28x16xf32>
  %x5 = memref.expand_shape %in [[0], [1], [2], [3, 4]] output_shape [1, 30, 30, 16, 1]
      : memref<1x30x30x16xf32> into memref<1x30x30x16x1xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [16, 1, 3, 3, 1]
      : memref<16x3x3x1xf32> into memref<16x1x3x3x1xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%y : memref<1x28x28x16xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  %y5 = memref.expand_shape %y [[0], [1], [2], [3, 4]] output_shape [1, 28, 28, 16, 1]
      : memref<1x28x28x16xf32> into memref<1x28x28x16x1xf32>
  linalg.generic {indexing_maps = [#dw_in, #dw_w, #dw_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x5, %w5 : memref<1x30x30x16x1xf32>, memref<16x1x3x3x1xf32>) outs(%y5 : memref<1x28x28x16x1xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %z = memref.alloc() : memref<1x28x28x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x28x28x16xf32>) outs(%z : memref<1x28x28x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<1x28x28x16xf32>
  linalg.copy ins(%z : memref<1x28x28x16xf32>) outs(%res : memref<1x28x28x16xf32>)
  memref.dealloc %z : memref<1x28x28x16xf32>
  return
}

// The SiLU writes the buffer the depthwise convolution reads (through a
// zero-padded copy the call reads past, padding 1; an inverted-residual
// block's, bufferization reusing the expansion's buffer): the call cannot
// write that buffer, so it writes a fresh one with the SiLU applied (flags
// 2 + 8 + 32), the later uses read it, and the input's buffer is freed after
// the call. No SiLU loop is left, nor the convolution's own output buffer.
// CHECK-LABEL: func.func @depthwise_silu_into_its_input(
// CHECK: %[[A:.*]] = memref.alloc() : memref<1x28x28x16xf32>
// CHECK-NOT: memref.alloc() : memref<1x28x28x16xf32>
// CHECK: %[[F:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x16xf32>
// CHECK: %[[FLAGS:.*]] = arith.constant 42 : i32
// CHECK: %[[X:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[F]]
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]], {{.*}}, %[[X]], %{{.*}}, %[[Y]], %{{.*}})
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NOT: math.exp
// CHECK: linalg.copy ins(%[[F]]
// CHECK: return
func.func @depthwise_silu_into_its_input(%arg: memref<1x28x28x16xf32>,
                                         %w: memref<16x3x3x1xf32> {kiln.kind = "derived", kiln.name = "dw.weight#bn"},
                                         %bias: memref<16xf32>, %res: memref<1x28x28x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x28x28x16xf32>
  linalg.copy ins(%arg : memref<1x28x28x16xf32>) outs(%a : memref<1x28x28x16xf32>)
  %pad = memref.alloc() : memref<1x30x30x16xf32>
  linalg.map outs(%pad : memref<1x30x30x16xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %inner = memref.subview %pad[0, 1, 1, 0] [1, 28, 28, 16] [1, 1, 1, 1]
      : memref<1x30x30x16xf32> to memref<1x28x28x16xf32, strided<[14400, 480, 16, 1], offset: 496>>
  linalg.copy ins(%a : memref<1x28x28x16xf32>) outs(%inner : memref<1x28x28x16xf32, strided<[14400, 480, 16, 1], offset: 496>>)
  %x5 = memref.expand_shape %pad [[0], [1], [2], [3, 4]] output_shape [1, 30, 30, 16, 1]
      : memref<1x30x30x16xf32> into memref<1x30x30x16x1xf32>
  %w5 = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [16, 1, 3, 3, 1]
      : memref<16x3x3x1xf32> into memref<16x1x3x3x1xf32>
  %y = memref.alloc() : memref<1x28x28x16xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%y : memref<1x28x28x16xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  %y5 = memref.expand_shape %y [[0], [1], [2], [3, 4]] output_shape [1, 28, 28, 16, 1]
      : memref<1x28x28x16xf32> into memref<1x28x28x16x1xf32>
  linalg.generic {indexing_maps = [#dw_in, #dw_w, #dw_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x5, %w5 : memref<1x30x30x16x1xf32>, memref<16x1x3x3x1xf32>) outs(%y5 : memref<1x28x28x16x1xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x28x28x16xf32>) outs(%a : memref<1x28x28x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %v, %d : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<1x28x28x16xf32>
  memref.dealloc %pad : memref<1x30x30x16xf32>
  linalg.copy ins(%a : memref<1x28x28x16xf32>) outs(%res : memref<1x28x28x16xf32>)
  memref.dealloc %a : memref<1x28x28x16xf32>
  return
}

// The SiLU writes the buffer the convolution reads through its zero-padded
// copy (bufferization reused it: an inverted-residual block's 1x1
// convolution, itself a library call now, wrote it first): the fused call
// writes a fresh buffer, every later use of the SiLU's buffer
// reads that one, and the input's buffer is freed after the call. No SiLU
// loop is left; the input's buffer, which only the two calls touch now,
// keeps the blocked layout between them (flags 256 + 2, then 128 + 32 + 2).
// CHECK-LABEL: func.func @conv_silu_into_its_input(
// CHECK-SAME: %[[RES:[a-z0-9]+]]: memref<1x28x28x32xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<1x28x28x32xf32>
// CHECK: %[[X:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[FIRST:.*]] = arith.constant 258 : i32
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FIRST]], {{.*}}, %[[X]], %{{.*}})
// CHECK: %[[F:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x32xf32>
// CHECK-NOT: linalg.
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[F]]
// CHECK-NOT: linalg.
// CHECK: %[[FLAGS:.*]] = arith.constant 162 : i32
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]], {{.*}}, %[[X]], %{{.*}}, %[[Y]], %{{.*}})
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[F]] : memref<1x28x28x32xf32>) outs(%[[RES]] : memref<1x28x28x32xf32>)
// CHECK: memref.dealloc %[[F]]
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: return
func.func @conv_silu_into_its_input(%in: memref<1x28x28x16xf32>, %w1: memref<32x1x1x16xf32>, %b1: memref<32xf32>,
                                    %w: memref<32x3x3x32xf32>, %bias: memref<32xf32>,
                                    %res: memref<1x28x28x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<1x28x28x32xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b1 : memref<32xf32>) outs(%a : memref<1x28x28x32xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w1 : memref<1x28x28x16xf32>, memref<32x1x1x16xf32>) outs(%a : memref<1x28x28x32xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %pad = memref.alloc() : memref<1x30x30x32xf32>
  linalg.map outs(%pad : memref<1x30x30x32xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %inner = memref.subview %pad[0, 1, 1, 0] [1, 28, 28, 32] [1, 1, 1, 1]
      : memref<1x30x30x32xf32> to memref<1x28x28x32xf32, strided<[28800, 960, 32, 1], offset: 992>>
  linalg.copy ins(%a : memref<1x28x28x32xf32>) outs(%inner : memref<1x28x28x32xf32, strided<[28800, 960, 32, 1], offset: 992>>)
  %y = memref.alloc() : memref<1x28x28x32xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<32xf32>) outs(%y : memref<1x28x28x32xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%pad, %w : memref<1x30x30x32xf32>, memref<32x3x3x32xf32>) outs(%y : memref<1x28x28x32xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : memref<1x28x28x32xf32>) outs(%a : memref<1x28x28x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %v, %d : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<1x28x28x32xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<1x28x28x32xf32>) outs(%res : memref<1x28x28x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  }
  memref.dealloc %a : memref<1x28x28x32xf32>
  return
}
