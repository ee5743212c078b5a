// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{vector-bytes=0}),canonicalize,cse)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s --check-prefix=VEC
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{block-size=128}),canonicalize)" | FileCheck %s --check-prefix=B128

// An elementwise op with one element a thread (vector-bytes=0; the vectors
// of the default are kiln-map-linalg-to-gpu-vector.mlir): its two parallel
// loops become one linear index over 400 elements, 256 threads a block,
// guarded by the element count, split back into (row, column) with the
// column fastest. By default the buffer is viewed as 400 contiguous
// elements and each of 100 threads takes 4 float32.
// VEC-LABEL: func.func @relu
// VEC: arith.cmpi ult, %{{.*}}, %c100
// VEC: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<400xf32>, vector<4xf32>
// CHECK-LABEL: func.func @relu
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[C400:.*]] = arith.constant 400 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: %[[BASE:.*]] = affine.apply #{{.*}}()[%[[BX]]]
// CHECK: %[[I:.*]] = arith.addi %[[TX]], %[[BASE]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[C400]] : index
// The body does not use the output's old value: it is not read.
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[COL:.*]] = arith.remsi %[[I]], %[[C100]] : index
// CHECK:   %[[ROW:.*]] = arith.divsi %[[I]], %[[C100]] : index
// CHECK-NOT: memref.load %arg1
// CHECK:   memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:   arith.maximumf
// CHECK:   memref.store %{{.*}}, %arg1[%[[ROW]], %[[COL]]]
// CHECK: gpu.terminator
// CHECK-NOT: SCFToGPU_visited
// B128-LABEL: func.func @relu
// B128: %[[C128:.*]] = arith.constant 128 : index
// B128: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C128]],
func.func @relu(%a: memref<4x100xf32>, %b: memref<4x100xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x100xf32>) outs(%b : memref<4x100xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  }
  return
}

// A reduction over a dynamic number of rows shorter than a subgroup (rows of
// at least 32 get a subgroup each: kiln-map-linalg-to-gpu-subgroup.mlir): one
// thread per row runs the reduction loop with the sum in a register (the output is read once and
// written once); the grid is the row count divided by 256, rounded up.
// CHECK-LABEL: func.func @rowsum
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[GRID:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[ROW]], %[[N]]
// CHECK: %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:   %[[NEW:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK:   scf.yield %[[NEW]]
// CHECK: memref.store %[[SUM]], %arg1[%[[ROW]]]
func.func @rowsum(%a: memref<?x16xf32>, %b: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x16xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A named matmul is generalized; each of the 8x32 outputs is a thread (one
// block of 256) running the k loop.
// CHECK-LABEL: func.func @matmul
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[N:.*]] = arith.remsi %[[T]], %c32
// CHECK: %[[M:.*]] = arith.divsi %[[T]], %c32
// CHECK: %[[C0:.*]] = memref.load %arg2[%[[M]], %[[N]]]
// CHECK: %[[C:.*]] = scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[C0]]) -> (f32) {
// CHECK:   memref.load %arg0[%[[M]], %[[K]]]
// CHECK:   memref.load %arg1[%[[K]], %[[N]]]
// CHECK:   arith.mulf
// CHECK:   arith.addf %[[ACC]]
// CHECK:   scf.yield
// CHECK-NOT: memref.store
// CHECK: }
// CHECK: memref.store %[[C]], %arg2[%[[M]], %[[N]]]
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// A reduction whose loop is first in the op's order (k, m): the parallel loop
// is moved out, so each thread owns one output column.
// CHECK-LABEL: func.func @colsum
// CHECK: gpu.launch
// CHECK: %[[COL:.*]] = arith.addi
// CHECK: scf.if
// CHECK: scf.for %[[K:.*]] = %c0 to %c7 step %c1 iter_args(
// CHECK:   memref.load %arg0[%[[K]], %[[COL]]]
func.func @colsum(%a: memref<7x300xf32>, %b: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<7x300xf32>) outs(%b : memref<300xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// No parallel loop: one subgroup runs the whole reduction (few-outputs;
// kiln-map-linalg-to-gpu-few-outputs.mlir): one block of 32 threads, each
// lane summing elements lane, lane + 32, ..., then the xor butterfly, and
// lane 0 adds the initial value and stores.
// CHECK-LABEL: func.func @total
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[LANE:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: memref.load %arg0[%[[LANE]]]
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: %[[INIT:.*]] = memref.load %arg1[]
// CHECK: %[[SUM:.*]] = arith.addf %[[INIT]]
// CHECK: memref.store %[[SUM]], %arg1[]
func.func @total(%a: memref<128xf32>, %b: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<128xf32>) outs(%b : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// linalg.index reads the thread's loop position (one block of 64 threads;
// by default each of 25 threads takes two i64, vector<2xi64>).
// VEC-LABEL: func.func @iota
// VEC: arith.cmpi ult, %{{.*}}, %c25
// VEC: vector.store %{{.*}}, %arg0[%{{.*}}] {alignment = 16 : i64} : memref<50xi64>, vector<2xi64>
// CHECK-LABEL: func.func @iota
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK: arith.cmpi ult, %[[T]], %c50
// CHECK: %[[V:.*]] = arith.index_cast %[[T]] : index to i64
// CHECK: memref.store %[[V]], %arg0[%[[T]]]
func.func @iota(%a: memref<50xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%a : memref<50xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i64
    linalg.yield %v : i64
  }
  return
}

// Small ops get whole warps, not 256 threads: 20 elements -> 32 threads.
// CHECK-LABEL: func.func @small
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}} threads({{.*}}) in (%{{.*}} = %c32,
func.func @small(%a: memref<20xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%a : memref<20xf32>)
  return
}

// A fused op whose first output is an elementwise value indexed by the
// reduction loop (kept for other users) and whose second is the row sum: the
// thread that owns a row stores the elementwise value at each step of its
// reduction loop and the sum once after it.
// CHECK-LABEL: func.func @fused_rowsum
// CHECK: gpu.launch
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: %[[INIT:.*]] = memref.load %arg2[%[[ROW]]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[K]]]
// CHECK:   %[[E:.*]] = math.exp %[[X]]
// CHECK:   %[[NEW:.*]] = arith.addf %[[E]], %[[ACC]]
// CHECK:   memref.store %[[E]], %arg1[%[[ROW]], %[[K]]]
// CHECK:   scf.yield %[[NEW]]
// CHECK: memref.store %[[SUM]], %arg2[%[[ROW]]]
func.func @fused_rowsum(%a: memref<?x64xf32>, %e: memref<?x64xf32>, %b: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x64xf32>) outs(%e, %b : memref<?x64xf32>, memref<?xf32>) {
  ^bb0(%x: f32, %old: f32, %acc: f32):
    %ex = math.exp %x : f32
    %s = arith.addf %ex, %acc : f32
    linalg.yield %ex, %s : f32, f32
  }
  return
}
