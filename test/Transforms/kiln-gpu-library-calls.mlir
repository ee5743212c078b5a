// RUN: kiln-opt %s --kiln-gpu-library-calls | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-library-calls="min-macs=1" | FileCheck %s --check-prefix=ALL

// One declaration of the runtime's GEMM, taking rank-3 strided views, marked
// as a device call.
// CHECK: func.func private @kiln_gpu_gemm_f32(i32, i32, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// A linear layer's contraction, C[m, n] += X[m, k] * W[n, k]: B is stored
// transposed.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[F:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK: %[[X3:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [1, %{{.*}}, 768] : memref<?x768xf32> into memref<1x?x768xf32>
// CHECK: %[[X:.*]] = memref.cast %[[X3]]
// CHECK: %[[W:.*]] = memref.cast
// CHECK: %[[C:.*]] = memref.cast
// CHECK: call @kiln_gpu_gemm_f32(%[[F]], %[[T]], %[[X]], %[[W]], %[[C]])
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
// CHECK: call @kiln_gpu_gemm_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32
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
// one whose static part is small (the dynamic MLP's layer), f64, and a
// strided operand.
// CHECK-LABEL: func.func @small
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @dynamic_small
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @f64
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @strided
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
func.func @strided(%a: memref<512x512xf32, strided<[1024, 1]>>, %b: memref<512x512xf32>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x512xf32, strided<[1024, 1]>>, memref<512x512xf32>) outs(%c : memref<512x512xf32>)
  return
}
