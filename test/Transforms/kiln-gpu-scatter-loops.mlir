// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-gpu-scatter-loops{block-size=128}))' | FileCheck %s

// An accumulating scatter (index_put with accumulate): one thread per
// iteration, the read-modify-write of the result an atomic add.
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: scf.for
// CHECK: %[[N:.*]] = arith.muli
// CHECK: scf.parallel (%[[B:.*]]) =
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c128)
// CHECK: arith.cmpi ult, %{{.*}}, %[[N]]
// CHECK: %[[U:.*]] = memref.load %arg2
// CHECK-NOT: memref.load %arg0
// CHECK: memref.atomic_rmw addf %[[U]], %arg0
// CHECK-NOT: memref.store
// CHECK: mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: mapping = [#gpu.loop_dim_map<processor = block_x
func.func @accumulate(%arg0: memref<10x8xf32>, %arg1: memref<5xi64>, %arg2: memref<5x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %x = memref.load %arg1[%i] : memref<5xi64>
      %k = arith.index_cast %x : i64 to index
      %u = memref.load %arg2[%i, %j] : memref<5x8xf32>
      %old = memref.load %arg0[%k, %j] : memref<10x8xf32>
      %new = arith.addf %old, %u : f32
      memref.store %new, %arg0[%k, %j] : memref<10x8xf32>
    }
  }
  return
}

// A plain scatter (assignment): parallel, plain stores.
// CHECK-LABEL: func.func @assign
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %arg0
// CHECK-NOT: atomic_rmw
func.func @assign(%arg0: memref<?xf32>, %arg1: memref<?xi64>, %arg2: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %arg1[%i] : memref<?xi64>
    %k = arith.index_cast %x : i64 to index
    %u = memref.load %arg2[%i] : memref<?xf32>
    memref.store %u, %arg0[%k] : memref<?xf32>
  }
  return
}

// A scatter under a host guard on sizes (the bufferized form of "only when
// the index tensor is not empty"): the guard stays on the host around the
// parallel nest.
// CHECK-LABEL: func.func @guarded
// CHECK: scf.if %arg4 {
// CHECK-NOT: scf.for
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %arg0
func.func @guarded(%arg0: memref<?x4xf32>, %arg1: memref<?x2xi64>, %arg2: memref<?x2xf32>, %n: index, %go: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.if %go {
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %x = memref.load %arg1[%i, %j] : memref<?x2xi64>
        %k = arith.index_cast %x : i64 to index
        %u = memref.load %arg2[%i, %j] : memref<?x2xf32>
        memref.store %u, %arg0[%i, %k] : memref<?x4xf32>
      }
    }
  }
  return
}

// A running sum reads what an earlier iteration wrote: one thread runs the
// nest in its order.
// CHECK-LABEL: func.func @prefix
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1{{.*}})
// CHECK: scf.for
// CHECK-NOT: atomic_rmw
func.func @prefix(%arg0: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c1 to %c16 step %c1 {
    %p = arith.subi %i, %c1 : index
    %a = memref.load %arg0[%p] : memref<16xf32>
    %b = memref.load %arg0[%i] : memref<16xf32>
    %s = arith.addf %a, %b : f32
    memref.store %s, %arg0[%i] : memref<16xf32>
  }
  return
}

// A loop that writes a shape the host reads stays on the host.
// CHECK-LABEL: func.func @host_shape
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: memref.reshape
func.func @host_shape(%arg0: memref<8xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %shape = memref.alloc() : memref<2xindex>
  scf.for %i = %c0 to %c2 step %c1 {
    %v = arith.muli %i, %c2 : index
    %w = arith.addi %v, %c2 : index
    memref.store %w, %shape[%i] : memref<2xindex>
  }
  %r = memref.reshape %arg0(%shape) : (memref<8xf32>, memref<2xindex>) -> memref<?x?xf32>
  return %r : memref<?x?xf32>
}

// A private helper without kernels or linalg ops works on host memory (the
// deallocation helper's loops over pointer arrays): left alone.
// CHECK-LABEL: func.func private @host_helper
// CHECK-NOT: scf.parallel
// CHECK: scf.for
func.func private @host_helper(%arg0: memref<?xindex>, %arg1: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %n = memref.dim %arg0, %c0 : memref<?xindex>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %true, %arg1[%i] : memref<?xi1>
  }
  return
}
