// RUN: kiln-opt %s -split-input-file -verify-diagnostics --kiln-lower-buffer-allocs | FileCheck %s
// RUN: kiln-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(finalize-memref-to-llvm{use-aligned-alloc use-generic-functions},kiln-lower-buffer-allocs)" | FileCheck %s --check-prefix=PIPE

// The generic allocation functions become the runtime's, every call with
// them; the allocation's result is noalias, as libc's aligned_alloc is.
// CHECK-NOT: _mlir_memref_to_llvm
// CHECK: llvm.func @kiln_cpu_alloc(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK: llvm.func @kiln_cpu_free(!llvm.ptr)
// CHECK-LABEL: llvm.func @buffers(
// CHECK: %[[P:.*]] = llvm.call @kiln_cpu_alloc(%{{.*}}, %{{.*}}) : (i64, i64) -> !llvm.ptr
// CHECK: llvm.call @kiln_cpu_free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-NOT: _mlir_memref_to_llvm
llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @buffers(%n: i64) {
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %p = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// From memref.alloc / memref.dealloc, through finalize-memref-to-llvm.
// PIPE-LABEL: func.func @from_memref(
// PIPE: llvm.call @kiln_cpu_alloc(
// PIPE: llvm.call @kiln_cpu_free(
// PIPE-NOT: _mlir_memref_to_llvm
// PIPE-NOT: @aligned_alloc
func.func @from_memref() {
  %m = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
  memref.dealloc %m : memref<1024xf32>
  return
}

// -----

// A module with no allocation is left alone.
// CHECK-LABEL: llvm.func @nothing(
// CHECK-NOT: kiln_cpu
llvm.func @nothing() {
  llvm.return
}

// -----

// The unaligned generic allocation is refused: the runtime's is aligned.
// expected-error @+1 {{is an unaligned allocation}}
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @plain(%n: i64) {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.return
}

// -----

// The runtime's name taken by something else is an error.
llvm.func @kiln_cpu_free(i32)
// expected-error @+1 {{cannot become @kiln_cpu_free}}
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
