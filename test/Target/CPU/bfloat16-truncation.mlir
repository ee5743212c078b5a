// RUN: kiln-compile %s -o %t.so
// RUN: llvm-nm --defined-only %t.so | FileCheck %s
// RUN: llvm-nm --undefined-only %t.so | FileCheck %s --check-prefix=UNDEF
// RUN: llvm-nm -D --defined-only %t.so | FileCheck %s --check-prefix=EXPORTS

// Broadcasting bfloat16 values: x86 instruction selection without native
// bfloat16 legalises some of these copies through float and a call to
// __truncsfbf2, which many systems' libgcc lacks (the model then failed to
// load). kiln defines the routine in the model, hidden: defined here, not
// left undefined, not exported.

// CHECK: {{[tT]}} __truncsfbf2
// UNDEF-NOT: __truncsfbf2
// EXPORTS-NOT: __truncsfbf2

func.func @forward(%arg0: tensor<5x1x1xbf16> {kiln.dims = [5, 1, 1], kiln.kind = "input", kiln.name = "x"}, %arg1: tensor<5x1x5xbf16> {kiln.dims = [5, 1, 5], kiln.kind = "input", kiln.name = "y"}) -> (tensor<5x5x5xbf16> {kiln.dims = [5, 5, 5], kiln.name = "a"}, tensor<5x5x5xbf16> {kiln.dims = [5, 5, 5], kiln.name = "b"}) {
  %0 = aten.expand %arg0[5, 5, 5] : tensor<5x1x1xbf16> -> tensor<5x5x5xbf16>
  %1 = aten.expand %arg1[5, 5, 5] : tensor<5x1x5xbf16> -> tensor<5x5x5xbf16>
  return %0, %1 : tensor<5x5x5xbf16>, tensor<5x5x5xbf16>
}
