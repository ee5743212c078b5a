// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>

// relu on floats is maximumf (NaN stays NaN); dynamic dims size the init.
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x64xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x64xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<?x64xf32>) outs(%[[E]] : tensor<?x64xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[IN]], %[[Z]] : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK: return %[[R]]
func.func @relu(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = aten.relu %x : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// relu on integers is a signed max.
// CHECK-LABEL: func.func @relu_int
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.maxsi %[[IN]], %[[Z]] : i32
func.func @relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// gelu (approximate = none): 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[RS2:.*]] = arith.constant 0.707106769 : f32
// CHECK: %[[S:.*]] = arith.mulf %[[IN]], %[[RS2]] : f32
// CHECK: %[[ERF:.*]] = math.erf %[[S]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.*]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[H:.*]] = arith.mulf %[[IN]], %[[HALF]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.tanh
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// gelu (approximate = tanh): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[X2:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK: %[[X3:.*]] = arith.mulf %[[IN]], %[[X2]] : f32
// CHECK: %[[K:.*]] = arith.constant 4.471500e-02 : f32
// CHECK: %[[KX3:.*]] = arith.mulf %[[K]], %[[X3]] : f32
// CHECK: %[[POLY:.*]] = arith.addf %[[IN]], %[[KX3]] : f32
// CHECK: %[[C:.*]] = arith.constant 0.797884583 : f32
// CHECK: %[[A:.*]] = arith.mulf %[[C]], %[[POLY]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[A]] : f32
// CHECK: arith.addf %{{.*}}, %[[T]] : f32
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.gelu %x {approximate = "tanh"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Broadcasting binary ops: a [64] operand is read along the last dim, a 0-d
// operand everywhere; an integer operand is converted to the float result.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x64xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x64xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @binary_broadcast(%x: tensor<?x64xf32>, %b: tensor<64xf32>, %i: tensor<i64>) -> tensor<?x64xf32> {
  %0 = aten.add_tensor %x, %b {alpha = 2.0 : f64} : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %1 = aten.div_tensor %0, %i : (tensor<?x64xf32>, tensor<i64>) -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
