// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// Reductions and products compute with signed arith: a uint8 operand is
// zero-extended to int16 first and a uint8 result truncated back, so max
// compares the unsigned values and products wrap modulo 256.

// CHECK-LABEL: func.func @amax_u8
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x5xui8>) outs(%{{.*}} : tensor<4x5xi16>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : ui8 to i8
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: %[[M:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<4x5xi16>) outs(%{{.*}} : tensor<4xi16>)
// CHECK: arith.maxsi %{{.*}} : i16
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4xi16>) outs(%{{.*}} : tensor<4xui8>)
// CHECK: arith.trunci %{{.*}} : i16 to i8
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : i8 to ui8
// CHECK: return %[[R]]
func.func @amax_u8(%x: tensor<4x5xui8>) -> tensor<4xui8> {
  %0 = aten.amax %x {dim = array<i64: 1>} : (tensor<4x5xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// An int64 result needs no narrowing.
// CHECK-LABEL: func.func @sum_u8
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK: arith.addi %{{.*}} : i64
// CHECK: return %[[S]]
func.func @sum_u8(%x: tensor<4x5xui8>) -> tensor<4xi64> {
  %0 = aten.sum_dim_intlist %x {dim = array<i64: -1>} : (tensor<4x5xui8>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// CHECK-LABEL: func.func @mm_u8
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x6xi16>, tensor<6x5xi16>) outs(%{{.*}} : tensor<4x5xi16>)
// CHECK: arith.muli %{{.*}} : i16
// CHECK: arith.addi %{{.*}} : i16
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x5xui8>)
// CHECK: arith.trunci %{{.*}} : i16 to i8
func.func @mm_u8(%a: tensor<4x6xui8>, %b: tensor<6x5xui8>) -> tensor<4x5xui8> {
  %0 = aten.mm %a, %b : (tensor<4x6xui8>, tensor<6x5xui8>) -> tensor<4x5xui8>
  return %0 : tensor<4x5xui8>
}

// addmm on integers scales the addend by beta with an integer multiply.
// CHECK-LABEL: func.func @addmm_i64_beta
// CHECK: %[[B:.*]] = arith.constant 2 : i64
// CHECK: arith.muli %{{.*}}, %[[B]] : i64
// CHECK-NOT: arith.mulf
func.func @addmm_i64_beta(%c: tensor<4x5xi64>, %a: tensor<4x6xi64>, %b: tensor<6x5xi64>) -> tensor<4x5xi64> {
  %0 = aten.addmm %c, %a, %b {beta = 2.0 : f64, alpha = 1.0 : f64} : (tensor<4x5xi64>, tensor<4x6xi64>, tensor<6x5xi64>) -> tensor<4x5xi64>
  return %0 : tensor<4x5xi64>
}

// nonzero tests a uint8 element through its storage.
// CHECK-LABEL: func.func @nonzero_u8
// CHECK: %[[E:.*]] = tensor.extract %arg0
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %[[E]] : ui8 to i8
// CHECK: arith.cmpi ne, %[[S]], %{{.*}} : i8
func.func @nonzero_u8(%x: tensor<6xui8>) -> tensor<?x1xi64> {
  %0 = aten.nonzero %x : (tensor<6xui8>) -> tensor<?x1xi64>
  return %0 : tensor<?x1xi64>
}
