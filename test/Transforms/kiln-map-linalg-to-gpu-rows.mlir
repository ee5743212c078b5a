// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{vector-bytes=0}),canonicalize)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s --check-prefix=VEC
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{fuse-rows=false}),canonicalize)" | FileCheck %s --check-prefix=OFF

#row = affine_map<(i, k) -> (i)>
#elt = affine_map<(i, k) -> (i, k)>
#r1 = affine_map<(i) -> (i)>

// A softmax over rows of 768 (max, exp of the difference, sum, divide) runs as
// one kernel: one 32-lane subgroup per row, 8 rows a block. The row maximum
// and the row sum stay in registers: the later ops read the shuffled totals,
// never the buffers, and the scratch buffers only the group uses are never
// stored.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[LANE:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8, %{{.*}} = %c1)
// A row of 768 is 24 steps of 32 lanes: lane + 32 * step, a static trip
// count, taken 8 steps at a time with the 8 loads first.
// CHECK: %[[PMAX:.*]] = scf.for %[[J:.*]] = %c0 to %c24 step %c8 iter_args(%{{.*}} = %[[NEG]]) -> (f32)
// CHECK: %[[J32:.*]] = arith.muli %[[J]], %c32
// CHECK: %[[E:.*]] = arith.addi %[[J32]], %[[LANE]]
// CHECK: memref.load %arg0[%{{.*}}, %[[E]]]
// CHECK-COUNT-7: memref.load %arg0
// CHECK-COUNT-8: arith.maximumf
// CHECK: scf.yield
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK: %[[LAST:.*]], %{{.*}} = gpu.shuffle xor
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %[[LAST]]
// CHECK: scf.for %[[J2:.*]] = %c0 to %c24 step %c8 {
// CHECK: %[[J232:.*]] = arith.muli %[[J2]], %c32
// CHECK: %[[K:.*]] = arith.addi %[[J232]], %[[LANE]]
// CHECK: %[[X:.*]] = memref.load %arg0[%{{.*}}, %[[K]]]
// CHECK-COUNT-7: memref.load %arg0
// CHECK: arith.subf %[[X]], %[[MAX]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %[[K]]]
// CHECK: %[[PSUM:.*]] = scf.for %{{.*}} = %c0 to %c24 step %c8 iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: scf.for %{{.*}} = %c0 to %c24 step %c8 {
// CHECK: %[[K2:.*]] = arith.addi
// CHECK: memref.load %arg1[%{{.*}}, %[[K2]]]
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %[[K2]]]
// CHECK-NOT: gpu.launch
// CHECK: return
// Without fuse-rows each reduction is a launch with its fill as its initial
// value (the reduction's prologue), and each elementwise op its own launch.
// OFF-LABEL: func.func @softmax
// OFF-COUNT-4: gpu.launch blocks
// OFF-NOT: gpu.launch blocks
// OFF: return
func.func @softmax(%x: memref<128x768xf32>, %y: memref<128x768xf32>) {
  %neg = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : memref<128xf32>
  linalg.fill ins(%neg : f32) outs(%max : memref<128xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<128x768xf32>) outs(%max : memref<128xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %m, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#elt, #row, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<128x768xf32>, memref<128xf32>) outs(%y : memref<128x768xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  %sum = memref.alloc() : memref<128xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<128xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<128x768xf32>) outs(%sum : memref<128xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#row, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<128xf32>) outs(%y : memref<128x768xf32>) {
  ^bb0(%s: f32, %o: f32):
    %q = arith.divf %o, %s : f32
    linalg.yield %q : f32
  }
  memref.dealloc %max : memref<128xf32>
  memref.dealloc %sum : memref<128xf32>
  return
}

// A row value the caller gets back is stored once, its last value (the mean,
// not the sum or the fill's zero), by lane 0 only, after the ops; a weight
// read the same for every row is loaded at the element's index.
// CHECK-LABEL: func.func @mean_scaled
// CHECK: gpu.launch
// CHECK: %[[L0:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NOT: memref.store %{{.*}}, %arg2
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: %[[MEAN:.*]] = arith.divf
// CHECK-NOT: memref.store %{{.*}}, %arg2
// CHECK: memref.load %arg1[%{{.*}}] : memref<64xf32>
// CHECK: scf.if %[[L0]] {
// CHECK-NEXT: memref.store %[[MEAN]], %arg2[
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @mean_scaled(%x: memref<8x64xf32>, %w: memref<64xf32>, %mean: memref<8xf32>, %y: memref<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%mean : memref<8xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%mean : memref<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%mean : memref<8xf32>) outs(%mean : memref<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %c = arith.constant 64.0 : f32
    %m = arith.divf %s, %c : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#elt, #row, affine_map<(i, k) -> (k)>, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %w : memref<8x64xf32>, memref<8xf32>, memref<64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = arith.mulf %d, %s : f32
    linalg.yield %e : f32
  }
  return
}

// A reduction whose initial value is the caller's (no fill in the run) and
// whose result a later op of the run would overwrite in place is not fused:
// a lane could read another lane's newer value. Each op keeps its own launch.
// CHECK-LABEL: func.func @init_from_memory
// CHECK-COUNT-2: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: return
func.func @init_from_memory(%x: memref<8x64xf32>, %acc: memref<8xf32>) {
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
      ins(%acc : memref<8xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = math.sqrt %s : f32
    linalg.yield %m : f32
  }
  return
}

// Ops that read another row's data (a transposed read) or with a side effect
// between them (a call) end the run.
// CHECK-LABEL: func.func @not_rows
// CHECK-COUNT-3: gpu.launch blocks
// CHECK-NOT: gpu.launch blocks
// CHECK: return
func.func private @opaque(memref<64x64xf32>)
func.func @not_rows(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  call @opaque(%x) : (memref<64x64xf32>) -> ()
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (k, i)>, #row, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<64x64xf32>, memref<64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<64xf32>
  return
}

// A row length that is not a multiple of the subgroup (100) keeps the
// strided loop lane, lane + 32, ... below 100.
// CHECK-LABEL: func.func @uneven
// CHECK: gpu.launch {{.*}} threads(%[[LANE:[^,]*]],
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c100 step %c32 iter_args(
// CHECK-NOT: gpu.launch blocks
// CHECK: return
func.func @uneven(%x: memref<16x100xf32>, %y: memref<16x100xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x100xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#elt, #row, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<16x100xf32>, memref<16xf32>) outs(%y : memref<16x100xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<16xf32>
  return
}

// A buffer freed between two ops of the run (after its last use) is freed
// after the run's one kernel.
// CHECK-LABEL: func.func @freed_between
// CHECK: gpu.launch blocks
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[T:.*]] : memref<16x64xf32>
// CHECK-NOT: gpu.launch blocks
// CHECK: return
func.func @freed_between(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<16x64xf32>
  linalg.generic {indexing_maps = [#elt, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x64xf32>) outs(%t : memref<16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  %sum = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<16x64xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<16x64xf32>
  linalg.generic {indexing_maps = [#elt, #row, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : memref<16x64xf32>, memref<16xf32>) outs(%y : memref<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.divf %a, %s : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<16xf32>
  return
}

// With vectors (the default; the checks above use vector-bytes=0 for one
// element a lane): a bf16 residual add, a row sum and a scaled normalize
// over rows of 768. Every buffer the group reads or writes along the row
// holds it as its last dim with unit stride, so each lane owns vectors of 8
// bf16 (16 bytes): vector lane, lane + 32, lane + 64 (768 = 3 x 32 x 8), all
// three loaded at once. The base pointers are checked in the kernel; if one
// is misaligned, the group runs with one element a lane instead (the same
// code as with vector-bytes=0), so every lane of the launch takes the same
// branch and reaches the shuffles. The row sum stays in registers; lane 0
// stores it.
// VEC-LABEL: func.func @layernorm_bf16
// VEC: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, {{.*}}) threads(%[[LANE:.*]], %[[R:.*]], %{{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c8,
// VEC: %[[ROW:.*]] = arith.addi %{{.*}}, %[[R]] : index
// VEC: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// VEC: memref.extract_aligned_pointer_as_index %arg0
// VEC: memref.extract_aligned_pointer_as_index %arg1
// VEC: memref.extract_aligned_pointer_as_index %arg3
// VEC: memref.extract_aligned_pointer_as_index %arg2
// VEC: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg5
// VEC: %[[LOW:.*]] = arith.andi %[[P]], %c15
// VEC: %[[OK5:.*]] = arith.cmpi eq, %[[LOW]], %c0
// VEC: %[[OK:.*]] = arith.andi %{{.*}}, %[[OK5]] : i1
// VEC: scf.if %[[OK]] {
// VEC:   %[[V0:.*]] = arith.muli %[[LANE]], %c8 : index
// VEC:   vector.load %arg0[%[[ROW]], %[[V0]]] {alignment = 16 : i64} : memref<16x768xbf16>, vector<8xbf16>
// VEC:   vector.load %arg1[%[[ROW]], %[[V0]]] {alignment = 16 : i64} : memref<16x768xbf16>, vector<8xbf16>
// VEC:   %[[L1:.*]] = arith.addi %[[LANE]], %c32 : index
// VEC:   %[[V1:.*]] = arith.muli %[[L1]], %c8 : index
// VEC:   vector.load %arg0[%[[ROW]], %[[V1]]]
// VEC:   %[[L2:.*]] = arith.addi %[[LANE]], %c64 : index
// VEC:   %[[V2:.*]] = arith.muli %[[L2]], %c8 : index
// VEC:   vector.load %arg0[%[[ROW]], %[[V2]]]
// VEC:   vector.store %{{.*}}, %arg3[%[[ROW]], %[[V0]]] {alignment = 16 : i64} : memref<16x768xbf16>, vector<8xbf16>
// VEC:   vector.store %{{.*}}, %arg3[%[[ROW]], %[[V1]]]
// VEC:   vector.store %{{.*}}, %arg3[%[[ROW]], %[[V2]]]
// VEC:   vector.load %arg3[%[[ROW]], %[[V0]]]
// VEC-COUNT-5: gpu.shuffle xor
// VEC:   vector.load %arg2[%[[V0]]] {alignment = 16 : i64} : memref<768xbf16>, vector<8xbf16>
// VEC:   vector.store %{{.*}}, %arg5[%[[ROW]], %[[V2]]] {alignment = 16 : i64} : memref<16x768xbf16>, vector<8xbf16>
// VEC:   scf.if %[[LANE0]] {
// VEC:     memref.store %{{.*}}, %arg4[%[[ROW]]] : memref<16xf32>
// VEC: } else {
// VEC-NOT: vector.load
// VEC:   scf.for %{{.*}} = %c0 to %c24 step %c8 {
// VEC:     memref.load %arg0[%[[ROW]], %{{.*}}] : memref<16x768xbf16>
// VEC-COUNT-5: gpu.shuffle xor
// VEC:   scf.if %[[LANE0]] {
// VEC:     memref.store %{{.*}}, %arg4[%[[ROW]]] : memref<16xf32>
// VEC: gpu.terminator
func.func @layernorm_bf16(%x: memref<16x768xbf16>, %r: memref<16x768xbf16>, %g: memref<768xbf16>,
                          %s: memref<16x768xbf16>, %sum: memref<16xf32>, %y: memref<16x768xbf16>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  linalg.generic {indexing_maps = [#elt, #elt, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : memref<16x768xbf16>, memref<16x768xbf16>) outs(%s : memref<16x768xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %t = arith.addf %a, %b : bf16
    linalg.yield %t : bf16
  }
  linalg.fill ins(%z : f32) outs(%sum : memref<16xf32>)
  linalg.generic {indexing_maps = [#elt, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<16x768xbf16>) outs(%sum : memref<16xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %t = arith.addf %e, %acc : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#elt, #row, affine_map<(i, k) -> (k)>, #elt], iterator_types = ["parallel", "parallel"]}
      ins(%s, %sum, %g : memref<16x768xbf16>, memref<16xf32>, memref<768xbf16>) outs(%y : memref<16x768xbf16>) {
  ^bb0(%a: bf16, %m: f32, %gg: bf16, %o: bf16):
    %e = arith.extf %a : bf16 to f32
    %mean = arith.divf %m, %n : f32
    %d = arith.subf %e, %mean : f32
    %ge = arith.extf %gg : bf16 to f32
    %p = arith.mulf %d, %ge : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

