// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn" --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn tf32-convs=true" --cse | FileCheck %s --check-prefix=TF32
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=kernel" | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt %s --kiln-gpu-library-calls="convs=cudnn depthwise=false" | FileCheck %s --check-prefix=NODW
// RUN: not kiln-opt %s --kiln-gpu-library-calls="convs=winograd" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: kiln-gpu-library-calls: convs must be cudnn, gemm or kernel, not 'winograd'
// KERNEL-NOT: kiln_gpu_conv

// One declaration per element type of the runtime's convolution (flags,
// groups, strides, paddings and dilations of three spatial dims, x, w, y),
// on rank-5 strided views, marked as a device call.
// CHECK-DAG: func.func private @kiln_gpu_conv_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_conv_bf16(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xbf16, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// A 3x3 convolution over a zero-padded copy of its input, into a zeroed
// output: the call reads the input itself with padding 1, overwrites the
// output (flags 2; 3 with TF32), and the padded buffer, its fill and its
// copy go away. The input's free between the copy and the convolution
// moves after the call.
// With depthwise=false, depthwise convolutions (one input channel per
// group, either layout) stay linalg for the generated kernels; the others
// still call cuDNN.
// NODW-LABEL: func.func @padded
// NODW: call @kiln_gpu_conv_f32
// NODW-LABEL: func.func @depthwise(
// NODW-NOT: call @kiln_gpu_conv
// NODW: linalg.generic
// NODW-NOT: call @kiln_gpu_conv
// NODW: return
// NODW-LABEL: func.func @bf16_bias
// NODW: call @kiln_gpu_conv_bf16
// NODW-LABEL: func.func @channels_last
// NODW: call @kiln_gpu_conv_bf16
// NODW-LABEL: func.func @depthwise_channels_last
// NODW-NOT: call @kiln_gpu_conv
// NODW: return

// CHECK-LABEL: func.func @padded
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<1x16x56x56xf32>
// CHECK-NEXT: linalg.copy ins(%arg0 : memref<1x16x56x56xf32>) outs(%[[SRC]] : memref<1x16x56x56xf32>)
// CHECK-NOT: linalg
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[X5:.*]] = memref.expand_shape %[[SRC]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 16, 1, 56, 56] : memref<1x16x56x56xf32> into memref<1x16x1x56x56xf32>
// CHECK: %[[X:.*]] = memref.cast %[[X5]]
// CHECK: %[[W5:.*]] = memref.expand_shape %arg1 {{\[\[}}0], [1, 2], [3], [4]] output_shape [32, 16, 1, 3, 3]
// CHECK: %[[W:.*]] = memref.cast %[[W5]]
// CHECK: %[[Y5:.*]] = memref.expand_shape %arg2 {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 32, 1, 56, 56]
// CHECK: %[[Y:.*]] = memref.cast %[[Y5]]
// CHECK: call @kiln_gpu_conv_f32(%[[FLAGS]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[X]], %[[W]], %[[Y]])
// CHECK-NEXT: memref.dealloc %[[SRC]]
// CHECK-NOT: linalg
// CHECK: return
// TF32-LABEL: func.func @padded
// TF32: %[[FLAGS:.*]] = arith.constant 3 : i32
// TF32: call @kiln_gpu_conv_f32(%[[FLAGS]],
func.func @padded(%in: memref<1x16x56x56xf32>, %w: memref<32x16x3x3xf32>, %out: memref<1x32x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc() : memref<1x16x56x56xf32>
  linalg.copy ins(%in : memref<1x16x56x56xf32>) outs(%src : memref<1x16x56x56xf32>)
  %pad = memref.alloc() : memref<1x16x58x58xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x16x58x58xf32>)
  %sub = memref.subview %pad[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1] : memref<1x16x58x58xf32> to memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>
  linalg.copy ins(%src : memref<1x16x56x56xf32>) outs(%sub : memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>)
  memref.dealloc %src : memref<1x16x56x56xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<1x32x56x56xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, c, kh, kw, ow) -> (n, c, oh + kh, ow + kw)>,
                                   affine_map<(n, f, oh, c, kh, kw, ow) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, c, kh, kw, ow) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
      ins(%pad, %w : memref<1x16x58x58xf32>, memref<32x16x3x3xf32>) outs(%out : memref<1x32x56x56xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  memref.dealloc %pad : memref<1x16x58x58xf32>
  return
}

// A depthwise convolution as kiln lowers it: channels split into (groups,
// C/G) by expand_shape, stride 2, the input padded by 1 (with a dynamic
// batch). The call takes 16 groups and the (N, C, ..) buffers: the
// unpadded input, the filter (F, C/G, ..) and the output merged back.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: linalg.map
// CHECK: %[[W4:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] : memref<16x1x1x3x3xf32> into memref<16x1x3x3xf32>
// CHECK: %[[Y4:.*]] = memref.collapse_shape %[[OUT:.*]] {{\[\[}}0], [1, 2], [3], [4]] : memref<?x16x1x28x28xf32> into memref<?x16x28x28xf32>
// CHECK-DAG: %[[G:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: memref.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [%{{.*}}, 16, 1, 56, 56] : memref<?x16x56x56xf32> into memref<?x16x1x56x56xf32>
// CHECK: call @kiln_gpu_conv_f32(%{{.*}}, %[[G]], %[[ONE]], %[[TWO]], %[[TWO]], %{{.*}}, %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]],
// CHECK-NOT: linalg
// CHECK: return
func.func @depthwise(%in: memref<?x16x56x56xf32>, %w: memref<16x1x3x3xf32>) -> memref<?x16x1x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?x16x56x56xf32>
  %pad = memref.alloc(%n) : memref<?x16x58x58xf32>
  linalg.map outs(%pad : memref<?x16x58x58xf32>)
    (%init: f32) {
      linalg.yield %zero : f32
    }
  %sub = memref.subview %pad[0, 0, 1, 1] [%n, 16, 56, 56] [1, 1, 1, 1] : memref<?x16x58x58xf32> to memref<?x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>
  linalg.copy ins(%in : memref<?x16x56x56xf32>) outs(%sub : memref<?x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>)
  %xg = memref.expand_shape %pad [[0], [1, 2], [3], [4]] output_shape [%n, 16, 1, 58, 58] : memref<?x16x58x58xf32> into memref<?x16x1x58x58xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [16, 1, 1, 3, 3] : memref<16x1x3x3xf32> into memref<16x1x1x3x3xf32>
  %out = memref.alloc(%n) : memref<?x16x1x28x28xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%zero : f32) outs(%out : memref<?x16x1x28x28xf32>) {
  ^bb0(%z: f32, %o: f32):
    linalg.yield %z : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>,
                                   affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%xg, %wg : memref<?x16x1x58x58xf32>, memref<16x1x1x3x3xf32>) outs(%out : memref<?x16x1x28x28xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  memref.dealloc %pad : memref<?x16x58x58xf32>
  return %out : memref<?x16x1x28x28xf32>
}

// A bf16 convolution into a float32 accumulator that holds a bias: cuDNN
// writes a bf16 result (overwrite, and no TF32 for 16-bit types), which
// one generated kernel widens and adds to the accumulator.
// CHECK-LABEL: func.func @bf16_bias
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x64x14x14xbf16>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK: %[[TC:.*]] = memref.expand_shape %[[T]]
// CHECK: %[[TA:.*]] = memref.cast %[[TC]]
// CHECK: call @kiln_gpu_conv_bf16(%[[FLAGS]], {{.*}}, %[[TA]])
// CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<2x64x14x14xbf16>) outs(%arg2 : memref<2x64x14x14xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.addf
// CHECK: memref.dealloc %[[T]]
// TF32-LABEL: func.func @bf16_bias
// TF32: %[[FLAGS:.*]] = arith.constant 2 : i32
// TF32: call @kiln_gpu_conv_bf16(%[[FLAGS]],
func.func @bf16_bias(%in: memref<2x32x32x32xbf16>, %w: memref<64x32x3x3xbf16>, %out: memref<2x64x14x14xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh * 2, ow * 2 + kw * 2)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x32x32x32xbf16>, memref<64x32x3x3xbf16>) outs(%out : memref<2x64x14x14xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 1-d (stride 2, dilation 3, 2 groups) and 3-d (strides 1, 2, 2)
// convolutions: the 1-d one gets two unit dims in front of its length.
// CHECK-LABEL: func.func @conv1d
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK: memref.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3], [4]] output_shape [4, 8, 1, 1, 1000]
// CHECK: call @kiln_gpu_conv_f32(%{{.*}}, %[[TWO]], %{{.*}}, %{{.*}}, %[[TWO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[THREE]],
// CHECK-LABEL: func.func @conv3d
// CHECK-NOT: memref.expand_shape
// CHECK: %[[X:.*]] = memref.cast %arg0
// CHECK: call @kiln_gpu_conv_f32(%{{.*}}, %{{.*}}, %[[ONE:.*]], %[[TWO:.*]], %[[TWO]], {{.*}}, %[[X]],
func.func @conv1d(%in: memref<4x8x1000xf32>, %w: memref<16x4x5xf32>, %out: memref<4x2x8x492xf32>) {
  %xg = memref.expand_shape %in [[0], [1, 2], [3]] output_shape [4, 2, 4, 1000] : memref<4x8x1000xf32> into memref<4x2x4x1000xf32>
  %wg = memref.expand_shape %w [[0, 1], [2], [3]] output_shape [2, 8, 4, 5] : memref<16x4x5xf32> into memref<2x8x4x5xf32>
  linalg.generic {indexing_maps = [affine_map<(n, g, f, o, c, k) -> (n, g, c, o * 2 + k * 3)>,
                                   affine_map<(n, g, f, o, c, k) -> (g, f, c, k)>,
                                   affine_map<(n, g, f, o, c, k) -> (n, g, f, o)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%xg, %wg : memref<4x2x4x1000xf32>, memref<2x8x4x5xf32>) outs(%out : memref<4x2x8x492xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @conv3d(%in: memref<2x8x8x16x16xf32>, %w: memref<8x8x3x3x3xf32>, %out: memref<2x8x6x7x7xf32>) {
  linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>}
      ins(%in, %w : memref<2x8x8x16x16xf32>, memref<8x8x3x3x3xf32>) outs(%out : memref<2x8x6x7x7xf32>)
  return
}

// Padding that differs between the two sides of a dim (1 before, 2 after)
// is not cuDNN's: the call reads the padded buffer, whose fill and copy stay.
// CHECK-LABEL: func.func @asymmetric
// CHECK: linalg.fill
// CHECK: linalg.copy
// CHECK: %[[P:.*]] = memref.expand_shape %[[PAD:.*]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 16, 1, 59, 59]
// CHECK: call @kiln_gpu_conv_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z:.*]], %[[Z]], %[[Z]],
func.func @asymmetric(%in: memref<1x16x56x56xf32>, %w: memref<32x16x3x3xf32>, %out: memref<1x32x57x57xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<1x16x59x59xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x16x59x59xf32>)
  %sub = memref.subview %pad[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1] : memref<1x16x59x59xf32> to memref<1x16x56x56xf32, strided<[55696, 3481, 59, 1], offset: 60>>
  linalg.copy ins(%in : memref<1x16x56x56xf32>) outs(%sub : memref<1x16x56x56xf32, strided<[55696, 3481, 59, 1], offset: 60>>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pad, %w : memref<1x16x59x59xf32>, memref<32x16x3x3xf32>) outs(%out : memref<1x32x57x57xf32>)
  memref.dealloc %pad : memref<1x16x59x59xf32>
  return
}

// A bf16 convolution into a float32 accumulator that bufferization zeroed
// by copying a shared zero buffer: the copy counts as a zero fill, and as
// only generic ops read the accumulator afterwards, cuDNN's bf16 result
// replaces it: the reader takes the bf16 buffer and widens each element
// itself (no widening kernel, no float32 buffer), and the freed
// accumulator's free frees the bf16 buffer. The zero buffer, now only
// written, goes away.
// CHECK-LABEL: func.func @bf16_zeroed
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref<2x64x14x14xf32>
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x64x14x14xbf16>
// CHECK: call @kiln_gpu_conv_bf16(
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T]] : memref<2x64x14x14xbf16>) outs(%arg2 : memref<2x64x14x14xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[W]]
// CHECK-NEXT: arith.truncf %[[R]] : f32 to bf16
// CHECK: memref.dealloc %[[T]] : memref<2x64x14x14xbf16>
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @bf16_zeroed(%in: memref<2x32x32x32xbf16>, %w: memref<64x32x3x3xbf16>, %res: memref<2x64x14x14xbf16>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x64x14x14xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x64x14x14xf32>)
  %acc = memref.alloc() : memref<2x64x14x14xf32>
  linalg.copy ins(%z : memref<2x64x14x14xf32>) outs(%acc : memref<2x64x14x14xf32>)
  memref.dealloc %z : memref<2x64x14x14xf32>
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh * 2, ow * 2 + kw * 2)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x32x32x32xbf16>, memref<64x32x3x3xbf16>) outs(%acc : memref<2x64x14x14xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x64x14x14xf32>) outs(%res : memref<2x64x14x14xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %r = arith.maximumf %a, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %acc : memref<2x64x14x14xf32>
  return
}

// An accumulator that something other than a generic op's input reads
// afterwards (here a copy) keeps the widening kernel.
// CHECK-LABEL: func.func @bf16_kept
// CHECK: call @kiln_gpu_conv_bf16(
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : memref<2x64x14x14xbf16>) outs(%[[ACC:.*]] : memref<2x64x14x14xf32>)
// CHECK: linalg.copy ins(%[[ACC]]
func.func @bf16_kept(%in: memref<2x32x32x32xbf16>, %w: memref<64x32x3x3xbf16>, %res: memref<2x64x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<2x64x14x14xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<2x64x14x14xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh * 2, ow * 2 + kw * 2)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
                                   affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x32x32x32xbf16>, memref<64x32x3x3xbf16>) outs(%acc : memref<2x64x14x14xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  linalg.copy ins(%acc : memref<2x64x14x14xf32>) outs(%res : memref<2x64x14x14xf32>)
  memref.dealloc %acc : memref<2x64x14x14xf32>
  return
}

// Channels last (kiln-channels-last's convolutions): input (N, H, W, C),
// filter (F, KH, KW, C), output (N, OH, OW, F), the input zero-padded in H
// and W. The call takes each operand viewed in the channels-first order it
// expects, through a reinterpret_cast of the buffer's own metadata with a
// unit depth after C; the padding folds into the call as in NCHW.
// CHECK-LABEL: func.func @channels_last
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<2x56x56x16xbf16>
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[XB:.*]], %[[XO:.*]], %[[XS:.*]]:4, %[[XT:.*]]:4 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[XU:.*]] = arith.muli %[[XS]]#1, %[[XT]]#1
// CHECK: %[[X:.*]] = memref.reinterpret_cast %[[SRC]] to offset: [%[[XO]]], sizes: [%[[XS]]#0, %[[XS]]#3, 1, %[[XS]]#1, %[[XS]]#2], strides: [%[[XT]]#0, %[[XT]]#3, %[[XU]], %[[XT]]#1, %[[XT]]#2]
// CHECK: %[[WB:.*]], %[[WO:.*]], %[[WS:.*]]:4, %[[WT:.*]]:4 = memref.extract_strided_metadata %arg1
// CHECK: %[[W:.*]] = memref.reinterpret_cast %arg1 to offset: [%[[WO]]], sizes: [%[[WS]]#0, %[[WS]]#3, 1, %[[WS]]#1, %[[WS]]#2]
// CHECK: %[[YB:.*]], %[[YO:.*]], %[[YS:.*]]:4, %[[YT:.*]]:4 = memref.extract_strided_metadata %arg2
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %arg2 to offset: [%[[YO]]], sizes: [%[[YS]]#0, %[[YS]]#3, 1, %[[YS]]#1, %[[YS]]#2]
// CHECK: call @kiln_gpu_conv_bf16(%[[FLAGS]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[X]], %[[W]], %[[Y]])
// CHECK-NOT: linalg
// CHECK: return
func.func @channels_last(%in: memref<2x56x56x16xbf16>, %w: memref<32x3x3x16xbf16>, %out: memref<2x56x56x32xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %src = memref.alloc() : memref<2x56x56x16xbf16>
  linalg.copy ins(%in : memref<2x56x56x16xbf16>) outs(%src : memref<2x56x56x16xbf16>)
  %pad = memref.alloc() : memref<2x58x58x16xbf16>
  linalg.fill ins(%zero : bf16) outs(%pad : memref<2x58x58x16xbf16>)
  %sub = memref.subview %pad[0, 1, 1, 0] [2, 56, 56, 16] [1, 1, 1, 1] : memref<2x58x58x16xbf16> to memref<2x56x56x16xbf16, strided<[53824, 928, 16, 1], offset: 944>>
  linalg.copy ins(%src : memref<2x56x56x16xbf16>) outs(%sub : memref<2x56x56x16xbf16, strided<[53824, 928, 16, 1], offset: 944>>)
  linalg.fill ins(%zero : bf16) outs(%out : memref<2x56x56x32xbf16>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pad, %w : memref<2x58x58x16xbf16>, memref<32x3x3x16xbf16>) outs(%out : memref<2x56x56x32xbf16>)
  memref.dealloc %pad : memref<2x58x58x16xbf16>
  memref.dealloc %src : memref<2x56x56x16xbf16>
  return
}

// A depthwise convolution in channels last (kiln-channels-last's grouped
// form, conv_2d_nhwgc_gfhwc): input (N, H, W, G, C/G) split from the
// zero-padded (N, H, W, C) buffer, filter (G, F/G, KH, KW, C/G), output
// (N, OH, OW, G, F/G), stride 2. The padding folds into the call; the
// filter and output merge their (G, X/G) pairs back and every operand is
// viewed in the channels-first order, 32 groups.
// CHECK-LABEL: func.func @depthwise_channels_last
// CHECK-NOT: linalg.fill
// CHECK: %[[W4:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] : memref<32x1x3x3x1xbf16> into memref<32x3x3x1xbf16>
// CHECK: %[[Y4:.*]] = memref.collapse_shape %arg2 {{\[\[}}0], [1], [2], [3, 4]] : memref<2x28x28x32x1xbf16> into memref<2x28x28x32xbf16>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[G:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[XB:.*]], %[[XO:.*]], %[[XS:.*]]:4, %[[XT:.*]]:4 = memref.extract_strided_metadata %arg0
// CHECK: %[[X:.*]] = memref.reinterpret_cast %arg0 to offset: [%[[XO]]], sizes: [%[[XS]]#0, %[[XS]]#3, 1, %[[XS]]#1, %[[XS]]#2]
// CHECK: %[[WB:.*]], %[[WO:.*]], %[[WS:.*]]:4, %[[WT:.*]]:4 = memref.extract_strided_metadata %[[W4]]
// CHECK: %[[W:.*]] = memref.reinterpret_cast %[[W4]] to offset: [%[[WO]]], sizes: [%[[WS]]#0, %[[WS]]#3, 1, %[[WS]]#1, %[[WS]]#2]
// CHECK: %[[YB:.*]], %[[YO:.*]], %[[YS:.*]]:4, %[[YT:.*]]:4 = memref.extract_strided_metadata %[[Y4]]
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[Y4]] to offset: [%[[YO]]], sizes: [%[[YS]]#0, %[[YS]]#3, 1, %[[YS]]#1, %[[YS]]#2]
// CHECK: call @kiln_gpu_conv_bf16(%[[FLAGS]], %[[G]], %[[ONE]], %[[TWO]], %[[TWO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[X]], %[[W]], %[[Y]])
// CHECK-NOT: linalg
// CHECK: return
func.func @depthwise_channels_last(%in: memref<2x56x56x32xbf16>, %w: memref<32x1x3x3x1xbf16>, %out: memref<2x28x28x32x1xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %pad = memref.alloc() : memref<2x58x58x32xbf16>
  linalg.fill ins(%zero : bf16) outs(%pad : memref<2x58x58x32xbf16>)
  %sub = memref.subview %pad[0, 1, 1, 0] [2, 56, 56, 32] [1, 1, 1, 1] : memref<2x58x58x32xbf16> to memref<2x56x56x32xbf16, strided<[107648, 1856, 32, 1], offset: 1888>>
  linalg.copy ins(%in : memref<2x56x56x32xbf16>) outs(%sub : memref<2x56x56x32xbf16, strided<[107648, 1856, 32, 1], offset: 1888>>)
  %xg = memref.expand_shape %pad [[0], [1], [2], [3, 4]] output_shape [2, 58, 58, 32, 1] : memref<2x58x58x32xbf16> into memref<2x58x58x32x1xbf16>
  linalg.fill ins(%zero : bf16) outs(%out : memref<2x28x28x32x1xbf16>)
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xg, %w : memref<2x58x58x32x1xbf16>, memref<32x1x3x3x1xbf16>) outs(%out : memref<2x28x28x32x1xbf16>)
  memref.dealloc %pad : memref<2x58x58x32xbf16>
  return
}
