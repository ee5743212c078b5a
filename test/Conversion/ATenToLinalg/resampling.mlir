// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// Nearest: one read per output element at floor(o * s) in float32 (s = in/out
// without scales), with ATen's same-size and double-size shortcuts.
// CHECK-LABEL: func.func @nearest
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<1x2x6x8xf32>)
// CHECK: arith.divf {{.*}} : f32
// CHECK: arith.mulf {{.*}} : f32
// CHECK: math.floor
// CHECK: arith.minsi
// CHECK: arith.divui
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x2x3x4xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @nearest(%x: tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32> {
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 6, 8>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// A given scale is used as 1/scale (here 1/1.5) rather than in/out; a dynamic
// output dim is floor(in * scale).
// CHECK-LABEL: func.func @nearest_scales_dynamic
// CHECK: arith.mulf {{.*}} : f64
// CHECK: math.floor {{.*}} : f64
// CHECK: tensor.empty(%{{.*}}) : tensor<1x2x?xui8>
// CHECK: arith.constant 0.666666686 : f32
func.func @nearest_scales_dynamic(%x: tensor<1x2x?xui8>) -> tensor<1x2x?xui8> {
  %0 = aten.upsample_nearest1d %x {scales = array<f64: 1.5>} : (tensor<1x2x?xui8>) -> tensor<1x2x?xui8>
  return %0 : tensor<1x2x?xui8>
}

// Bilinear, half-pixel source (o + 0.5) * s - 0.5 clamped at 0, two taps per
// dim and four reads combined row by row.
// CHECK-LABEL: func.func @bilinear
// CHECK: arith.addf
// CHECK: arith.subf
// CHECK: arith.maximumf
// CHECK: math.floor
// CHECK: arith.minimumf
// CHECK-COUNT-4: tensor.extract
// CHECK: linalg.yield {{.*}} : f32
func.func @bilinear(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  %0 = aten.upsample_bilinear2d %x {scales = array<f64: 2.0, 2.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// align_corners: source o * (in - 1) / (out - 1); float16 weights are rounded
// to float16 as ATen stores them, the sum is in float32.
// CHECK-LABEL: func.func @bilinear_align_f16
// CHECK: arith.cmpi sgt
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: linalg.yield {{.*}} : f16
func.func @bilinear_align_f16(%x: tensor<1x1x3x3xf16>) -> tensor<1x1x5x5xf16> {
  %0 = aten.upsample_bilinear2d %x {output_size = array<i64: 5, 5>, align_corners = true} : (tensor<1x1x3x3xf16>) -> tensor<1x1x5x5xf16>
  return %0 : tensor<1x1x5x5xf16>
}

// Bicubic: four clamped taps per dim, sixteen reads.
// CHECK-LABEL: func.func @bicubic
// CHECK-COUNT-16: tensor.extract
func.func @bicubic(%x: tensor<1x1x4x4xf64>) -> tensor<1x1x6x6xf64> {
  %0 = aten.upsample_bicubic2d %x {output_size = array<i64: 6, 6>} : (tensor<1x1x4x4xf64>) -> tensor<1x1x6x6xf64>
  return %0 : tensor<1x1x6x6xf64>
}

// Nearest-exact: floor((o + 0.5) * s), the product in float64 rounded to float32.
// CHECK-LABEL: func.func @nearest_exact
// CHECK: arith.extf {{.*}} : f32 to f64
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: math.floor {{.*}} : f32
func.func @nearest_exact(%x: tensor<1x1x5x5x5xf32>) -> tensor<1x1x3x3x3xf32> {
  %0 = aten._upsample_nearest_exact3d %x {output_size = array<i64: 3, 3, 3>} : (tensor<1x1x5x5x5xf32>) -> tensor<1x1x3x3x3xf32>
  return %0 : tensor<1x1x3x3x3xf32>
}

// Antialiased bicubic, 16x12 down to 7x5: the width first, then the height.
// Per dim a [out, in] matrix of the window taps (ATen's centre s * (o + 0.5)
// in float32, the bounds truncated from float64, Keys' cubic with A = -0.5:
// 1.5 |x|^3 - 2.5 |x|^2 + 1 near), each row divided by its nonzero sum, then a
// contraction along the dim that skips zero weights.
// CHECK-LABEL: func.func @bicubic_aa
// CHECK: %[[WW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<5x12xf32>)
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: arith.fptosi {{.*}} : f64 to i64
// CHECK: math.absf
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[WW]] : tensor<5x12xf32>)
// CHECK: %[[NW:.*]] = linalg.generic {{.*}} ins(%[[WW]], %[[SUM]] : tensor<5x12xf32>, tensor<5xf32>)
// CHECK: arith.divf
// CHECK: %[[W:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[NW]] : tensor<2x3x16x12xf32>, tensor<5x12xf32>) outs(%{{.*}} : tensor<2x3x16x5xf32>)
// CHECK: arith.select
// CHECK: outs(%{{.*}} : tensor<7x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[W]], %{{.*}} : tensor<2x3x16x5xf32>, tensor<7x16xf32>) outs(%{{.*}} : tensor<2x3x7x5xf32>)
func.func @bicubic_aa(%x: tensor<2x3x16x12xf32>) -> tensor<2x3x7x5xf32> {
  %0 = aten._upsample_bicubic2d_aa %x {output_size = array<i64: 7, 5>} : (tensor<2x3x16x12xf32>) -> tensor<2x3x7x5xf32>
  return %0 : tensor<2x3x7x5xf32>
}

// Antialiased bilinear with the height kept: only the width pass; the
// triangle filter 1 - |x|; a float64 input computes in float64.
// CHECK-LABEL: func.func @bilinear_aa_width_only
// CHECK: outs(%{{.*}} : tensor<3x6xf64>)
// CHECK: arith.subf {{.*}} : f64
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<1x2x4x6xf64>, tensor<3x6xf64>) outs(%{{.*}} : tensor<1x2x4x3xf64>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @bilinear_aa_width_only(%x: tensor<1x2x4x6xf64>) -> tensor<1x2x4x3xf64> {
  %0 = aten._upsample_bilinear2d_aa %x {output_size = array<i64: 4, 3>} : (tensor<1x2x4x6xf64>) -> tensor<1x2x4x3xf64>
  return %0 : tensor<1x2x4x3xf64>
}

// A symbolic height: its matrix is [out, in] with in read at run time and
// is the identity when the sizes agree.
// CHECK-LABEL: func.func @bicubic_aa_dynamic
// CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<1x1x?x8xf32>
// CHECK: arith.cmpi eq
// CHECK: tensor.empty(%{{.*}}) : tensor<4x?xf32>
func.func @bicubic_aa_dynamic(%x: tensor<1x1x?x8xf32>) -> tensor<1x1x4x8xf32> {
  %0 = aten._upsample_bicubic2d_aa %x {output_size = array<i64: 4, 8>, align_corners = true} : (tensor<1x1x?x8xf32>) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}
