// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn tf32-convs=true pointwise-gemms=false" --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn epilogues=false" --cse | FileCheck %s --check-prefix=OFF

// A float32 convolution's bias and ReLU go into cuDNN's fused call
// (LibraryCallConvEpilogue.cpp, runtime/src/cuda/Dnn.cpp): the broadcast of
// a bias vector along the output channels that filled the whole output just
// before, and a ReLU of the whole output just after. Other activations stay
// generated kernels on the GPU; the bias still goes into the call.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>

// One declaration, a device call taking the bias as a rank-1 view.
// CHECK-DAG: func.func private @kiln_gpu_conv_bias_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// Bias and ReLU in place: one call that overwrites the output and applies
// the ReLU (flags 1 + 2 + 4: TF32, overwrite, ReLU); no loop is left.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xf32>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 7 : i32
// CHECK-NOT: linalg
// CHECK: %[[B:.*]] = memref.cast %[[BIAS]] : memref<64xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK: call @kiln_gpu_conv_bias_f32(%[[FLAGS]], {{.*}}, %[[B]])
// CHECK-NOT: linalg
// CHECK: return
// With the epilogues off, the broadcast and the ReLU stay and the call accumulates onto the bias.
// OFF-LABEL: func.func @conv_bias_relu(
// OFF: linalg.generic
// OFF: call @kiln_gpu_conv_f32(
// OFF: arith.maximumf
func.func @conv_bias_relu(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>,
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

// SiLU after the convolution: cuDNN's fused call has no SiLU, so only the
// bias goes into the call (flags 1 + 2) and the SiLU stays a loop.
// CHECK-LABEL: func.func @conv_bias_silu(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 3 : i32
// CHECK-NOT: linalg
// CHECK: call @kiln_gpu_conv_bias_f32(%[[FLAGS]],
// CHECK: linalg.generic
// CHECK: math.exp
func.func @conv_bias_silu(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32>,
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
    %one = arith.constant 1.0 : f32
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %v, %d : f32
    linalg.yield %r : f32
  }
  return
}

// A bf16 convolution into a float32 accumulator is left to the plain call
// (the fused call is float32 only): the broadcast stays.
// CHECK-LABEL: func.func @bf16_left_alone(
// CHECK: linalg.generic
// CHECK: call @kiln_gpu_conv_bf16(
func.func @bf16_left_alone(%in: memref<1x30x30x32xbf16>, %w: memref<64x3x3x32xbf16>,
                           %bias: memref<64xf32>, %out: memref<1x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xbf16>, memref<64x3x3x32xbf16>) outs(%out : memref<1x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The ReLU writes the buffer the convolution reads (bufferization reused the
// input's buffer for it; the call reads past the zero-padded copy, padding
// 1): the fused call writes a fresh buffer instead, every later use of the
// ReLU's buffer reads that one, and the input's buffer is freed after the
// call. No ReLU kernel is left.
// CHECK-LABEL: func.func @conv_bias_relu_into_its_input(
// CHECK-SAME: %[[ARG:[a-z0-9]+]]: memref<1x28x28x32xf32>
// CHECK-SAME: %[[RES:[a-z0-9]+]]: memref<1x28x28x32xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<1x28x28x32xf32>
// CHECK: linalg.copy ins(%[[ARG]] {{.*}} outs(%[[A]]
// CHECK-NOT: linalg.map
// CHECK: %[[F:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x32xf32>
// CHECK: %[[FLAGS:.*]] = arith.constant 7 : i32
// CHECK-NOT: linalg.
// CHECK: %[[X:.*]] = memref.reinterpret_cast %[[A]]
// CHECK-NOT: linalg.
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[F]]
// CHECK-NOT: linalg.
// CHECK: call @kiln_gpu_conv_bias_f32(%[[FLAGS]], {{.*}}, %[[X]], %{{.*}}, %[[Y]], %{{.*}})
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NOT: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%[[F]] : memref<1x28x28x32xf32>) outs(%[[RES]] : memref<1x28x28x32xf32>)
// CHECK: memref.dealloc %[[F]]
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK: return
// OFF-LABEL: func.func @conv_bias_relu_into_its_input(
// OFF: call @kiln_gpu_conv_f32(
// OFF: arith.maximumf
func.func @conv_bias_relu_into_its_input(%arg: memref<1x28x28x32xf32>, %w: memref<32x3x3x32xf32>,
                                         %bias: memref<32xf32>, %res: memref<1x28x28x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x28x28x32xf32>
  linalg.copy ins(%arg : memref<1x28x28x32xf32>) outs(%a : memref<1x28x28x32xf32>)
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
    %r = arith.maximumf %v, %zero : f32
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

// The same, with a later convolution reading the ReLU's buffer: it reads the
// fresh buffer the first call wrote (each convolution is matched again just
// before its rewrite, after the earlier ones renamed what they wrote).
// CHECK-LABEL: func.func @renamed_buffer_read_by_next_conv(
// CHECK: %[[F:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x32xf32>
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[F]]
// CHECK: call @kiln_gpu_conv_bias_f32({{.*}}, %[[Y]], %{{[^,]*}})
// CHECK-NEXT: memref.dealloc
// CHECK: call @kiln_gpu_conv_bias_f32({{.*}}, %[[Y]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}})
// CHECK: memref.dealloc %[[F]]
func.func @renamed_buffer_read_by_next_conv(%arg: memref<1x28x28x32xf32>, %w: memref<32x3x3x32xf32>,
                                            %w1: memref<32x1x1x32xf32>, %bias: memref<32xf32>,
                                            %res: memref<1x28x28x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x28x28x32xf32>
  linalg.copy ins(%arg : memref<1x28x28x32xf32>) outs(%a : memref<1x28x28x32xf32>)
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
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<32xf32>) outs(%y : memref<1x28x28x32xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %w1 : memref<1x28x28x32xf32>, memref<32x1x1x32xf32>) outs(%y : memref<1x28x28x32xf32>) {
  ^bb0(%x: f32, %v: f32, %o: f32):
    %p = arith.mulf %x, %v : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  memref.dealloc %a : memref<1x28x28x32xf32>
  linalg.copy ins(%y : memref<1x28x28x32xf32>) outs(%res : memref<1x28x28x32xf32>)
  memref.dealloc %y : memref<1x28x28x32xf32>
  return
}
