// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn tf32-convs=true" --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn tf32-convs=true pointwise-gemms=false" --cse | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn tf32-convs=true gemms=false" --cse | FileCheck %s --check-prefix=OFF

// A 1x1, stride-1, unpadded channels-last convolution is the GEMM
// y (N*H*W x F) = x (N*H*W x C) * w (F x C)^T (LibraryCallPointwiseGemm.cpp).
// Where cuDNN's fused call would be a 16-bit one with a bias and no
// activation (limited to IMPLICIT_PRECOMP_GEMM, no tensor cores for bf16)
// it calls cuBLASLt (transB = 1) with that call's epilogue: the bias, the
// 16-bit rounding (the GEMM writes the 16-bit output) and a residual
// (accumulated onto: no overwrite flag 2). With a ReLU, without a bias or in
// float32 the convolution stays cuDNN's, which picks its algorithm freely.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_in2 = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>

// CHECK-DAG: func.func private @kiln_gpu_gemm_lt_bf16(i32, i32, i32, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?xbf16, strided<[?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-NOT: kiln_gpu_gemm_lt_f32

// float32 with its bias and ReLU: cuDNN's fused call, its algorithm free.
// CHECK-LABEL: func.func @bias_relu(
// CHECK-NOT: kiln_gpu_gemm
// CHECK: call @kiln_gpu_conv_bias_f32(
func.func @bias_relu(%in: memref<2x28x28x32xf32>, %w: memref<64x1x1x32xf32>,
                     %bias: memref<64xf32>, %out: memref<2x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xf32>, memref<64x1x1x32xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%out : memref<2x28x28x64xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// No bias, a zeroed output: cuDNN's plain call.
// CHECK-LABEL: func.func @zeroed(
// CHECK-NOT: kiln_gpu_gemm
// CHECK: call @kiln_gpu_conv_f32(
func.func @zeroed(%in: memref<2x28x28x32xf32>, %w: memref<64x1x1x32xf32>, %out: memref<2x28x28x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x28x28x64xf32>)
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xf32>, memref<64x1x1x32xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// bfloat16, its float32 accumulator filled with the widened bias, then
// round(round(conv + bias) + r): the residual is copied into the output (one
// generated kernel), and the GEMM accumulates onto it with the bfloat16 bias
// (flags 0: no overwrite, no TF32 for bf16), rounding the sum once; the
// accumulator, its fill and the rounding loop go away.
// CHECK-LABEL: func.func @bf16_residual(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xbf16>, %[[R:[a-z0-9]+]]: memref<2x28x28x64xbf16>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<2x28x28x64xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[R]] : memref<2x28x28x64xbf16>) outs(%[[Y]] : memref<2x28x28x64xbf16>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: linalg.yield %[[E]] : bf16
// CHECK: %[[B:.*]] = memref.cast %[[BIAS]] : memref<64xbf16> to memref<?xbf16, strided<[?], offset: ?>>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK: call @kiln_gpu_gemm_lt_bf16(%[[FLAGS]], %[[T]], %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[B]])
// CHECK-NOT: linalg
// CHECK-NOT: xf32>
// CHECK: return %[[Y]]
// OFF-LABEL: func.func @bf16_residual(
// OFF: call @kiln_gpu_conv_bias_add_bf16(
func.func @bf16_residual(%in: memref<2x28x28x32xbf16>, %w: memref<64x1x1x32xbf16>, %bias: memref<64xbf16>,
                         %r: memref<2x28x28x64xbf16>) -> memref<2x28x28x64xbf16> {
  %acc = memref.alloc() : memref<2x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xbf16>, memref<64x1x1x32xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<2x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<2x28x28x64xf32>, memref<2x28x28x64xbf16>) outs(%out : memref<2x28x28x64xbf16>) {
  ^bb0(%v: f32, %b: bf16, %o: bf16):
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %sum = arith.addf %r1, %be : f32
    %r2 = arith.truncf %sum : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<2x28x28x64xf32>
  return %out : memref<2x28x28x64xbf16>
}

// The residual's own buffer as the output (the residual is dead after the
// add, so bufferization writes the sum over it): no copy; the GEMM
// accumulates onto it (flags 0).
// CHECK-LABEL: func.func @bf16_residual_in_place(
// CHECK-SAME: %[[SRC:[a-z0-9]+]]: memref<2x28x28x64xbf16>
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x28x28x64xbf16>
// CHECK: linalg.copy ins(%[[SRC]] : memref<2x28x28x64xbf16>) outs(%[[R]] : memref<2x28x28x64xbf16>)
// CHECK-NOT: linalg
// CHECK: memref.collapse_shape %[[R]] {{\[\[}}0, 1, 2], [3]]
// CHECK-NOT: linalg
// CHECK: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK-NOT: linalg
// CHECK: call @kiln_gpu_gemm_lt_bf16(%{{.*}}, %{{.*}}, %[[FLAGS]],
// CHECK-NOT: linalg
// CHECK: return %[[R]]
func.func @bf16_residual_in_place(%in: memref<2x28x28x32xbf16>, %w: memref<64x1x1x32xbf16>, %bias: memref<64xbf16>,
                                  %src: memref<2x28x28x64xbf16>) -> memref<2x28x28x64xbf16> {
  %r = memref.alloc() : memref<2x28x28x64xbf16>
  linalg.copy ins(%src : memref<2x28x28x64xbf16>) outs(%r : memref<2x28x28x64xbf16>)
  %acc = memref.alloc() : memref<2x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xbf16>, memref<64x1x1x32xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<2x28x28x64xf32>, memref<2x28x28x64xbf16>) outs(%r : memref<2x28x28x64xbf16>) {
  ^bb0(%v: f32, %b: bf16, %o: bf16):
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %sum = arith.addf %r1, %be : f32
    %r2 = arith.truncf %sum : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<2x28x28x64xf32>
  return %r : memref<2x28x28x64xbf16>
}

// SiLU after a bfloat16 one: the GEMM writes a bfloat16 buffer with the bias
// (flags 2) that the SiLU loop reads, widening it itself.
// CHECK-LABEL: func.func @bf16_silu(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NARROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x28x28x64xbf16>
// CHECK: call @kiln_gpu_gemm_lt_bf16(%{{.*}}, %{{.*}}, %[[FLAGS]],
// CHECK: linalg.generic {{.*}} ins(%[[NARROW]] : memref<2x28x28x64xbf16>)
// CHECK: math.exp
// CHECK-NOT: xf32>
// CHECK: return
// OFF-LABEL: func.func @bf16_silu(
// OFF-NOT: kiln_gpu_gemm
// OFF: call @kiln_gpu_conv_bias_bf16(
func.func @bf16_silu(%in: memref<2x28x28x32xbf16>, %w: memref<64x1x1x32xbf16>, %bias: memref<64xbf16>)
    -> memref<2x28x28x64xbf16> {
  %acc = memref.alloc() : memref<2x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xbf16>, memref<64x1x1x32xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<2x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x28x28x64xf32>) outs(%out : memref<2x28x28x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %n = arith.negf %r1 : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %r1, %d : f32
    %r2 = arith.truncf %s : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<2x28x28x64xf32>
  return %out : memref<2x28x28x64xbf16>
}

// bfloat16 with its bias and a ReLU: cuDNN's fused call chooses its
// algorithm freely, so it stays (flags 6).
// CHECK-LABEL: func.func @bf16_relu(
// CHECK-NOT: kiln_gpu_gemm
// CHECK: call @kiln_gpu_conv_bias_bf16(
func.func @bf16_relu(%in: memref<2x28x28x32xbf16>, %w: memref<64x1x1x32xbf16>, %bias: memref<64xbf16>)
    -> memref<2x28x28x64xbf16> {
  %acc = memref.alloc() : memref<2x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x32xbf16>, memref<64x1x1x32xbf16>) outs(%acc : memref<2x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<2x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x28x28x64xf32>) outs(%out : memref<2x28x28x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %zero = arith.constant 0.0 : f32
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %m = arith.maximumf %r1, %zero : f32
    %r2 = arith.truncf %m : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<2x28x28x64xf32>
  return %out : memref<2x28x28x64xbf16>
}

// Stride 2 (a ResNet downsampling shortcut) reads the input strided: it stays cuDNN's.
// CHECK-LABEL: func.func @strided(
// CHECK-NOT: kiln_gpu_gemm
// CHECK: call @kiln_gpu_conv_bias_f32(
func.func @strided(%in: memref<2x56x56x32xf32>, %w: memref<64x1x1x32xf32>,
                   %bias: memref<64xf32>, %out: memref<2x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in2, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x56x56x32xf32>, memref<64x1x1x32xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A 3x3 filter is no GEMM: cuDNN's call.
// CHECK-LABEL: func.func @three_by_three(
// CHECK-NOT: kiln_gpu_gemm
// CHECK: call @kiln_gpu_conv_bias_f32(
func.func @three_by_three(%in: memref<2x30x30x32xf32>, %w: memref<64x3x3x32xf32>,
                          %bias: memref<64xf32>, %out: memref<2x28x28x64xf32>) {
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<2x28x28x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
