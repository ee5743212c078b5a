// RUN: kiln-opt %s --kiln-gpu-library-calls | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="epilogues=false" | FileCheck %s --check-prefix=OFF

// GEMMs with fused epilogues (cuBLASLt): the bias broadcast that initialised
// a GEMM's output, the rounding of a bf16/f16 product and a ReLU fold into
// the call: kiln_gpu_gemm_lt_<type>(transA, transB, flags, A, B, D, bias),
// flags 2 (overwrite D) + 4 (ReLU).
// CHECK-DAG: func.func private @kiln_gpu_gemm_lt_bf16(i32, i32, i32, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?xbf16, strided<[?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_gemm_lt_f32(i32, i32, i32, memref<?x?x?xf32, {{.*}}>, memref<?x?x?xf32, {{.*}}>, memref<?x?x?xf32, {{.*}}>, memref<?xf32, strided<[?], offset: ?>>)
// CHECK-DAG: func.func private @kiln_gpu_gemm_lt_f16(
// CHECK-DAG: func.func private @kiln_gpu_gemm_lt_bf16_f32(i32, i32, i32, memref<?x?x?xbf16, {{.*}}>, memref<?x?x?xbf16, {{.*}}>, memref<?x?x?xf32, {{.*}}>, memref<?xf32, strided<[?], offset: ?>>)
// With epilogues off, nothing folds.
// OFF-NOT: kiln_gpu_gemm_lt

#x3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (n, k)>
#o3 = affine_map<(b, s, n, k) -> (b, s, n)>
#id1 = affine_map<(d0) -> (d0)>
#bias3 = affine_map<(d0, d1, d2) -> (d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#x2 = affine_map<(m, n, k) -> (m, k)>
#w2 = affine_map<(m, n, k) -> (n, k)>
#o2 = affine_map<(m, n, k) -> (m, n)>
#bias2 = affine_map<(d0, d1) -> (d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// The bf16 bias goes to the call as it is, the GEMM writes the rounded
// result into the rounding op's output, and the widening, the broadcast,
// the rounding and the float32 product all go away.
// CHECK-LABEL: func.func @linear_bf16(
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<4x128x768xbf16> into memref<512x768xbf16>
// CHECK-DAG: %[[O:.*]] = memref.collapse_shape %arg3 {{\[\[}}0, 1], [2]] : memref<4x128x3072xbf16> into memref<512x3072xbf16>
// CHECK-DAG: %[[BIAS:.*]] = memref.cast %arg2 : memref<3072xbf16> to memref<?xbf16, strided<[?], offset: ?>>
// CHECK-DAG: %[[F:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK: memref.expand_shape %[[O]]
// CHECK: call @kiln_gpu_gemm_lt_bf16(%[[F]], %[[T]], %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.dealloc
// CHECK: return
// OFF-LABEL: func.func @linear_bf16(
// OFF: linalg.generic
// OFF: linalg.generic
// OFF: call @kiln_gpu_gemm_bf16_f32
// OFF: arith.truncf
// A bf16 linear layer on a [batch, seq, hidden] activation as kiln lowers
// it: the bf16 bias widened to float32, broadcast into the float32 product,
// the product accumulated onto it, then rounded to bf16.
func.func @linear_bf16(%x: memref<4x128x768xbf16>, %w: memref<3072x768xbf16>, %b: memref<3072xbf16>, %out: memref<4x128x3072xbf16>) {
  %bf = memref.alloc() {alignment = 64 : i64} : memref<3072xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b : memref<3072xbf16>) outs(%bf : memref<3072xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<4x128x3072xf32>
  linalg.generic {indexing_maps = [#bias3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bf : memref<3072xf32>) outs(%c : memref<4x128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x3, #w, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x128x768xbf16>, memref<3072x768xbf16>) outs(%c : memref<4x128x3072xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<4x128x3072xf32>) outs(%out : memref<4x128x3072xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %bf : memref<3072xf32>
  memref.dealloc %c : memref<4x128x3072xf32>
  return
}

// An erf GELU fused with the rounding stays a kernel (cuBLASLt's GELU is
// the tanh approximation): it reads a bf16 buffer the GEMM writes.
// CHECK-LABEL: func.func @linear_bf16_gelu(
// CHECK: %[[D:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x128x3072xbf16>
// CHECK-NOT: memref.alloc
// CHECK: call @kiln_gpu_gemm_lt_bf16(
// CHECK: linalg.generic {{.*}} ins(%[[D]] : memref<4x128x3072xbf16>) outs(%arg3 : memref<4x128x3072xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: arith.extf %[[IN]] : bf16 to f32
// CHECK: math.erf
// CHECK: memref.dealloc %[[D]]
// CHECK-NOT: memref.dealloc
// The same layer followed by an erf GELU fused with the rounding: the
// GEMM writes a bf16 buffer that the GELU reads.
func.func @linear_bf16_gelu(%x: memref<4x128x768xbf16>, %w: memref<3072x768xbf16>, %b: memref<3072xbf16>, %out: memref<4x128x3072xbf16>) {
  %cst = arith.constant 5.000000e-01 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 0.707106769 : f32
  %bf = memref.alloc() {alignment = 64 : i64} : memref<3072xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b : memref<3072xbf16>) outs(%bf : memref<3072xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<4x128x3072xf32>
  linalg.generic {indexing_maps = [#bias3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bf : memref<3072xf32>) outs(%c : memref<4x128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x3, #w, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<4x128x768xbf16>, memref<3072x768xbf16>) outs(%c : memref<4x128x3072xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : memref<4x128x3072xf32>) outs(%out : memref<4x128x3072xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    %1 = arith.extf %0 : bf16 to f32
    %2 = arith.mulf %1, %cst_1 : f32
    %3 = math.erf %2 : f32
    %4 = arith.addf %3, %cst_0 : f32
    %5 = arith.mulf %1, %cst : f32
    %6 = arith.mulf %5, %4 : f32
    %7 = arith.truncf %6 : f32 to bf16
    linalg.yield %7 : bf16
  }
  memref.dealloc %bf : memref<3072xf32>
  memref.dealloc %c : memref<4x128x3072xf32>
  return
}

// A float32 linear layer and its ReLU in place: one call, flags 6.
// CHECK-LABEL: func.func @linear_f32_relu(
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x3072xf32>
// CHECK-DAG: %[[BIAS:.*]] = memref.cast %arg2 : memref<3072xf32> to memref<?xf32, strided<[?], offset: ?>>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 6 : i32
// CHECK: memref.expand_shape %[[C]]
// CHECK: call @kiln_gpu_gemm_lt_f32(%{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
// A float32 linear layer and its ReLU in place (as bufferization leaves
// it): one call with the ReLU flag.
func.func @linear_f32_relu(%x: memref<128x768xf32>, %w: memref<3072x768xf32>, %b: memref<3072xf32>) -> memref<128x3072xf32> {
  %cst = arith.constant 0.000000e+00 : f32
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
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<128x3072xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.maximumf %in, %cst : f32
    linalg.yield %0 : f32
  }
  return %c : memref<128x3072xf32>
}

// f16, dynamic rows, the weight not transposed, the bias widened inside the
// broadcast and a ReLU on the rounded value: one call, flags 6, writing
// the ReLU's output.
// CHECK-LABEL: func.func @linear_f16_relu_dynamic(
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[BIAS:.*]] = memref.cast %arg2 : memref<1024xf16> to memref<?xf16, strided<[?], offset: ?>>
// CHECK-DAG: %[[FLAGS:.*]] = arith.constant 6 : i32
// CHECK: memref.expand_shape %arg3 {{\[\[}}0, 1], [2]] output_shape [1, %{{.*}}, 1024] : memref<?x1024xf16> into memref<1x?x1024xf16>
// CHECK: call @kiln_gpu_gemm_lt_f16(%{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK-NOT: linalg.generic
// CHECK: return
// f16 with dynamic rows and the weight stored [in, out] (not transposed);
// the bias widened inside the broadcast; ReLU in float32 on the rounded
// value, then rounded again.
func.func @linear_f16_relu_dynamic(%x: memref<?x512xf16>, %w: memref<512x1024xf16>, %b: memref<1024xf16>, %out: memref<?x1024xf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x512xf16>
  %c = memref.alloc(%n) {alignment = 64 : i64} : memref<?x1024xf32>
  linalg.generic {indexing_maps = [#bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<1024xf16>) outs(%c : memref<?x1024xf32>) {
  ^bb0(%in: f16, %o: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x512xf16>, memref<512x1024xf16>) outs(%c : memref<?x1024xf32>) {
  ^bb0(%a: f16, %bb: f16, %o: f32):
    %0 = arith.extf %a : f16 to f32
    %1 = arith.extf %bb : f16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<?x1024xf32>) outs(%out : memref<?x1024xf16>) {
  ^bb0(%in: f32, %o: f16):
    %0 = arith.truncf %in : f32 to f16
    %1 = arith.extf %0 : f16 to f32
    %2 = arith.maximumf %1, %cst : f32
    %3 = arith.truncf %2 : f32 to f16
    linalg.yield %3 : f16
  }
  memref.dealloc %c : memref<?x1024xf32>
  return
}

// A float32 product with a bf16 bias: the call takes a float32 copy.
// CHECK-LABEL: func.func @f32_bf16_bias(
// CHECK: %[[C:.*]] = memref.alloc() {{.*}} : memref<128x3072xf32>
// CHECK: %[[B:.*]] = memref.alloc() {{.*}} : memref<3072xf32>
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<3072xbf16>) outs(%[[B]] : memref<3072xf32>)
// CHECK: arith.extf
// CHECK: %[[BIAS:.*]] = memref.cast %[[B]]
// CHECK: call @kiln_gpu_gemm_lt_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK: memref.dealloc %[[B]]
// A float32 product with a bf16 bias widened in the broadcast: the bias is
// widened into a float32 vector for the call.
func.func @f32_bf16_bias(%x: memref<128x768xf32>, %w: memref<3072x768xf32>, %b: memref<3072xbf16>) -> memref<128x3072xf32> {
  %c = memref.alloc() {alignment = 64 : i64} : memref<128x3072xf32>
  linalg.generic {indexing_maps = [#bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<3072xbf16>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<128x768xf32>, memref<3072x768xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.mulf %a, %bb : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return %c : memref<128x3072xf32>
}

// No bias: a zero-filled product rounded to bf16 is cuBLAS's bf16 GEMM
// writing the rounded result (flags 2).
// CHECK-LABEL: func.func @matmul_bf16_round(
// CHECK-NOT: linalg
// CHECK: %[[FLAGS:.*]] = arith.constant 2 : i32
// CHECK: %[[O:.*]] = memref.expand_shape %arg2
// CHECK: %[[OC:.*]] = memref.cast %[[O]]
// CHECK: call @kiln_gpu_gemm_bf16(%{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %[[OC]])
// CHECK-NOT: linalg
// CHECK: return
// No bias: a zero-filled bf16 product rounded to bf16 is the bf16 GEMM
// writing the rounded result.
func.func @matmul_bf16_round(%x: memref<256x512xbf16>, %w: memref<512x128xbf16>, %out: memref<256x128xbf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.fill ins(%cst : f32) outs(%c : memref<256x128xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<256x512xbf16>, memref<512x128xbf16>) outs(%c : memref<256x128xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<256x128xf32>) outs(%out : memref<256x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  memref.dealloc %c : memref<256x128xf32>
  return
}

// Not folded: a vector broadcast along the columns (indexed by the row) is
// not a bias; the product accumulates onto it as before.
// CHECK-LABEL: func.func @row_broadcast(
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<128xf32>)
// CHECK-NOT: kiln_gpu_gemm_lt
// CHECK: call @kiln_gpu_gemm_f32(
// Not folded: a vector broadcast along the columns (indexed by the row),
// not a bias of the columns.
func.func @row_broadcast(%x: memref<128x768xf32>, %w: memref<3072x768xf32>, %b: memref<128xf32>) -> memref<128x3072xf32> {
  %c = memref.alloc() {alignment = 64 : i64} : memref<128x3072xf32>
  linalg.generic {indexing_maps = [#row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<128xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<128x768xf32>, memref<3072x768xf32>) outs(%c : memref<128x3072xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.mulf %a, %bb : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return %c : memref<128x3072xf32>
}

// Not folded into the rounding: the float32 product has a second reader.
// The bias still folds, as the float32 vector the widening wrote.
// CHECK-LABEL: func.func @second_user(
// CHECK: %[[B:.*]] = memref.alloc() {{.*}} : memref<128xf32>
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<128xbf16>) outs(%[[B]] : memref<128xf32>)
// CHECK: %[[C:.*]] = memref.alloc() {{.*}} : memref<256x128xf32>
// CHECK: %[[BIAS:.*]] = memref.cast %[[B]]
// CHECK: call @kiln_gpu_gemm_lt_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BIAS]])
// CHECK: linalg.generic {{.*}} ins(%[[C]] : memref<256x128xf32>) outs(%arg3 : memref<256x128xbf16>)
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[C]] : memref<256x128xf32>) outs(%arg4 : memref<256x128xf32>)
// Not folded into the rounding: the float32 product has a second reader
// after the rounding op; the bias still folds (as float32).
func.func @second_user(%x: memref<256x512xbf16>, %w: memref<128x512xbf16>, %b: memref<128xbf16>, %out: memref<256x128xbf16>, %out2: memref<256x128xf32>) {
  %bf = memref.alloc() {alignment = 64 : i64} : memref<128xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b : memref<128xbf16>) outs(%bf : memref<128xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  }
  %c = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.generic {indexing_maps = [#bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bf : memref<128xf32>) outs(%c : memref<256x128xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<256x512xbf16>, memref<128x512xbf16>) outs(%c : memref<256x128xf32>) {
  ^bb0(%a: bf16, %bb: bf16, %o: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %o, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<256x128xf32>) outs(%out : memref<256x128xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<256x128xf32>) outs(%out2 : memref<256x128xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %bf : memref<128xf32>
  memref.dealloc %c : memref<256x128xf32>
  return
}

// Not folded: a reduction of dynamic length (it may be empty, which leaves
// the bias as the output).
// CHECK-LABEL: func.func @dynamic_k(
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<512xf32>)
// CHECK-NOT: kiln_gpu_gemm_lt
// CHECK: call @kiln_gpu_gemm_f32(
func.func @dynamic_k(%x: memref<128x?xf32>, %w: memref<512x?xf32>, %b: memref<512xf32>) -> memref<128x512xf32> {
  %c = memref.alloc() {alignment = 64 : i64} : memref<128x512xf32>
  linalg.generic {indexing_maps = [#bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b : memref<512xf32>) outs(%c : memref<128x512xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#x2, #w2, #o2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<128x?xf32>, memref<512x?xf32>) outs(%c : memref<128x512xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.mulf %a, %bb : f32
    %1 = arith.addf %o, %0 : f32
    linalg.yield %1 : f32
  }
  return %c : memref<128x512xf32>
}
