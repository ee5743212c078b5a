// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the upsample ops (ATenResamplingOps.cpp).

func.func @rank(%x: tensor<2x4x4xf32>) {
  // expected-error @+1 {{'aten.upsample_nearest2d' op expects a 4-d (NCHW) input, got rank 3}}
  %0 = aten.upsample_nearest2d %x {output_size = array<i64: 8, 8>} : (tensor<2x4x4xf32>) -> tensor<2x8x8xf32>
  return
}

// -----

func.func @dtype(%x: tensor<1x2x4xi32>) {
  // expected-error @+1 {{'aten.upsample_linear1d' op expects a float or uint8 input, got 'i32'}}
  %0 = aten.upsample_linear1d %x {output_size = array<i64: 8>} : (tensor<1x2x4xi32>) -> tensor<1x2x8xi32>
  return
}

// -----

func.func @no_size(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'aten.upsample_bilinear2d' op expects output_size or scales}}
  %0 = aten.upsample_bilinear2d %x : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @size_entries(%x: tensor<1x2x4x4x4xf32>) {
  // expected-error @+1 {{'aten.upsample_trilinear3d' op expects 'output_size' to have 3 entries, got 2}}
  %0 = aten.upsample_trilinear3d %x {output_size = array<i64: 8, 8>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x8x8x8xf32>
  return
}

// -----

func.func @scales_entries(%x: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'aten.upsample_bicubic2d' op expects 'scales' to have 2 entries, got 1}}
  %0 = aten.upsample_bicubic2d %x {scales = array<f64: 2.0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @scales_positive(%x: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'aten._upsample_nearest_exact1d' op expects positive scales when output_size is absent, got 0}}
  %0 = aten._upsample_nearest_exact1d %x {scales = array<f64: 0.0>} : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @shape(%x: tensor<1x2x5x5xf32>) {
  // floor(5 * 1.5) = 7
  // expected-error @+1 {{'aten.upsample_nearest2d' op result shape [1, 2, 8, 8] does not match the inferred shape [1, 2, 7, 7]}}
  %0 = aten.upsample_nearest2d %x {scales = array<f64: 1.5, 1.5>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x8x8xf32>
  return
}

// -----

func.func @antialias_uint8(%x: tensor<1x2x8x8xui8>) {
  // expected-error @+1 {{'aten._upsample_bilinear2d_aa' op expects a float input, got 'ui8'}}
  %0 = aten._upsample_bilinear2d_aa %x {output_size = array<i64: 4, 4>} : (tensor<1x2x8x8xui8>) -> tensor<1x2x4x4xui8>
  return
}

// -----

func.func @antialias_size(%x: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{'aten._upsample_bicubic2d_aa' op result shape [1, 2, 4, 5] does not match the inferred shape [1, 2, 4, 4]}}
  %0 = aten._upsample_bicubic2d_aa %x {output_size = array<i64: 4, 4>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x5xf32>
  return
}
