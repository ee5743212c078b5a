// RUN: kiln-opt %s --kiln-gpu-library-calls | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="min-macs=1" | FileCheck %s --check-prefix=ALL
// RUN: kiln-opt %s --kiln-gpu-library-calls | FileCheck %s --check-prefix=DECL
// RUN: kiln-opt %s --kiln-gpu-library-calls="tf32-convs=true" --cse | FileCheck %s --check-prefix=TF32C
// RUN: kiln-opt %s --kiln-gpu-library-calls="tf32-matmuls=true" --cse | FileCheck %s --check-prefix=TF32M

// One declaration of the runtime's GEMM (transA, transB, tf32, A, B, C),
// taking rank-3 strided views, marked as a device call.
// CHECK: func.func private @kiln_gpu_gemm_f32(i32, i32, i32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// A linear layer's contraction, C[m, n] += X[m, k] * W[n, k]: B is stored
// transposed.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[F:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK: %[[X3:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [1, %{{.*}}, 768] : memref<?x768xf32> into memref<1x?x768xf32>
// CHECK: %[[X:.*]] = memref.cast %[[X3]]
// CHECK: %[[W:.*]] = memref.cast
// CHECK: %[[C:.*]] = memref.cast
// CHECK: call @kiln_gpu_gemm_f32(%[[F]], %[[T]], %{{.*}}, %[[X]], %[[W]], %[[C]])
// CHECK-NOT: linalg.generic
func.func @linear(%x: memref<?x768xf32>, %w: memref<3072x768xf32>, %c: memref<?x3072xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x768xf32>, memref<3072x768xf32>) outs(%c : memref<?x3072xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A batched matmul with A stored (b, k, m), in another loop order.
// CHECK-LABEL: func.func @bmm_at
// CHECK: call @kiln_gpu_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32
// CHECK-NOT: linalg.batch_matmul
func.func @bmm_at(%a: memref<8x512x256xf32>, %b: memref<8x512x384xf32>, %c: memref<8x256x384xf32>) {
  linalg.generic {indexing_maps = [affine_map<(k, b, m, n) -> (b, k, m)>, affine_map<(k, b, m, n) -> (b, k, n)>,
                                   affine_map<(k, b, m, n) -> (b, m, n)>],
                  iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<8x512x256xf32>, memref<8x512x384xf32>) outs(%c : memref<8x256x384xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Left as linalg: a small static matmul (8x16x64 multiply-adds), a dynamic
// one whose static part is small (the dynamic MLP's layer), and f64.
// CHECK-LABEL: func.func @small
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @dynamic_small
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @f64
// CHECK: linalg.matmul
// With no size limit, the small and dynamic ones go to the library too.
// ALL-LABEL: func.func @small
// ALL: call @kiln_gpu_gemm_f32
// ALL-LABEL: func.func @dynamic_small
// ALL: call @kiln_gpu_gemm_f32
// ALL-LABEL: func.func @f64
// ALL: linalg.matmul
func.func @small(%a: memref<8x64xf32>, %b: memref<64x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x16xf32>) outs(%c : memref<8x16xf32>)
  return
}
func.func @dynamic_small(%a: memref<?x64xf32>, %b: memref<64x16xf32>, %c: memref<?x16xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x16xf32>) outs(%c : memref<?x16xf32>)
  return
}
func.func @f64(%a: memref<512x512xf64>, %b: memref<512x512xf64>, %c: memref<512x512xf64>) {
  linalg.matmul ins(%a, %b : memref<512x512xf64>, memref<512x512xf64>) outs(%c : memref<512x512xf64>)
  return
}

// bf16 and f16 matmuls call the GEMM of their type (float32 accumulation).
// DECL-DAG: func.func private @kiln_gpu_gemm_bf16(i32, i32, i32, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// DECL-DAG: func.func private @kiln_gpu_gemm_f16(
// CHECK-LABEL: func.func @bf16
// CHECK: call @kiln_gpu_gemm_bf16
// CHECK-LABEL: func.func @f16
// CHECK: call @kiln_gpu_gemm_f16
// bf16 operands into a float32 result: the mixed GEMM.
// CHECK-LABEL: func.func @bf16_into_f32
// CHECK: call @kiln_gpu_gemm_bf16_f32
func.func @bf16(%a: memref<256x512xbf16>, %b: memref<512x128xbf16>, %c: memref<256x128xbf16>) {
  linalg.matmul ins(%a, %b : memref<256x512xbf16>, memref<512x128xbf16>) outs(%c : memref<256x128xbf16>)
  return
}
func.func @f16(%a: memref<256x512xf16>, %b: memref<512x128xf16>, %c: memref<256x128xf16>) {
  linalg.matmul ins(%a, %b : memref<256x512xf16>, memref<512x128xf16>) outs(%c : memref<256x128xf16>)
  return
}
func.func @bf16_into_f32(%a: memref<256x512xbf16>, %b: memref<512x128xbf16>, %c: memref<256x128xf32>) {
  linalg.matmul ins(%a, %b : memref<256x512xbf16>, memref<512x128xbf16>) outs(%c : memref<256x128xf32>)
  return
}

// A 1x1, stride-1 convolution over an input of the output's size is one
// GEMM per image: out[n] (F x H*W) += w (F x C) * in[n] (C x H*W), the
// filter shared by every image.
// CHECK-LABEL: func.func @conv1x1
// CHECK: %[[W:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : memref<256x64x1x1xf32> into memref<256x64xf32>
// CHECK: %[[O:.*]] = memref.collapse_shape %arg2 {{\[\[}}0], [1], [2, 3]] : memref<?x256x56x56xf32> into memref<?x256x3136xf32>
// CHECK: %[[I:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<?x64x56x56xf32> into memref<?x64x3136xf32>
// CHECK: memref.expand_shape %[[W]] {{\[\[}}0, 1], [2]] output_shape [1, 256, 64]
// CHECK: call @kiln_gpu_gemm_f32
// CHECK-NOT: linalg.generic
func.func @conv1x1(%in: memref<?x64x56x56xf32>, %w: memref<256x64x1x1xf32>, %out: memref<?x256x56x56xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<?x64x56x56xf32>, memref<256x64x1x1xf32>) outs(%out : memref<?x256x56x56xf32>)
  return
}

// Any other convolution (here 3x3, stride 2, dilation 2, the loops in
// another order, bf16) first copies the input's patches into a
// col[n, c, kh, kw, oh, ow] buffer with one parallel generic, then runs
// out[n] (F x OH*OW) += w (F x C*KH*KW) * col[n] (C*KH*KW x OH*OW).
// DECL-DAG: #{{.*}} = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 2 + d3 * 2)>
// CHECK-LABEL: func.func @conv3x3
// CHECK: %[[COL:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x3x3x14x14xbf16>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : memref<2x32x32x32xbf16>) outs(%[[COL]] : memref<2x32x3x3x14x14xbf16>)
// CHECK: memref.collapse_shape %[[COL]] {{\[\[}}0], [1, 2, 3], [4, 5]] : memref<2x32x3x3x14x14xbf16> into memref<2x288x196xbf16>
// CHECK: call @kiln_gpu_gemm_bf16
// CHECK: memref.dealloc %[[COL]]
func.func @conv3x3(%in: memref<2x32x32x32xbf16>, %w: memref<64x32x3x3xbf16>, %out: memref<2x64x14x14xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, c, kh, kw, ow) -> (n, c, oh * 2 + kh * 2, ow * 2 + kw * 2)>,
                                   affine_map<(n, f, oh, c, kh, kw, ow) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, c, kh, kw, ow) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%in, %w : memref<2x32x32x32xbf16>, memref<64x32x3x3xbf16>) outs(%out : memref<2x64x14x14xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %p = arith.mulf %x, %y : bf16
    %s = arith.addf %o, %p : bf16
    linalg.yield %s : bf16
  }
  return
}

// Left as kernels: a convolution in NHWC layout and a small one.
// CHECK-LABEL: func.func @nhwc
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @conv_small
// CHECK: linalg.conv_2d_nchw_fchw
// ALL-LABEL: func.func @conv_small
// ALL: call @kiln_gpu_gemm_f32
func.func @nhwc(%in: memref<1x58x58x64xf32>, %w: memref<3x3x64x64xf32>, %out: memref<1x56x56x64xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x58x58x64xf32>, memref<3x3x64x64xf32>) outs(%out : memref<1x56x56x64xf32>)
  return
}
func.func @conv_small(%in: memref<1x3x10x10xf32>, %w: memref<4x3x3x3xf32>, %out: memref<1x4x8x8xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x3x10x10xf32>, memref<4x3x3x3xf32>) outs(%out : memref<1x4x8x8xf32>)
  return
}

// TF32 (the GEMM's third argument, 1) only where allowed: tf32-convs for
// float32 convolutions, tf32-matmuls for float32 matmuls, as PyTorch's
// cudnn.allow_tf32 and cuda.matmul.allow_tf32.
// TF32C-LABEL: func.func @linear
// TF32C-DAG: %[[F:.*]] = arith.constant 0 : i32
// TF32C-DAG: %[[T:.*]] = arith.constant 1 : i32
// TF32C: call @kiln_gpu_gemm_f32(%[[F]], %[[T]], %[[F]],
// TF32C-LABEL: func.func @conv1x1
// TF32C-DAG: %[[F:.*]] = arith.constant 0 : i32
// TF32C-DAG: %[[T:.*]] = arith.constant 1 : i32
// TF32C: call @kiln_gpu_gemm_f32(%[[F]], %[[F]], %[[T]],
// TF32M-LABEL: func.func @linear
// TF32M-DAG: %[[F:.*]] = arith.constant 0 : i32
// TF32M-DAG: %[[T:.*]] = arith.constant 1 : i32
// TF32M: call @kiln_gpu_gemm_f32(%[[F]], %[[T]], %[[T]],
// TF32M-LABEL: func.func @conv1x1
// TF32M-DAG: %[[F:.*]] = arith.constant 0 : i32
// TF32M: call @kiln_gpu_gemm_f32(%[[F]], %[[F]], %[[F]],

// A zero fill of the output just before the product (a linalg.fill, or a
// generic broadcasting a zero scalar) is dropped: the GEMM overwrites C
// (flags 2). A fill with anything else between it and the product that
// touches the output, or a non-zero fill, stays.
// CHECK-LABEL: func.func @zero_init
// CHECK-NOT: linalg.fill
// CHECK: %[[OW:.*]] = arith.constant 2 : i32
// CHECK: call @kiln_gpu_gemm_f32(%{{.*}}, %{{.*}}, %[[OW]],
// CHECK-NOT: linalg.generic
// CHECK: %[[OW2:.*]] = arith.constant 2 : i32
// CHECK: call @kiln_gpu_gemm_f32(%{{.*}}, %{{.*}}, %[[OW2]],
// CHECK-LABEL: func.func @kept_init
// CHECK: linalg.fill
// CHECK: linalg.copy
// CHECK: call @kiln_gpu_gemm_f32(%c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}},
// CHECK: linalg.fill
// CHECK: call @kiln_gpu_gemm_f32(%c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}},
func.func @zero_init(%a: memref<256x512xf32>, %b: memref<512x128xf32>, %c: memref<256x128xf32>,
                     %in: memref<1x64x56x56xf32>, %w: memref<256x64x1x1xf32>, %out: memref<1x256x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x128xf32>)
  linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%c : memref<256x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> ()>, affine_map<(n, f, h, w) -> (n, f, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%zero : f32) outs(%out : memref<1x256x56x56xf32>) {
  ^bb0(%z: f32, %o: f32):
    linalg.yield %z : f32
  }
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : memref<1x64x56x56xf32>, memref<256x64x1x1xf32>) outs(%out : memref<1x256x56x56xf32>)
  return
}
func.func @kept_init(%a: memref<256x512xf32>, %b: memref<512x128xf32>, %c: memref<256x128xf32>,
                     %d: memref<256x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x128xf32>)
  linalg.copy ins(%d : memref<256x128xf32>) outs(%c : memref<256x128xf32>)
  linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%c : memref<256x128xf32>)
  linalg.fill ins(%one : f32) outs(%d : memref<256x128xf32>)
  linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%d : memref<256x128xf32>)
  return
}

// A linear layer on a 3-D activation: the weight has no batch dim, so the
// batch and sequence loops are both rows of one GEMM, (B*S x K) * (N x K)^T.
// CHECK-LABEL: func.func @linear3d
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<4x128x768xf32> into memref<512x768xf32>
// CHECK-DAG: %[[C:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : memref<4x128x3072xf32> into memref<512x3072xf32>
// CHECK: call @kiln_gpu_gemm_f32
// CHECK-NOT: linalg.generic
func.func @linear3d(%x: memref<4x128x768xf32>, %w: memref<3072x768xf32>, %c: memref<4x128x3072xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (n, k)>,
                                   affine_map<(b, s, n, k) -> (b, s, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x128x768xf32>, memref<3072x768xf32>) outs(%c : memref<4x128x3072xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Attention's scores, Q[b, h, s, d] * K[b, h, t, d]: the batch and head
// loops collapse into one batch of the GEMM, K read transposed.
// CHECK-LABEL: func.func @scores
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: memref.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : memref<2x12x128x64xf32> into memref<24x128x64xf32>
// CHECK-DAG: memref.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : memref<2x12x128x64xf32> into memref<24x128x64xf32>
// CHECK-DAG: memref.collapse_shape %arg2 {{\[\[}}0, 1], [2], [3]] : memref<2x12x128x128xf32> into memref<24x128x128xf32>
// CHECK: call @kiln_gpu_gemm_f32(%{{.*}}, %[[T]],
// CHECK-NOT: linalg.generic
func.func @scores(%q: memref<2x12x128x64xf32>, %k: memref<2x12x128x64xf32>, %c: memref<2x12x128x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, s, t, d) -> (b, h, s, d)>, affine_map<(b, h, s, t, d) -> (b, h, t, d)>,
                                   affine_map<(b, h, s, t, d) -> (b, h, s, t)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x12x128x64xf32>, memref<2x12x128x64xf32>) outs(%c : memref<2x12x128x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Left as linalg: loops the GEMM cannot group, here an output that stores
// the heads between the rows and the columns (C[b, s, h, t]), so the batch
// loops are not leading in C.
// CHECK-LABEL: func.func @interleaved
// CHECK-NOT: call @kiln_gpu_gemm
// CHECK: linalg.generic
func.func @interleaved(%q: memref<2x12x128x64xf32>, %k: memref<2x12x128x64xf32>, %c: memref<2x128x12x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, s, t, d) -> (b, h, s, d)>, affine_map<(b, h, s, t, d) -> (b, h, t, d)>,
                                   affine_map<(b, h, s, t, d) -> (b, s, h, t)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x12x128x64xf32>, memref<2x12x128x64xf32>) outs(%c : memref<2x128x12x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// bf16 (f16) operands with a float32 result, as kiln lowers a reduced-precision
// linear before its final rounding, call the mixed GEMM (16-bit A and B,
// float32 C). Mixed inputs stay linalg.
// DECL-DAG: func.func private @kiln_gpu_gemm_bf16_f32(i32, i32, i32, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK-LABEL: func.func @bf16_to_f32
// CHECK: call @kiln_gpu_gemm_bf16_f32
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @f16_to_f32
// CHECK: call @kiln_gpu_gemm_f16_f32
// CHECK-LABEL: func.func @mixed_inputs
// CHECK: linalg.generic
func.func @bf16_to_f32(%x: memref<16x128x768xbf16>, %w: memref<768x768xbf16>, %c: memref<16x128x768xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, s, n, k) -> (b, s, k)>, affine_map<(b, s, n, k) -> (n, k)>,
                                   affine_map<(b, s, n, k) -> (b, s, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x128x768xbf16>, memref<768x768xbf16>) outs(%c : memref<16x128x768xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @f16_to_f32(%a: memref<256x512xf16>, %b: memref<512x128xf16>, %c: memref<256x128xf32>) {
  linalg.matmul ins(%a, %b : memref<256x512xf16>, memref<512x128xf16>) outs(%c : memref<256x128xf32>)
  return
}
func.func @mixed_inputs(%x: memref<256x512xbf16>, %w: memref<512x128xf32>, %c: memref<256x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<256x512xbf16>, memref<512x128xf32>) outs(%c : memref<256x128xf32>) {
  ^bb0(%a: bf16, %b: f32, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %p = arith.mulf %ea, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A strided operand whose rows are contiguous is read in place (its row
// stride is the leading dimension); one whose batch dims do not merge
// (attention's values after the head split: [batch, heads, seq, dim] viewed
// from [batch, seq, heads, dim]) is copied to a contiguous buffer first.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.alloc
// CHECK: %[[A:.*]] = memref.expand_shape %arg0 {{.*}} into memref<1x512x512xf32, strided<[524288, 1024, 1]>>
// CHECK: %[[A3:.*]] = memref.cast %[[A]]
// CHECK: call @kiln_gpu_gemm_f32({{.*}}, %[[A3]],
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @strided(%a: memref<512x512xf32, strided<[1024, 1]>>, %b: memref<512x512xf32>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x512xf32, strided<[1024, 1]>>, memref<512x512xf32>) outs(%c : memref<512x512xf32>)
  return
}
// CHECK-LABEL: func.func @head_split
// CHECK: %[[COPY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x12x128x64xf32>
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<2x12x128x64xf32, strided<[98304, 64, 768, 1]>>) outs(%[[COPY]] : memref<2x12x128x64xf32>)
// CHECK: %[[V:.*]] = memref.collapse_shape %[[COPY]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[V3:.*]] = memref.cast %[[V]]
// CHECK: call @kiln_gpu_gemm_f32({{.*}}, %[[V3]],
// CHECK: memref.dealloc %[[COPY]]
func.func @head_split(%p: memref<2x12x128x128xf32>, %v: memref<2x12x128x64xf32, strided<[98304, 64, 768, 1]>>,
                      %c: memref<2x12x128x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>,
                                   affine_map<(b, h, m, n, k) -> (b, h, k, n)>,
                                   affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<2x12x128x128xf32>, memref<2x12x128x64xf32, strided<[98304, 64, 768, 1]>>)
      outs(%c : memref<2x12x128x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// Mixed inputs multiplied in float32 (attention's float32 probabilities
// times bfloat16 values, extended in the body) become a float32 GEMM on a
// widened copy of the bfloat16 operand: the same products and sums.
// CHECK-LABEL: func.func @widened
// CHECK: %[[W:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x128x64xf32>
// CHECK: linalg.generic {{.*}} ins(%arg1 : memref<4x128x64xbf16>) outs(%[[W]] : memref<4x128x64xf32>)
// CHECK: arith.extf
// CHECK: %[[W3:.*]] = memref.cast %[[W]]
// CHECK: call @kiln_gpu_gemm_f32({{.*}}, %[[W3]],
// CHECK: memref.dealloc %[[W]]
// A body that narrows the float32 input first is not a float32 product.
// CHECK-LABEL: func.func @narrowed
// CHECK-NOT: call @kiln_gpu_gemm
// CHECK: return
func.func @widened(%p: memref<4x128x128xf32>, %v: memref<4x128x64xbf16>, %c: memref<4x128x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<4x128x128xf32>, memref<4x128x64xbf16>) outs(%c : memref<4x128x64xf32>) {
  ^bb0(%x: f32, %y: bf16, %acc: f32):
    %0 = arith.extf %y : bf16 to f32
    %1 = arith.mulf %x, %0 : f32
    %2 = arith.addf %acc, %1 : f32
    linalg.yield %2 : f32
  }
  return
}
func.func @narrowed(%p: memref<4x128x128xf32>, %v: memref<4x128x64xbf16>, %c: memref<4x128x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<4x128x128xf32>, memref<4x128x64xbf16>) outs(%c : memref<4x128x64xf32>) {
  ^bb0(%x: f32, %y: bf16, %acc: f32):
    %0 = arith.truncf %x : f32 to bf16
    %1 = arith.mulf %0, %y : bf16
    %2 = arith.extf %1 : bf16 to f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
