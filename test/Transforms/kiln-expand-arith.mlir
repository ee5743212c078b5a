// RUN: kiln-opt %s --kiln-expand-arith | FileCheck %s

// Float and integer max/min stay ops (LLVM's intrinsics: vmaxps and blends on
// x86, no select on a loaded accumulator for the vectoriser to turn into
// masked stores).
// CHECK-LABEL: func.func @max_min_kept
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.maxnumf
// CHECK: arith.maxsi
// CHECK-NOT: arith.cmpf
// CHECK: return
func.func @max_min_kept(%a: f32, %b: f32, %i: i32, %j: i32) -> (f32, f32, f32, i32) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.minimumf %a, %b : f32
  %2 = arith.maxnumf %a, %b : f32
  %3 = arith.maxsi %i, %j : i32
  return %0, %1, %2, %3 : f32, f32, f32, i32
}

// A pooling accumulation in memory keeps its maximumf.
// CHECK-LABEL: func.func @pool_step
// CHECK: %[[M:.*]] = arith.maximumf
// CHECK: memref.store %[[M]]
func.func @pool_step(%p: memref<8xf32>, %x: f32, %k: index) {
  %acc = memref.load %p[%k] : memref<8xf32>
  %m = arith.maximumf %acc, %x : f32
  memref.store %m, %p[%k] : memref<8xf32>
  return
}

// Ceil/floor divisions have no LLVM lowering: expanded.
// CHECK-LABEL: func.func @divisions
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.floordivsi
// CHECK: arith.divsi
// CHECK: return
func.func @divisions(%x: i64, %y: i64) -> (i64, i64) {
  %0 = arith.ceildivsi %x, %y : i64
  %1 = arith.floordivsi %x, %y : i64
  return %0, %1 : i64, i64
}

// bfloat16 conversions become integer code (no __truncsfbf2 call).
// CHECK-LABEL: func.func @bf16
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast
// CHECK: return
func.func @bf16(%x: f32) -> f32 {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.extf %0 : bf16 to f32
  return %1 : f32
}
