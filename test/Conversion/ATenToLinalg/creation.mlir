// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// full is a fill; a symbolic size sizes the empty tensor. A uint8 value is
// filled through its signless storage (200 is -56 as i8).
// CHECK-LABEL: func.func @full_uint8
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<2x?xui8>
// CHECK: %[[C:.*]] = arith.constant -56 : i8
// CHECK: %[[V:.*]] = builtin.unrealized_conversion_cast %[[C]] : i8 to ui8
// CHECK: linalg.fill ins(%[[V]] : ui8) outs(%[[E]] : tensor<2x?xui8>)
func.func @full_uint8(%n: index) -> tensor<2x?xui8> {
  %0 = aten.full [2, %n], 200 : ui8 : tensor<2x?xui8>
  return %0 : tensor<2x?xui8>
}

// CHECK-LABEL: func.func @full_scalar
// CHECK: %[[E:.*]] = tensor.empty() : tensor<f16>
// CHECK: %[[C:.*]] = arith.constant 1.500000e+00 : f16
// CHECK: linalg.fill ins(%[[C]] : f16) outs(%[[E]] : tensor<f16>)
func.func @full_scalar() -> tensor<f16> {
  %0 = aten.full [], 1.5 : f16 : tensor<f16>
  return %0 : tensor<f16>
}

// arange with a symbolic end: ceil((end - start) / step) elements, each
// start + i * step computed in float64 for a float32 result.
// CHECK-LABEL: func.func @arange_dynamic
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[END:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[SPAN:.*]] = arith.subi %[[END]], %{{.*}} : i64
// CHECK: %[[LEN:.*]] = arith.ceildivsi %[[SPAN]], %{{.*}} : i64
// CHECK: %[[LENI:.*]] = arith.index_cast %[[LEN]] : i64 to index
// CHECK: %[[E:.*]] = tensor.empty(%[[LENI]]) : tensor<?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E]] : tensor<?xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[IF:.*]] = arith.sitofp %[[I64]] : i64 to f64
// CHECK: %[[M:.*]] = arith.mulf %{{.*}}, %[[IF]] : f64
// CHECK: %[[V:.*]] = arith.addf %{{.*}}, %[[M]] : f64
// CHECK: %[[R:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK: linalg.yield %[[R]] : f32
func.func @arange_dynamic(%n: index) -> tensor<?xf32> {
  %0 = aten.arange %n {start = 1 : i64, step = 2 : i64} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Integer results step in int64.
// CHECK-LABEL: func.func @arange_int
// CHECK: tensor.empty() : tensor<5xi64>
// CHECK: arith.muli
// CHECK: arith.addi
func.func @arange_int() -> tensor<5xi64> {
  %0 = aten.arange {start = 0 : i64, end = 10 : i64, step = 2 : i64} : tensor<5xi64>
  return %0 : tensor<5xi64>
}

// eye: one where the two indices agree.
// CHECK-LABEL: func.func @eye
// CHECK: linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[J:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[D:.*]] = arith.cmpi eq, %[[I]], %[[J]] : i64
// CHECK: arith.select %[[D]], %{{.*}}, %{{.*}} : f16
func.func @eye() -> tensor<3x4xf16> {
  %0 = aten.eye {n = 3 : i64, m = 4 : i64} : tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// linspace: the first half counts up from start, the second down from end.
// CHECK-LABEL: func.func @linspace
// CHECK: %[[UP:.*]] = arith.addf
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[DOWN:.*]] = arith.subf
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.select %[[FIRST]], %[[UP]], %[[DOWN]] : f32
func.func @linspace() -> tensor<4xf32> {
  %0 = aten.linspace {start = 0.0 : f64, end = 1.0 : f64, steps = 4 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
