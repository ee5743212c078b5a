// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn" --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn epilogues=false" --cse | FileCheck %s --check-prefix=OFF

// A bfloat16 convolution accumulates in float32: its output is a float32
// buffer filled with the widened 16-bit bias, and one loop after it rounds
// the sum to bfloat16 (with a ReLU, or adding a bfloat16 residual first). On
// the GPU the bias, the rounding, the ReLU and the residual go into cuDNN's
// fused call with the 16-bit bias (LibraryCallConvEpilogue.cpp,
// runtime/src/cuda/Dnn.cpp): the call writes the loop's bfloat16 output,
// and the float32 accumulator, the fill and the loop go away.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>

// CHECK-DAG: func.func private @kiln_gpu_conv_bias_bf16(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?xbf16, strided<[?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_conv_bias_add_bf16(i32, {{.*}}, memref<?xbf16, strided<[?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// Bias, rounding and ReLU: one call (flags 2 + 4: overwrite, ReLU) writing
// the bfloat16 output; no loop and no float32 buffer are left.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xbf16>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 6 : i32
// CHECK-NOT: linalg
// CHECK-NOT: xf32>
// CHECK: %[[B:.*]] = memref.cast %[[BIAS]] : memref<64xbf16> to memref<?xbf16, strided<[?], offset: ?>>
// CHECK: call @kiln_gpu_conv_bias_bf16(%[[FLAGS]], {{.*}}, %[[B]])
// CHECK-NOT: linalg
// CHECK: return
// With the epilogues off, the fill, a widening of the call's result and the loop stay.
// OFF-LABEL: func.func @conv_bias_relu(
// OFF: linalg.generic
// OFF: call @kiln_gpu_conv_bf16(
// OFF: arith.maximumf
func.func @conv_bias_relu(%in: memref<1x30x30x32xbf16>, %w: memref<64x3x3x32xbf16>, %bias: memref<64xbf16>)
    -> memref<1x28x28x64xbf16> {
  %acc = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xbf16>, memref<64x3x3x32xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<1x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %zero = arith.constant 0.0 : f32
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %m = arith.maximumf %r1, %zero : f32
    %r2 = arith.truncf %m : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<1x28x28x64xf32>
  return %out : memref<1x28x28x64xbf16>
}

// A residual block's last convolution: round(round(conv + bias) + r), then
// ReLU, becomes the call with r as cuDNN's z (flags 2 + 4), the sum rounded once.
// CHECK-LABEL: func.func @conv_bias_add_relu(
// CHECK-SAME: %[[R:[a-z0-9]+]]: memref<1x28x28x64xbf16>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 6 : i32
// CHECK-NOT: linalg
// CHECK: call @kiln_gpu_conv_bias_add_bf16(%[[FLAGS]],
// CHECK-NOT: linalg
// CHECK: return
func.func @conv_bias_add_relu(%in: memref<1x30x30x32xbf16>, %w: memref<64x3x3x32xbf16>, %bias: memref<64xbf16>,
                              %r: memref<1x28x28x64xbf16>) -> memref<1x28x28x64xbf16> {
  %acc = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xbf16>, memref<64x3x3x32xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<1x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %r : memref<1x28x28x64xf32>, memref<1x28x28x64xbf16>) outs(%out : memref<1x28x28x64xbf16>) {
  ^bb0(%v: f32, %b: bf16, %o: bf16):
    %zero = arith.constant 0.0 : f32
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %sum = arith.addf %r1, %be : f32
    %r2 = arith.truncf %sum : f32 to bf16
    %r3 = arith.extf %r2 : bf16 to f32
    %m = arith.maximumf %r3, %zero : f32
    %r4 = arith.truncf %m : f32 to bf16
    linalg.yield %r4 : bf16
  }
  memref.dealloc %acc : memref<1x28x28x64xf32>
  return %out : memref<1x28x28x64xbf16>
}

// SiLU after the convolution: the bias still goes into the call (flags 2),
// which writes a bfloat16 buffer the SiLU loop reads (widening it itself);
// the float32 accumulator goes away.
// CHECK-LABEL: func.func @conv_bias_silu(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[NARROW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x64xbf16>
// CHECK: call @kiln_gpu_conv_bias_bf16(%[[FLAGS]],
// CHECK: linalg.generic {{.*}} ins(%[[NARROW]] : memref<1x28x28x64xbf16>)
// CHECK: math.exp
// CHECK-NOT: xf32>
// CHECK: return
func.func @conv_bias_silu(%in: memref<1x30x30x32xbf16>, %w: memref<64x3x3x32xbf16>, %bias: memref<64xbf16>)
    -> memref<1x28x28x64xbf16> {
  %acc = memref.alloc() : memref<1x28x28x64xf32>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%b: bf16, %o: f32):
    %e = arith.extf %b : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xbf16>, memref<64x3x3x32xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<1x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %r0 = arith.truncf %v : f32 to bf16
    %r1 = arith.extf %r0 : bf16 to f32
    %n = arith.negf %r1 : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %q = arith.divf %r1, %d : f32
    %r2 = arith.truncf %q : f32 to bf16
    linalg.yield %r2 : bf16
  }
  memref.dealloc %acc : memref<1x28x28x64xf32>
  return %out : memref<1x28x28x64xbf16>
}

// Without a bias (a zero-filled accumulator), the rounding alone goes into
// the plain call, which writes the bfloat16 output (flags 2); a ReLU stays a
// loop (cuDNN's fused call needs the bias).
// CHECK-LABEL: func.func @conv_round(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-NOT: linalg
// CHECK: call @kiln_gpu_conv_bf16(%[[FLAGS]],
// CHECK-NOT: linalg
// CHECK: return
func.func @conv_round(%in: memref<1x30x30x32xbf16>, %w: memref<64x3x3x32xbf16>) -> memref<1x28x28x64xbf16> {
  %acc = memref.alloc() : memref<1x28x28x64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x28x28x64xf32>)
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xbf16>, memref<64x3x3x32xbf16>) outs(%acc : memref<1x28x28x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  %out = memref.alloc() : memref<1x28x28x64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x28x28x64xf32>) outs(%out : memref<1x28x28x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r0 = arith.truncf %v : f32 to bf16
    linalg.yield %r0 : bf16
  }
  memref.dealloc %acc : memref<1x28x28x64xf32>
  return %out : memref<1x28x28x64xbf16>
}
