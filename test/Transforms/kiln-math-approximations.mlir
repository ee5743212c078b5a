// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-math-approximations{ops=exp,erf,tanh}))" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-math-approximations{ops=erf}))" | FileCheck %s --check-prefix=ERF
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-math-approximations))" | FileCheck %s --check-prefix=NONE

// Float32 exp, erf and tanh named in `ops` become inline arithmetic (no math
// op, hence no libm call, left for them); ops not named, and other element
// types, stay for the libm lowering.

// CHECK-LABEL: func.func @gelu_softmax_silu(
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp {{.*}} : f32
// CHECK: math.log %{{.*}} : f32
// CHECK-NOT: math.exp {{.*}} : f32
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: math.erf
// CHECK: return
// ERF-LABEL: func.func @gelu_softmax_silu(
// ERF-NOT: math.erf
// ERF-DAG: math.exp %{{.*}} : f32
// ERF-DAG: math.tanh %{{.*}} : f32
// ERF: return
// NONE-LABEL: func.func @gelu_softmax_silu(
// NONE-NEXT: math.erf
// NONE-NEXT: math.exp
// NONE-NEXT: math.tanh
func.func @gelu_softmax_silu(%x: f32, %d: f64) -> (f32, f32, f32, f32, f64) {
  %e = math.erf %x : f32
  %x2 = math.exp %x : f32
  %t = math.tanh %x : f32
  %l = math.log %x : f32
  %d2 = math.exp %d : f64
  return %e, %x2, %t, %l, %d2 : f32, f32, f32, f32, f64
}

// Vectors of float32 too: the arithmetic keeps the vector type.
// CHECK-LABEL: func.func @vector(
// CHECK-NOT: math.exp
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK-NOT: math.exp
// CHECK: return
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// Half precision keeps its math op (no f32 expansion is added).
// CHECK-LABEL: func.func @half(
// CHECK: math.exp %{{.*}} : f16
func.func @half(%x: f16) -> f16 {
  %y = math.exp %x : f16
  return %y : f16
}
