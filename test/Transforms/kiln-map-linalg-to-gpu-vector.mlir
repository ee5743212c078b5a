// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{vector-bytes=8}),canonicalize,cse)" | FileCheck %s --check-prefix=B8
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{vector-bytes=0}),canonicalize,cse)" | FileCheck %s --check-prefix=OFF

// Elementwise kernels with vectors: each thread owns `width` consecutive
// elements of the innermost loops, loading and storing them with one aligned
// vector.load/store per operand; where a pointer is misaligned at run time
// the thread takes the same elements one at a time.

// An erf GELU on bf16 (BERT's FFN): all three dims are contiguous in both
// operands, so the run is the whole 4x8x64 buffer (2048 elements), viewed as
// one dim; 8 bf16 (16 bytes) a thread, so 256 threads in one block and no
// bounds guard. The vector path runs the body once per element.
// CHECK-LABEL: func.func @gelu
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2]] : memref<4x8x64xbf16> into memref<2048xbf16>
// CHECK: %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0, 1, 2]] : memref<4x8x64xbf16> into memref<2048xbf16>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK-NOT: arith.cmpi ult
// CHECK: %[[FIRST:.*]] = arith.muli %[[T]], %[[C8]] : index
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[LA:.*]] = arith.andi %[[PA]], %[[C15]]
// CHECK: %[[OKA:.*]] = arith.cmpi eq, %[[LA]], %[[C0]]
// CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[LB:.*]] = arith.andi %[[PB]], %[[C15]]
// CHECK: %[[OKB:.*]] = arith.cmpi eq, %[[LB]], %[[C0]]
// CHECK: %[[OK:.*]] = arith.andi %[[OKA]], %[[OKB]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK:   %[[V:.*]] = vector.load %[[A]][%[[FIRST]]] {alignment = 16 : i64} : memref<2048xbf16>, vector<8xbf16>
// CHECK:   %[[X0:.*]] = vector.extract %[[V]][0] : bf16 from vector<8xbf16>
// CHECK:   arith.extf %[[X0]]
// CHECK:   %[[E0:.*]] = math.erf
// CHECK:   %[[Y0:.*]] = arith.truncf
// CHECK:   vector.extract %[[V]][1]
// CHECK-COUNT-7: math.erf
// CHECK:   %[[Y:.*]] = vector.from_elements %[[Y0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<8xbf16>
// CHECK:   vector.store %[[Y]], %[[B]][%[[FIRST]]] {alignment = 16 : i64} : memref<2048xbf16>, vector<8xbf16>
// CHECK: } else {
// CHECK:   scf.for %[[U:.*]] = %[[C0]] to %[[C8]] step %c1 {
// CHECK:     %[[R:.*]] = arith.addi %[[FIRST]], %[[U]] : index
// CHECK:     memref.load %[[A]][%[[R]]] : memref<2048xbf16>
// CHECK:     math.erf
// CHECK:     memref.store %{{.*}}, %[[B]][%[[R]]] : memref<2048xbf16>
// With vector-bytes=8: 4 bf16 a thread, 8-byte aligned.
// B8-LABEL: func.func @gelu
// B8: vector.load {{.*}} {alignment = 8 : i64} : memref<2048xbf16>, vector<4xbf16>
// B8: vector.store {{.*}} {alignment = 8 : i64} : memref<2048xbf16>, vector<4xbf16>
// Off: one element a thread, as before.
// OFF-LABEL: func.func @gelu
// OFF-NOT: vector.
// OFF: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x8x64xbf16>
// OFF-NOT: vector.
// OFF-LABEL: func.func @batchnorm
func.func @gelu(%a: memref<4x8x64xbf16>, %b: memref<4x8x64xbf16>) {
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<4x8x64xbf16>) outs(%b : memref<4x8x64xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %e = arith.extf %x : bf16 to f32
    %m = arith.mulf %e, %half : f32
    %r = math.erf %m : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// Batch norm in NCHW after a convolution: the per-channel scale depends on
// d1, so the run is (h, w), 36 elements, viewed as one dim; 36 is not a
// multiple of 8, so 4 bf16 (8 bytes) a thread; the scale is one scalar load
// per thread, shared by its 4 elements. 2 * 4 * 9 = 72 threads.
// CHECK-LABEL: func.func @batchnorm
// CHECK-DAG: %[[C72:.*]] = arith.constant 72 : index
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x4x6x6xbf16> into memref<2x4x36xbf16>
// CHECK: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<2x4x6x6xbf16> into memref<2x4x36xbf16>
// CHECK: gpu.launch blocks({{.*}}) threads(%[[I:.*]], %{{.*}}, %{{.*}}) in
// CHECK: arith.cmpi ult, %[[I]], %[[C72]]
// CHECK: %[[Q:.*]] = arith.remsi %[[I]], %[[C9]] : index
// CHECK: %[[NC:.*]] = arith.divsi %[[I]], %[[C9]] : index
// CHECK: %[[CH:.*]] = arith.remsi %[[NC]], %[[C4]] : index
// CHECK: %[[N:.*]] = arith.divsi %[[NC]], %[[C4]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[Q]], %[[C4]] : index
// CHECK: %[[S:.*]] = memref.load %arg1[%[[CH]]] : memref<4xf32>
// CHECK: scf.if
// CHECK:   %[[V:.*]] = vector.load %[[X]][%[[N]], %[[CH]], %[[FIRST]]] {alignment = 8 : i64} : memref<2x4x36xbf16>, vector<4xbf16>
// CHECK:   vector.extract %[[V]][0]
// CHECK:   arith.mulf %{{.*}}, %[[S]] : f32
// CHECK:   vector.store %{{.*}}, %[[Y]][%[[N]], %[[CH]], %[[FIRST]]] {alignment = 8 : i64} : memref<2x4x36xbf16>, vector<4xbf16>
func.func @batchnorm(%a: memref<2x4x6x6xbf16>, %s: memref<4xf32>, %b: memref<2x4x6x6xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a, %s : memref<2x4x6x6xbf16>, memref<4xf32>) outs(%b : memref<2x4x6x6xbf16>) {
  ^bb0(%x: bf16, %w: f32, %o: bf16):
    %e = arith.extf %x : bf16 to f32
    %m = arith.mulf %e, %w : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// Channels-last (a bias along the innermost dim, read as a vector too) with
// a float32 input and a bf16 output: the bias depends on the innermost loop
// only, so the run is that loop (16); the narrowest element (bf16) sets 8 a
// thread; the float32 vectors are 32 bytes, claimed 16-byte aligned. The
// output is read too (the body adds to it).
// CHECK-LABEL: func.func @bias_nhwc
// CHECK-NOT: memref.collapse_shape
// CHECK: gpu.launch blocks({{.*}}) threads(%[[I:.*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[Q:.*]] = arith.remsi %[[I]], %c2
// CHECK: %[[NH:.*]] = arith.divsi %[[I]], %c2
// CHECK: %[[H:.*]] = arith.remsi %[[NH]], %c3
// CHECK: %[[N:.*]] = arith.divsi %[[NH]], %c3
// CHECK: %[[FIRST:.*]] = arith.muli %[[Q]], %c8
// CHECK: scf.if
// CHECK:   vector.load %arg0[%[[N]], %[[H]], %[[FIRST]]] {alignment = 16 : i64} : memref<2x3x16xf32>, vector<8xf32>
// CHECK:   vector.load %arg1[%[[FIRST]]] {alignment = 16 : i64} : memref<16xbf16>, vector<8xbf16>
// CHECK:   vector.load %arg2[%[[N]], %[[H]], %[[FIRST]]] {alignment = 16 : i64} : memref<2x3x16xbf16>, vector<8xbf16>
// CHECK:   vector.store %{{.*}}, %arg2[%[[N]], %[[H]], %[[FIRST]]] {alignment = 16 : i64} : memref<2x3x16xbf16>, vector<8xbf16>
func.func @bias_nhwc(%a: memref<2x3x16xf32>, %bias: memref<16xbf16>, %b: memref<2x3x16xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %bias : memref<2x3x16xf32>, memref<16xbf16>) outs(%b : memref<2x3x16xbf16>) {
  ^bb0(%x: f32, %w: bf16, %o: bf16):
    %e = arith.extf %w : bf16 to f32
    %m = arith.addf %x, %e : f32
    %t = arith.truncf %m : f32 to bf16
    %s = arith.addf %t, %o : bf16
    linalg.yield %s : bf16
  }
  return
}

// A view with a dynamic row stride and offset: vectorised, and the kernel
// also checks that the offset and the row stride keep each vector of 4
// float32 16-byte aligned.
// CHECK-LABEL: func.func @dynamic_view
// CHECK: %{{.*}}, %[[OFS:.*]], %{{.*}}:2, %[[STR:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[OB:.*]] = arith.muli %[[OFS]], %c4
// CHECK: %[[START:.*]] = arith.addi %[[P]], %[[OB]]
// CHECK: arith.andi %[[START]], %c15
// CHECK: %[[SB:.*]] = arith.muli %[[STR]]#0, %c4
// CHECK: arith.andi %[[SB]], %c15
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<4x64xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
func.func @dynamic_view(%a: memref<4x64xf32, strided<[?, 1], offset: ?>>, %b: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x64xf32, strided<[?, 1], offset: ?>>) outs(%b : memref<4x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// A row value broadcast along the innermost dim (a per-row scale): it does not
// use the run, so it is one scalar load per thread; linalg.index of the
// innermost loop gives each element its own index. The output is not read.
// CHECK-LABEL: func.func @row_broadcast_index
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c4
// CHECK: memref.load %arg0[%{{.*}}] : memref<4xf32>
// CHECK: scf.if
// CHECK-NOT: vector.load
// CHECK: arith.index_cast %[[FIRST]]
// CHECK: %[[R1:.*]] = arith.addi %[[FIRST]], %c1
// CHECK: arith.index_cast %[[R1]]
// CHECK: vector.store %{{.*}}, %arg1[%{{.*}}, %[[FIRST]]] {alignment = 16 : i64} : memref<4x32xf32>, vector<4xf32>
func.func @row_broadcast_index(%s: memref<4xf32>, %b: memref<4x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4xf32>) outs(%b : memref<4x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %m = arith.mulf %x, %jf : f32
    linalg.yield %m : f32
  }
  return
}

// Refused (one element a thread, as with vector-bytes=0): a dynamic
// innermost size; a run length no width divides (3x7); an innermost stride
// other than 1; an operand that reads the innermost loop transposed; a
// misaligned static offset; i1 elements along the innermost dim.
// CHECK-LABEL: func.func @dynamic_inner
// CHECK-NOT: vector.
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<4x?xf32>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @odd_sizes
// CHECK-NOT: vector.
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<3x7xbf16>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @strided_inner
// CHECK-NOT: vector.
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<4x8xf32, strided<[16, 2]>>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: vector.
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<8x8xf32>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @misaligned_offset
// CHECK-NOT: vector.
// CHECK: memref.load %arg0[%{{.*}}] : memref<64xbf16, strided<[1], offset: 3>>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @bool_inner
// CHECK-NOT: vector.
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<4x16xi1>
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @end
func.func @dynamic_inner(%a: memref<4x?xf32>, %b: memref<4x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x?xf32>) outs(%b : memref<4x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}
func.func @odd_sizes(%a: memref<3x7xbf16>, %b: memref<3x7xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<3x7xbf16>) outs(%b : memref<3x7xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  }
  return
}
func.func @strided_inner(%a: memref<4x8xf32, strided<[16, 2]>>, %b: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32, strided<[16, 2]>>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}
func.func @transposed(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}
func.func @misaligned_offset(%a: memref<64xbf16, strided<[1], offset: 3>>, %b: memref<64xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<64xbf16, strided<[1], offset: 3>>) outs(%b : memref<64xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  }
  return
}
func.func @bool_inner(%a: memref<4x16xf32>, %b: memref<4x16xi1>) {
  %z = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x16xf32>) outs(%b : memref<4x16xi1>) {
  ^bb0(%x: f32, %o: i1):
    %c = arith.cmpf ogt, %x, %z : f32
    linalg.yield %c : i1
  }
  return
}
func.func @end() {
  return
}
