// DEFINE: %{not-lowered} = --implicit-check-not=aten. --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref. --implicit-check-not=scf. --implicit-check-not=cf. --implicit-check-not=func.func --implicit-check-not=bufferization. --implicit-check-not=unrealized_conversion_cast
// RUN: kiln-opt %s --kiln-lower-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: kiln-opt %s --kiln-cpu-pipeline="cpu-library=false" | FileCheck %s %{not-lowered}
// RUN: kiln-opt %s --kiln-lower-to-linalg --kiln-linalg-to-llvm="cpu-library=false" | FileCheck %s %{not-lowered}
// RUN: kiln-opt %s --kiln-cpu-pipeline | FileCheck %s --check-prefix=LIB %{not-lowered}

// The mlp_dynamic layer shape: linear -> relu -> gelu, with a dynamic batch.
func.func @forward(%x: tensor<?x64xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<?x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %1 = aten.relu %0 : tensor<?x16xf32>
  %2 = aten.gelu %1 : tensor<?x16xf32>
  return %2 : tensor<?x16xf32>
}

// kiln-lower-to-linalg: the bias broadcast initialises the contraction, and
// relu and gelu fuse into one elementwise generic after it.
// LINALG-LABEL: func.func @forward
// LINALG-NOT: aten.
// LINALG: %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>)
// LINALG: %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} {{.*}} outs(%[[INIT]] : tensor<?x16xf32>)
// LINALG: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<?x16xf32>)
// LINALG: arith.maximumf
// LINALG: math.erf
// LINALG: linalg.yield
// LINALG-NOT: linalg.generic
// LINALG: return %[[Y]] : tensor<?x16xf32>

// The whole CPU path ends in the LLVM dialect alone: no aten, tensor,
// linalg, memref, scf, cf or func ops are left, and erf is inline
// arithmetic (kiln-math-approximations), not a libm call.
// With the library calls off, the linear layer is a loop nest too. Every
// loop leaves the entry (the parallel ones as chunk functions for the
// runtime's threads, the others as functions of their own that LLVM does not
// inline back), so the entry is glue LLVM compiles without optimising
// (optnone); relu is LLVM's maximum intrinsic (kiln-expand-arith).
// CHECK-NOT: @erff
// CHECK-DAG: llvm.func @kiln_cpu_alloc(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK: llvm.func @forward(
// CHECK-SAME: -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-SAME: passthrough = ["noinline", "optnone"]
// CHECK: llvm.call @kiln_cpu_alloc
// CHECK-NOT: llvm.fmul
// CHECK: llvm.call @forward_loop0(
// CHECK: llvm.return
// CHECK: llvm.func internal @forward_par0(
// CHECK: llvm.fmul
// CHECK: llvm.fadd
// CHECK: llvm.func internal @forward_par1(
// CHECK: llvm.intr.maximum
// CHECK: llvm.intr.fma
// CHECK-NOT: @erff
// CHECK: llvm.return
// CHECK: llvm.func internal @forward_loop0(
// CHECK-SAME: !llvm.ptr {llvm.noalias}
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: llvm.store
// CHECK: llvm.return

// By default the linear layer (16x64 weight, a dynamic batch counted as 128
// rows: 131072 multiply-adds) is one call of the runtime's oneDNN GEMM with
// the bias folded in (kiln_cpu_gemm_lt_f32, reached through its C
// interface); relu and gelu stay one generated loop.
// LIB-DAG: llvm.func @_mlir_ciface_kiln_cpu_gemm_lt_f32(i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// LIB-DAG: llvm.func private @kiln_cpu_gemm_lt_f32(
// LIB-DAG: llvm.call @_mlir_ciface_kiln_cpu_gemm_lt_f32(
// LIB: llvm.func @forward(
// LIB: llvm.call @kiln_cpu_gemm_lt_f32(
// LIB: llvm.intr.fma
// LIB-NOT: @erff
// LIB: llvm.return
