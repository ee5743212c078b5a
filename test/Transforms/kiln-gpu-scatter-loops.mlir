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

// A scatter whose loops all had one trip (a one-element index tensor) is no
// loop any more: its store, with the loads and arithmetic feeding it, runs in
// a kernel of one iteration all the same. Here the moved ops go down to the
// store, past the copy (which touches none of the buffers they read).
// CHECK-LABEL: func.func @one_trip_store
// CHECK: linalg.copy
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: memref.load %arg1
// CHECK: arith.index_cast
// CHECK: memref.load %arg2
// CHECK: memref.store %{{.*}}, %[[R:.*]][
// CHECK: return %[[R]]
func.func @one_trip_store(%arg0: memref<4xf32>, %arg1: memref<1xi64>, %arg2: memref<1xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = memref.load %arg1[%c0] : memref<1xi64>
  %1 = arith.index_cast %0 : i64 to index
  %2 = memref.load %arg2[%c0] : memref<1xf32>
  %r = memref.alloc() : memref<4xf32>
  linalg.copy ins(%arg0 : memref<4xf32>) outs(%r : memref<4xf32>)
  memref.store %2, %r[%1] : memref<4xf32>
  return %r : memref<4xf32>
}

// An accumulating one: the update becomes an atomic add. A buffer it reads is
// freed before the store: the dealloc goes after the kernel.
// CHECK-LABEL: func.func @one_trip_accumulate
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.load %arg1
// CHECK: %[[U:.*]] = memref.load %[[V:.*]][]
// CHECK: memref.atomic_rmw addf %[[U]], %arg0
// CHECK-NOT: memref.store
// CHECK: memref.dealloc %[[V]]
func.func @one_trip_accumulate(%arg0: memref<4xf32>, %arg1: memref<1xi64>, %arg2: memref<f32>) {
  %c0 = arith.constant 0 : index
  %v = memref.alloc() : memref<f32>
  linalg.copy ins(%arg2 : memref<f32>) outs(%v : memref<f32>)
  %0 = memref.load %arg1[%c0] : memref<1xi64>
  %1 = arith.index_cast %0 : i64 to index
  %2 = memref.load %v[] : memref<f32>
  memref.dealloc %v : memref<f32>
  %3 = memref.load %arg0[%1] : memref<4xf32>
  %4 = arith.addf %3, %2 : f32
  memref.store %4, %arg0[%1] : memref<4xf32>
  return
}

// A constant stored alone (the one-element nonzero's index): one thread.
// CHECK-LABEL: func.func @one_trip_constant
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[A:.*]][%{{.*}}, %{{.*}}] : memref<1x1xi64>
// CHECK: memref.subview %[[A]]
func.func @one_trip_constant() -> memref<1xi64, strided<[1]>> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  %a = memref.alloc() : memref<1x1xi64>
  memref.store %z, %a[%c0, %c0] : memref<1x1xi64>
  %s = memref.subview %a[0, 0] [1, 1] [1, 1] : memref<1x1xi64> to memref<1xi64, strided<[1]>>
  return %s : memref<1xi64, strided<[1]>>
}

// A store into a shape the host reads stays where it is.
// CHECK-LABEL: func.func @one_trip_host_shape
// CHECK-NOT: scf.parallel
// CHECK: memref.store
// CHECK: memref.reshape
func.func @one_trip_host_shape(%arg0: memref<8xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %shape = memref.alloc() : memref<1xindex>
  memref.store %n, %shape[%c0] : memref<1xindex>
  %r = memref.reshape %arg0(%shape) : (memref<8xf32>, memref<1xindex>) -> memref<?xf32>
  return %r : memref<?xf32>
}

// The host's own arrays (the deallocation helper's pointer and flag lists),
// which no linalg op touches and the function does not return, keep their
// stores on the host.
// CHECK-LABEL: func.func @one_trip_host_list
// CHECK-NOT: scf.parallel
// CHECK: memref.store
// CHECK: call @list_helper
func.func @one_trip_host_list(%p: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%c1) : memref<?xindex>
  memref.store %p, %a[%c0] : memref<?xindex>
  call @list_helper(%a) : (memref<?xindex>) -> ()
  return
}
func.func private @list_helper(memref<?xindex>)

// Two one-trip stores sharing one index (index_copy and its gradient's
// index_fill): each kernel computes the index again; no load stays on the host.
// CHECK-LABEL: func.func @one_trip_shared_index
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: memref.load %arg1
// CHECK: memref.store %{{.*}}, %[[A:.*]][
// CHECK: scf.parallel
// CHECK: memref.load %arg1
// CHECK: memref.store %{{.*}}, %[[B:.*]][
// CHECK: return %[[A]], %[[B]]
func.func @one_trip_shared_index(%arg0: memref<4xf32>, %arg1: memref<1xi64>, %arg2: memref<1xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %0 = memref.load %arg1[%c0] : memref<1xi64>
  %1 = arith.index_cast %0 : i64 to index
  %2 = memref.load %arg2[%c0] : memref<1xf32>
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%arg0 : memref<4xf32>) outs(%a : memref<4xf32>)
  memref.store %2, %a[%1] : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%arg0 : memref<4xf32>) outs(%b : memref<4xf32>)
  memref.store %zero, %b[%1] : memref<4xf32>
  return %a, %b : memref<4xf32>, memref<4xf32>
}

// A buffer the store's value is read from is written again before the store:
// the kernel goes where the first load is (the ops move up), before the write.
// CHECK-LABEL: func.func @one_trip_moved_up
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: %[[X:.*]] = memref.load %arg2[]
// CHECK: memref.store %[[X]], %arg0[
// CHECK: linalg.fill
// CHECK-NOT: memref.store
// CHECK: return
func.func @one_trip_moved_up(%arg0: memref<4xf32>, %arg1: memref<1xi64>, %arg2: memref<f32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %0 = memref.load %arg1[%c0] : memref<1xi64>
  %1 = arith.index_cast %0 : i64 to index
  %2 = memref.load %arg2[] : memref<f32>
  linalg.fill ins(%one : f32) outs(%arg2 : memref<f32>)
  memref.store %2, %arg0[%1] : memref<4xf32>
  return
}
