// RUN: kiln-opt %s -split-input-file -kiln-lower-parallel-launches -verify-diagnostics | FileCheck %s

// The launch's captures (a pointer, noalias in the body, and a float) go into a stack struct in
// the caller's entry block; the runtime gets the chunk function, the struct,
// n and the grain. The chunk function loads the captures back and calls the
// body, which becomes internal.
// CHECK-LABEL: llvm.func @f
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[Q:.*]]: f32, %[[N:.*]]: i64)
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, f32)>
// CHECK: %[[G:.*]] = llvm.mlir.constant(4 : i64)
// CHECK: %[[F0:.*]] = llvm.getelementptr %[[SLOT]][0, 0]
// CHECK: llvm.store %[[P]], %[[F0]]
// CHECK: %[[F1:.*]] = llvm.getelementptr %[[SLOT]][0, 1]
// CHECK: llvm.store %[[Q]], %[[F1]]
// CHECK: %[[FN:.*]] = llvm.mlir.addressof @f_par0_chunk
// CHECK: llvm.call @kiln_cpu_parallel_for(%[[FN]], %[[SLOT]], %[[N]], %[[G]])
// CHECK-NOT: f_par0_launch
// CHECK: llvm.func internal @f_par0(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: f32,
// CHECK: llvm.func internal @f_par0_chunk(%[[CTX:.*]]: !llvm.ptr, %[[LO:.*]]: i64, %[[HI:.*]]: i64)
// CHECK: %[[A:.*]] = llvm.getelementptr %[[CTX]][0, 0]
// CHECK: %[[AV:.*]] = llvm.load %[[A]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK: %[[BV:.*]] = llvm.load %[[B]] : !llvm.ptr -> f32
// CHECK: llvm.call @f_par0(%[[AV]], %[[BV]], %[[LO]], %[[HI]])
// CHECK: llvm.func @kiln_cpu_parallel_for(!llvm.ptr, !llvm.ptr, i64, i64)
llvm.func @f(%p: !llvm.ptr, %q: f32, %n: i64) {
  %g = llvm.mlir.constant(4 : i64) : i64
  llvm.call @f_par0_launch(%n, %g, %p, %q) : (i64, i64, !llvm.ptr, f32) -> ()
  llvm.return
}
llvm.func @f_par0(%p: !llvm.ptr, %q: f32, %lo: i64, %hi: i64) attributes {kiln.noalias_args = array<i64: 0>, sym_visibility = "private"} {
  llvm.store %q, %p : f32, !llvm.ptr
  llvm.return
}
llvm.func @f_par0_launch(i64, i64, !llvm.ptr, f32) attributes {kiln.parallel_body = @f_par0, sym_visibility = "private"}

// -----

// The body's captures must be the launch's.
llvm.func @g(%p: !llvm.ptr, %n: i64) {
  llvm.call @g_par0_launch(%n, %n, %p) : (i64, i64, !llvm.ptr) -> ()
  llvm.return
}
llvm.func @g_par0(%p: f32, %lo: i64, %hi: i64) {
  llvm.return
}
// expected-error @below {{does not match its parallel body @g_par0}}
llvm.func @g_par0_launch(i64, i64, !llvm.ptr) attributes {kiln.parallel_body = @g_par0}

// -----

// expected-error @below {{names a parallel body that is not a defined llvm.func}}
llvm.func @h_par0_launch(i64, i64) attributes {kiln.parallel_body = @missing}

// -----

llvm.func @k(%p: !llvm.ptr, %q: f32, %n: i64) {
  llvm.call @k_par0_launch(%n, %n, %p, %q) : (i64, i64, !llvm.ptr, f32) -> ()
  llvm.return
}
// expected-error @below {{marks argument 1 noalias, which is not a captured pointer}}
llvm.func @k_par0(%p: !llvm.ptr, %q: f32, %lo: i64, %hi: i64) attributes {kiln.noalias_args = array<i64: 1>} {
  llvm.return
}
llvm.func @k_par0_launch(i64, i64, !llvm.ptr, f32) attributes {kiln.parallel_body = @k_par0}
