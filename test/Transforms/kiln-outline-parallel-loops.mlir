// RUN: kiln-opt %s -split-input-file -kiln-outline-parallel-loops='min-work=1024 chunk-work=256 min-chunks=64' | FileCheck %s

// A 2-d elementwise loop: the leading dim (64 iterations, enough chunks) is
// split; the last one stays a loop inside the chunk (the vector loop). The
// captures are the two buffers and the scalar; constants are cloned in. The
// grain is ceil(256 / (128 iterations x 3 ops)) = 1.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: memref<64x128xf32>, %[[Y:.*]]: memref<64x128xf32>, %[[S:.*]]: f32)
// CHECK: arith.constant 128 : index
// CHECK-NEXT: %[[N:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[G:.*]] = arith.constant 1 : index
// CHECK-NEXT: call @elementwise_par0_launch(%[[N]], %[[G]], %[[X]], %[[S]], %[[Y]])
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK: func.func private @elementwise_par0(%[[BX:.*]]: memref<64x128xf32>, %[[BS:.*]]: f32, %[[BY:.*]]: memref<64x128xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK: scf.for %[[I:.*]] = %[[LO]] to %[[HI]]
// CHECK: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%{{.*}})
// CHECK: memref.load %[[BX]][%[[I]], %[[J]]]
// CHECK: arith.mulf %{{.*}}, %[[BS]]
// CHECK: memref.store %{{.*}}, %[[BY]][%[[I]], %[[J]]]
// CHECK: func.func private @elementwise_par0_launch(index, index, memref<64x128xf32>, f32, memref<64x128xf32>) attributes {kiln.parallel_body = @elementwise_par0}
func.func @elementwise(%x: memref<64x128xf32>, %y: memref<64x128xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x128xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %y[%i, %j] : memref<64x128xf32>
    scf.reduce
  }
  return
}

// -----

// Too few chunks in the leading dim (4 < 64): the first two dims are
// linearised (4 x 32 = 128 chunks) and delinearised inside the chunk.
// CHECK-LABEL: func.func @collapse
// CHECK: %[[N:.*]] = arith.constant 128 : index
// CHECK: call @collapse_par0_launch(%[[N]],
// CHECK: func.func private @collapse_par0
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}}
// CHECK-DAG: %[[J:.*]] = arith.remui %[[IV]], %{{.*}}
// CHECK-DAG: %[[I:.*]] = arith.divui %[[IV]], %{{.*}}
// CHECK: scf.parallel (%[[K:.*]]) =
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @collapse(%x: memref<4x32x64xf32>, %y: memref<4x32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c32, %c64) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %j, %k] : memref<4x32x64xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j, %k] : memref<4x32x64xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction (softmax statistics): the parallel rows are split, the
// reduction loop runs inside each chunk. Rows do 256 x 3 ops each, more than
// the chunk work, so the grain is 1. The dynamic row count is computed at
// the launch from the buffer's size (never below 0).
// CHECK-LABEL: func.func @rows
// CHECK: %[[D:.*]] = memref.dim
// CHECK: %[[T:.*]] = arith.maxsi %[[D]], %{{.*}}
// CHECK: call @rows_par0_launch(%[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %[[D]])
// CHECK: func.func private @rows_par0
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}}
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: memref.load %{{.*}}[%[[R]], %{{.*}}]
func.func @rows(%x: memref<?x256xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?x256xf32>
  scf.parallel (%r) = (%c0) to (%n) step (%c1) {
    scf.for %k = %c0 to %c256 step %c1 {
      %v = memref.load %x[%r, %k] : memref<?x256xf32>
      %a = memref.load %y[%r] : memref<?xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %y[%r] : memref<?xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Small loops stay serial: 8 x 8 x 3 ops is under min-work. The loop moves
// into a function of its own that LLVM will not inline back (noinline),
// called in its place; the function left with no loop is glue, compiled
// without optimisation (optnone).
// CHECK-LABEL: func.func @small
// CHECK-SAME: passthrough = ["noinline", "optnone"]
// CHECK-NOT: scf.parallel
// CHECK: call @small_loop0(%{{.*}}, %{{.*}}) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @small_loop0(
// CHECK-SAME: attributes {kiln.serial_loop, passthrough = ["noinline"]}
// CHECK: scf.parallel
// CHECK-NOT: call
func.func @small(%x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<8x8xf32>
    %n = arith.negf %v : f32
    memref.store %n, %y[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  return
}

// -----

// Only the outermost parallel loop is outlined: the matmul's column loop
// inside the reduction loop runs in the chunk. A 1-d loop with a loop nest
// inside splits its only dim; its lower bound and step are applied to the
// chunk index (i = 2 + 3 * iv).
// CHECK-LABEL: func.func @nested
// CHECK: call @nested_par0_launch
// CHECK-NOT: scf.parallel
// CHECK: func.func private @nested_par0
// CHECK: scf.for %[[IV:.*]] =
// CHECK: %[[M:.*]] = arith.muli %[[IV]], %{{.*}}
// CHECK: %[[I:.*]] = arith.addi %[[M]], %{{.*}}
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}}[%[[I]], %{{.*}}]
func.func @nested(%a: memref<194x64xf32>, %b: memref<64x64xf32>, %c: memref<194x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c194 = arith.constant 194 : index
  scf.parallel (%i) = (%c2) to (%c194) step (%c3) {
    scf.for %k = %c0 to %c64 step %c1 {
      scf.parallel (%j) = (%c0) to (%c64) step (%c1) {
        %x = memref.load %a[%i, %k] : memref<194x64xf32>
        %y = memref.load %b[%k, %j] : memref<64x64xf32>
        %z = memref.load %c[%i, %j] : memref<194x64xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %z, %p : f32
        memref.store %s, %c[%i, %j] : memref<194x64xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}

// -----

// Captures no other capture can reach are listed as noalias, by their
// position among the LLVM arguments they become (a rank-2 memref: 7): the
// aligned pointers of the argument %x (only read) and of the fresh buffer
// %y. Two views of one buffer (%z) are not.
// CHECK-LABEL: func.func @noalias
// CHECK: func.func private @noalias_par0({{.*}}) attributes {kiln.noalias_args = array<i64: 1, 8>}
// CHECK: func.func private @noalias_par1({{.*}}) {
func.func @noalias(%x: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %y = memref.alloc() : memref<64x128xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x128xf32>
    memref.store %v, %y[%i, %j] : memref<64x128xf32>
    scf.reduce
  }
  %z = memref.alloc() : memref<128x128xf32>
  %top = memref.subview %z[0, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1]>>
  %bottom = memref.subview %z[64, 0] [64, 128] [1, 1] : memref<128x128xf32> to memref<64x128xf32, strided<[128, 1], offset: 8192>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
    %v = memref.load %top[%i, %j] : memref<64x128xf32, strided<[128, 1]>>
    memref.store %v, %bottom[%i, %j] : memref<64x128xf32, strided<[128, 1], offset: 8192>>
    scf.reduce
  }
  memref.dealloc %y : memref<64x128xf32>
  memref.dealloc %z : memref<128x128xf32>
  return
}

// -----

// A loop that yields values stays in its function, which keeps LLVM's
// optimisations (no optnone); the loop without results beside it moves out.
// CHECK-LABEL: func.func @carried(
// CHECK-NOT: optnone
// CHECK: scf.for {{.*}} iter_args
// CHECK: call @carried_loop0(
// CHECK: func.func private @carried_loop0(
func.func @carried(%x: memref<8xf32>, %y: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<8xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %sum, %y[%i] : memref<8xf32>
  }
  return %sum : f32
}

// -----

// A global sum over the leading dims of an NHWC input into a buffer the
// function allocates (a pool, as linalg lowers it with the contiguous
// channels innermost): the outer loop has one
// iteration, so the channels, in blocks of 16 (30 of them), become a dim of
// the launched loop; each chunk runs the h and w loops over its block.
// CHECK-LABEL: func.func @pool
// CHECK: %[[Y:.*]] = memref.alloc()
// CHECK: call @pool_par0_launch(%c30{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}, %[[Y]])
// CHECK: func.func private @pool_par0(
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}}
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %c16
// CHECK: %[[E:.*]] = arith.addi %[[M]], %c16
// CHECK: %[[TO:.*]] = arith.minsi %[[E]], %c480
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.parallel (%[[C:.*]]) = (%[[M]]) to (%[[TO]])
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[C]]] : memref<1x14x14x480xf32>
func.func @pool(%x: memref<1x14x14x480xf32>) -> memref<1x480xf32> {
  %y = memref.alloc() : memref<1x480xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c14 = arith.constant 14 : index
  %c480 = arith.constant 480 : index
  scf.parallel (%n) = (%c0) to (%c1) step (%c1) {
    scf.for %h = %c0 to %c14 step %c1 {
      scf.for %w = %c0 to %c14 step %c1 {
        scf.parallel (%c) = (%c0) to (%c480) step (%c1) {
          %v = memref.load %x[%n, %h, %w, %c] : memref<1x14x14x480xf32>
          %a = memref.load %y[%n, %c] : memref<1x480xf32>
          %s = arith.addf %a, %v : f32
          memref.store %s, %y[%n, %c] : memref<1x480xf32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return %y : memref<1x480xf32>
}

// -----

// The same nest where an iteration reads an output element another one
// writes (y[c + 1]): not independent across the h and w loops, so it is
// left as it was (one chunk: the outer loop's single iteration).
// CHECK-LABEL: func.func @shifted
// CHECK: call @shifted_par0_launch(%c1{{(_[0-9]+)?}},
// CHECK: func.func private @shifted_par0(
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c479
func.func @shifted(%x: memref<1x14x14x480xf32>) -> memref<1x480xf32> {
  %y = memref.alloc() : memref<1x480xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c14 = arith.constant 14 : index
  %c479 = arith.constant 479 : index
  scf.parallel (%n) = (%c0) to (%c1) step (%c1) {
    scf.for %h = %c0 to %c14 step %c1 {
      scf.for %w = %c0 to %c14 step %c1 {
        scf.parallel (%c) = (%c0) to (%c479) step (%c1) {
          %c2 = arith.addi %c, %c1 : index
          %v = memref.load %x[%n, %h, %w, %c] : memref<1x14x14x480xf32>
          %a = memref.load %y[%n, %c2] : memref<1x480xf32>
          %s = arith.addf %a, %v : f32
          memref.store %s, %y[%n, %c] : memref<1x480xf32>
          scf.reduce
        }
      }
    }
    scf.reduce
  }
  return %y : memref<1x480xf32>
}
