// RUN: kiln-opt %s --kiln-cpu-library-calls --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-cpu-library-calls="gemms=false convs=false" | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --kiln-cpu-library-calls="min-macs=1" --cse | FileCheck %s --check-prefix=SMALL

// Large float32 matmuls and convolutions on buffers become calls of the CPU
// runtime's oneDNN entries (kiln/abi/cpu_calls.h): declared once, with C
// interfaces, and no kiln.device_call (their operands are host buffers).
// CHECK-DAG: func.func private @kiln_cpu_conv_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_cpu_gemm_lt_f32(i32, i32, i32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_cpu_gemm_f32(i32, i32, i32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// With gemms and convs off, every op stays linalg.
// OFF-NOT: kiln_cpu_

#x2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (n, k)>
#o2 = affine_map<(m, n, k) -> (m, n)>
#bias2 = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>


// A zero-filled matmul: the fill goes, the call overwrites C (flags 2).
// CHECK-LABEL: func.func @matmul(
// CHECK-DAG: %[[F:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK-NOT: linalg
// CHECK: call @kiln_cpu_gemm_f32(%[[F]], %[[F]], %[[FLAGS]],
// CHECK-NOT: linalg
// CHECK: return
func.func @matmul(%a: memref<256x512xf32>, %b: memref<512x128xf32>, %c: memref<256x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x128xf32>)
  linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%c : memref<256x128xf32>)
  return
}

// A linear layer (weight stored (n, k): transB) whose output starts as the
// bias broadcast and is only read by a ReLU: one kiln_cpu_gemm_lt_f32 that
// adds the bias and applies the ReLU into the ReLU's output, flags 2
// (overwrite) + 4 (ReLU) + 8 (the weight is a constant argument).
// CHECK-LABEL: func.func @linear_relu(
// CHECK-DAG: %[[BIAS:.*]] = memref.cast %arg2 : memref<3072xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-DAG: %[[F:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 14 : i32
// CHECK-NOT: memref.alloc
// CHECK: %[[W:.*]] = memref.expand_shape %arg1
// CHECK: %[[O:.*]] = memref.expand_shape %arg3
// CHECK: call @kiln_cpu_gemm_lt_f32(%[[F]], %[[T]], %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK-NOT: linalg
// CHECK: return
func.func @linear_relu(%x: memref<128x768xf32> {kiln.kind = "input", kiln.name = "x"},
                       %w: memref<3072x768xf32> {kiln.kind = "parameter", kiln.name = "fc.weight"},
                       %b: memref<3072xf32> {kiln.kind = "parameter", kiln.name = "fc.bias"},
                       %out: memref<128x3072xf32>) {
  %c = memref.alloc() {alignment = 64 : i64} : memref<128x3072xf32>
  linalg.generic {indexing_maps = [#bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<3072xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<128x768xf32>, memref<3072x768xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.mulf %a, %bb : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<128x3072xf32>) outs(%out : memref<128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<128x3072xf32>
  return
}

// A weight the run updates (a result with kiln.update of its name) may
// change between runs: no constant-weight flag.
// CHECK-LABEL: func.func @updated_weight(
// CHECK: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK: call @kiln_cpu_gemm_f32(%{{.*}}, %{{.*}}, %[[FLAGS]],
func.func @updated_weight(%x: memref<128x768xf32> {kiln.kind = "input", kiln.name = "x"},
                          %w: memref<768x768xf32> {kiln.kind = "buffer", kiln.name = "state"},
                          %out: memref<128x768xf32>) -> (memref<768x768xf32> {kiln.update, kiln.name = "state"}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<128x768xf32>)
  linalg.matmul ins(%x, %w : memref<128x768xf32>, memref<768x768xf32>) outs(%out : memref<128x768xf32>)
  return %w : memref<768x768xf32>
}

// The CPU runtime takes float32 only: a bf16 matmul stays linalg.
// CHECK-LABEL: func.func @bf16(
// CHECK-NEXT: linalg.matmul
func.func @bf16(%a: memref<256x512xbf16>, %b: memref<512x128xbf16>, %c: memref<256x128xbf16>) {
  linalg.matmul ins(%a, %b : memref<256x512xbf16>, memref<512x128xbf16>) outs(%c : memref<256x128xbf16>)
  return
}

// Under min-macs (8x8x16 = 1024 multiply-adds) a matmul stays a loop nest.
// CHECK-LABEL: func.func @small(
// CHECK-NEXT: linalg.matmul
// SMALL-LABEL: func.func @small(
// SMALL: call @kiln_cpu_gemm_f32
func.func @small(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// A 3x3 convolution over a zero-padded copy of its input into a zeroed
// output: the call reads the input itself with padding 1 (the padded buffer,
// its fill and copy go away), overwrites the output and keeps the weight
// (a constant argument): flags 2 + 8.
// CHECK-LABEL: func.func @conv_padded(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 10 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NOT: linalg
// CHECK: %[[X5:.*]] = memref.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 16, 1, 56, 56]
// CHECK: %[[X:.*]] = memref.cast %[[X5]]
// CHECK: %[[W:.*]] = memref.cast
// CHECK: %[[Y:.*]] = memref.cast
// CHECK: call @kiln_cpu_conv_f32(%[[FLAGS]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[X]], %[[W]], %[[Y]])
// CHECK-NOT: linalg
// CHECK: return
func.func @conv_padded(%in: memref<1x16x56x56xf32>, %w: memref<32x16x3x3xf32> {kiln.kind = "parameter", kiln.name = "conv.weight"}, %out: memref<1x32x56x56xf32>) {
  %zero = arith.constant 0.0 : f32
  %pad = memref.alloc() : memref<1x16x58x58xf32>
  linalg.fill ins(%zero : f32) outs(%pad : memref<1x16x58x58xf32>)
  %sub = memref.subview %pad[0, 0, 1, 1] [1, 16, 56, 56] [1, 1, 1, 1] : memref<1x16x58x58xf32> to memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>
  linalg.copy ins(%in : memref<1x16x56x56xf32>) outs(%sub : memref<1x16x56x56xf32, strided<[53824, 3364, 58, 1], offset: 59>>)
  linalg.fill ins(%zero : f32) outs(%out : memref<1x32x56x56xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%pad, %w : memref<1x16x58x58xf32>, memref<32x16x3x3xf32>) outs(%out : memref<1x32x56x56xf32>)
  memref.dealloc %pad : memref<1x16x58x58xf32>
  return
}

// A channels-last stride-2 convolution accumulating into its output (no
// fill before it: flags 0, oneDNN's sum post-op): each operand is passed
// as a channels-first view of its own strides, nothing is copied.
// CHECK-LABEL: func.func @conv_nhwc_strided(
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [%{{.*}}#0, %{{.*}}#3, 1, %{{.*}}#1, %{{.*}}#2]
// CHECK: call @kiln_cpu_conv_f32(%[[FLAGS]], %[[ONE]], %[[ONE]], %[[TWO]], %[[TWO]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]],
// CHECK-NOT: linalg
// CHECK: return
func.func @conv_nhwc_strided(%in: memref<2x28x28x64xf32>, %w: memref<128x3x3x64xf32>, %out: memref<2x13x13x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)>,
                                   affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>,
                                   affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<2x28x28x64xf32>, memref<128x3x3x64xf32>) outs(%out : memref<2x13x13x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
