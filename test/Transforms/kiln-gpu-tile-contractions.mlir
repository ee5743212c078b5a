// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-gpu-tile-contractions),canonicalize,cse)" | FileCheck %s

// A matmul whose sizes are no multiple of the tile (127x33 times 33x65):
// 2x2 workgroups of 16x16 threads, a 64x16 tile of each input in workgroup
// memory (padded by one element against bank conflicts), two whole k steps
// and a last one of a single k.
// CHECK-LABEL: func.func @ragged
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1)
// CHECK-SAME: workgroup(%[[AT:.*]] : memref<64x17xf32, #gpu.address_space<workgroup>>, %[[BT:.*]] : memref<16x65xf32, #gpu.address_space<workgroup>>)
// The workgroup's tile: columns from the block id's low part, rows above.
// CHECK: %[[CT:.*]] = arith.remui %[[BX]], %c2
// CHECK: %[[REST:.*]] = arith.divui %[[BX]], %c2
// CHECK: %[[RT:.*]] = arith.remui %[[REST]], %c2
// CHECK: %[[ROW0:.*]] = arith.muli %[[RT]], %c64
// CHECK: %[[COL0:.*]] = arith.muli %[[CT]], %c64
// Each thread starts its 16 accumulators from the output, where it exists.
// CHECK: %[[R0:.*]] = arith.addi %[[ROW0]], %[[TY]]
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[R0]], %c127
// CHECK: %[[C0:.*]] = arith.addi %[[COL0]], %[[TX]]
// CHECK: %[[CIN:.*]] = arith.cmpi ult, %[[C0]], %c65
// CHECK: %[[IN:.*]] = arith.andi %[[RIN]], %[[CIN]]
// CHECK: %[[INIT:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   memref.load %arg2[%[[R0]], %[[C0]]]
// CHECK: } else {
// CHECK:   scf.yield %cst : f32
// CHECK: %[[ACC:.*]]:16 = scf.for %[[K0:.*]] = %c0 to %c32 step %c16 iter_args(%{{.*}} = %[[INIT]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// A's rows are k-contiguous: neighbouring threads load neighbouring k.
// CHECK:   %[[AK:.*]] = arith.remui %{{.*}}, %c16
// CHECK:   %[[AR:.*]] = arith.divui %{{.*}}, %c16
// CHECK:   memref.load %arg0[%{{.*}}, %{{.*}}] : memref<127x33xf32>
// CHECK:   memref.store %{{.*}}, %[[AT]][%[[AR]], %[[AK]]]
// CHECK:   memref.load %arg1[%{{.*}}, %{{.*}}] : memref<33x65xf32>
// CHECK:   memref.store %{{.*}}, %[[BT]][
// CHECK:   gpu.barrier
// CHECK:   scf.for %[[KK:.*]] = %c0 to %c16 step %c1 iter_args(
// CHECK-COUNT-4: memref.load %[[AT]][%{{.*}}, %[[KK]]]
// CHECK-COUNT-4: memref.load %[[BT]][%[[KK]], %{{.*}}]
// CHECK-COUNT-16: arith.addf
// CHECK:     scf.yield
// CHECK:   gpu.barrier
// CHECK:   scf.yield
// The last k step reads k = 32 only, bounds-checked.
// CHECK: arith.cmpi ult, %{{.*}}, %c33
// CHECK: gpu.barrier
// CHECK-COUNT-16: arith.addf
// CHECK-NOT: gpu.barrier
// CHECK: scf.if %[[IN]] {
// CHECK:   memref.store %{{.*}}, %arg2[%[[R0]], %[[C0]]]
// CHECK: gpu.terminator
func.func @ragged(%a: memref<127x33xf32>, %b: memref<33x65xf32>, %c: memref<127x65xf32>) {
  linalg.matmul ins(%a, %b : memref<127x33xf32>, memref<33x65xf32>) outs(%c : memref<127x65xf32>)
  return
}

// A batch matmul of dynamic sizes: one workgroup per tile and batch, the
// batch from the block id's high part; a dynamic k gets a loop over whole
// steps and a guarded last step.
// CHECK-LABEL: func.func @bmm
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[K:.*]] = memref.dim %arg0, %c2
// CHECK: %[[GRID:.*]] = arith.muli %{{.*}}, %[[B]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: %[[REST:.*]] = arith.divui %[[BX]], %{{.*}}
// CHECK: %[[BATCH:.*]] = arith.divui %[[REST]], %{{.*}}
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c16 iter_args(
// CHECK:   memref.load %arg0[%[[BATCH]], %{{.*}}, %{{.*}}] : memref<?x?x?xf32>
// CHECK:   memref.load %arg1[%[[BATCH]], %{{.*}}, %{{.*}}] : memref<?x?x?xf32>
// CHECK:   gpu.barrier
// CHECK: %[[PART:.*]] = arith.cmpi ult, %{{.*}}, %[[K]]
// CHECK: scf.if %[[PART]] -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:   gpu.barrier
// CHECK:   scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(
// CHECK: memref.store %{{.*}}, %arg2[%[[BATCH]], %{{.*}}, %{{.*}}]
func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

// x @ w^T in float16 accumulating in float32 (a linear layer; dynamic rows):
// the tiles hold float16, w's tile is loaded along k (its contiguous dim) and
// stored transposed, and the body's conversions run per multiply-add.
// CHECK-LABEL: func.func @linear_half
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[XT:.*]] : memref<64x17xf16, #gpu.address_space<workgroup>>, %[[WT:.*]] : memref<16x65xf16, #gpu.address_space<workgroup>>)
// CHECK: scf.for
// CHECK:   %[[WK:.*]] = arith.remui %{{.*}}, %c16
// CHECK:   %[[WN:.*]] = arith.divui %{{.*}}, %c16
// CHECK:   memref.load %arg1[%{{.*}}, %{{.*}}] : memref<32x64xf16>
// CHECK:   memref.store %{{.*}}, %[[WT]][%[[WK]], %[[WN]]]
// CHECK:   scf.for
// CHECK:     arith.extf %{{.*}} : f16 to f32
// CHECK:     arith.mulf
// CHECK:     arith.addf
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @linear_half(%x: memref<?x64xf16>, %w: memref<32x64xf16>, %y: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xf16>, memref<32x64xf16>) outs(%y : memref<?x32xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ae = arith.extf %a : f16 to f32
    %be = arith.extf %b : f16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The output transposed ((n, m) = (a b)^T): its inner dim comes from the
// second input, so that input's tile gives the rows; the body still gets
// its arguments in the op's order (a, then b), and linalg.index reads the
// element's k.
// CHECK-LABEL: func.func @transposed_out
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BT:.*]] : memref<64x17xi32, #gpu.address_space<workgroup>>, %[[AT:.*]] : memref<16x65xi32, #gpu.address_space<workgroup>>)
// CHECK:   scf.for %[[KK:.*]] = %c0 to %c16 step %c1 iter_args(
// CHECK:     %[[BV:.*]] = memref.load %[[BT]]
// CHECK:     %[[AV:.*]] = memref.load %[[AT]]
// CHECK:     %[[GK:.*]] = arith.addi %{{.*}}, %[[KK]]
// CHECK:     %[[P:.*]] = arith.muli %[[AV]], %[[BV]] : i32
// CHECK:     %[[KI:.*]] = arith.index_cast %[[GK]] : index to i32
// CHECK:     arith.muli %[[P]], %[[KI]]
func.func @transposed_out(%a: memref<40x48xi32>, %b: memref<48x20xi32>, %c: memref<20x40xi32>) {
  linalg.generic {indexing_maps = [#mk, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<40x48xi32>, memref<48x20xi32>) outs(%c : memref<20x40xi32>) {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %k = linalg.index 2 : index
    %ki = arith.index_cast %k : index to i32
    %q = arith.muli %p, %ki : i32
    %s = arith.addi %acc, %q : i32
    linalg.yield %s : i32
  }
  return
}

// Not contractions the tiled kernel serves: a matrix-vector product (no
// column loop), a reduction without a second input, an elementwise op.
// CHECK-LABEL: func.func @others
// CHECK-NOT: gpu.launch
// CHECK: linalg.matvec
// CHECK: linalg.generic
// CHECK: linalg.add
func.func @others(%a: memref<8x16xf32>, %x: memref<16xf32>, %y: memref<8xf32>, %s: memref<8xf32>) {
  linalg.matvec ins(%a, %x : memref<8x16xf32>, memref<16xf32>) outs(%y : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  linalg.add ins(%y, %s : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  return
}

// Neither are a convolution (its input maps are sums of loops), a product
// reduced over two loops (batch_reduce_matmul), a matrix-vector product as a
// generic (no loop that only the second input uses), nor a matmul still on
// tensors: each is left as it is.
// CHECK-LABEL: func.func @not_tiled
// CHECK-NOT: gpu.launch
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.batch_reduce_matmul
// CHECK: linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32>)
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @not_tiled(%in: memref<1x3x9x9xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x7x7xf32>,
                     %ba: memref<2x8x16xf32>, %bb: memref<2x16x8xf32>, %bc: memref<8x8xf32>,
                     %v: memref<8xf32>, %ta: tensor<4x8xf32>, %tb: tensor<8x4xf32>,
                     %tc: tensor<4x4xf32>) -> tensor<4x4xf32> {
  linalg.conv_2d_nchw_fchw ins(%in, %w : memref<1x3x9x9xf32>, memref<4x3x3x3xf32>)
      outs(%o : memref<1x4x7x7xf32>)
  linalg.batch_reduce_matmul ins(%ba, %bb : memref<2x8x16xf32>, memref<2x16x8xf32>)
      outs(%bc : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (k)>,
                                   affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%bc, %v : memref<8x8xf32>, memref<8xf32>) outs(%v : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %r = linalg.matmul ins(%ta, %tb : tensor<4x8xf32>, tensor<8x4xf32>) outs(%tc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
