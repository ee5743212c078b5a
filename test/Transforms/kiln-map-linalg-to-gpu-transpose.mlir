// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" -split-input-file | FileCheck %s

// An NHWC map copied to NCHW (a layout change before a concatenation): loops
// in the output's order (n, c, h, w), the input's innermost dim is c. One
// workgroup of 32x8 threads per 32x32 tile of (w, c) and per (n, h): 8 tiles
// along W fastest, 1 along C, then H and N (8 * 256 * 4 = 8192). Each thread
// reads 4 elements along C (threads x neighbouring) into the padded
// workgroup tile, a barrier, then writes 4 along W, read across the tile.
// CHECK-LABEL: func.func @nhwc_to_nchw
// CHECK-SAME: (%[[IN:.*]]: memref<4x256x256x32xf32>, %[[OUT:.*]]: memref<4x32x256x256xf32>)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C8192:.*]] = arith.constant 8192 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C8192]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[C8]], %{{.*}} = %{{.*}}) workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: memref.load %[[IN]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<4x256x256x32xf32>
// CHECK-NOT: memref.store %{{.*}}, %[[OUT]][
// CHECK: gpu.barrier
// CHECK-NOT: memref.load %[[IN]][
// CHECK: %[[V:.*]] = memref.load %[[TILE]][%[[TX]], %{{.*}}] : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %[[V]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<4x32x256x256xf32>
// CHECK-COUNT-3: memref.store %{{.*}}, %[[OUT]][
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
func.func @nhwc_to_nchw(%in: memref<4x256x256x32xf32>, %out: memref<4x32x256x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%in : memref<4x256x256x32xf32>) outs(%out : memref<4x32x256x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// A transposing op with a body and a second input read in the output's
// layout (a bf16 rounding of a transposed sum): the body runs in the write
// phase, on the tile's element and the other input's element loaded there.
// Sizes that are no multiple of 32 (40 x 50) get bounds checks.
// CHECK-LABEL: func.func @transpose_add
// CHECK-SAME: (%[[A:.*]]: memref<40x50xf32>, %[[B:.*]]: memref<50x40xf32>, %[[O:.*]]: memref<50x40xbf16>)
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.if
// CHECK: memref.load %[[A]][
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[T:.*]] = memref.load %[[TILE]]
// CHECK: %[[X:.*]] = memref.load %[[B]][
// CHECK: %[[S:.*]] = arith.addf %[[T]], %[[X]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: memref.store %[[R]], %[[O]][
func.func @transpose_add(%a: memref<40x50xf32>, %b: memref<50x40xf32>, %o: memref<50x40xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<40x50xf32>, memref<50x40xf32>) outs(%o : memref<50x40xbf16>) {
  ^bb0(%x: f32, %y: f32, %r: bf16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// Left as one thread per element: an image's 3 channels to NHWC (a tile side
// under 16), and a plain copy (no transpose).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: workgroup(
// CHECK: return
func.func @left_alone(%img: memref<8x3x224x224xf32>, %nhwc: memref<8x224x224x3xf32>, %x: memref<64x64xf32>,
                      %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, c, h, w)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%img : memref<8x3x224x224xf32>) outs(%nhwc : memref<8x224x224x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
