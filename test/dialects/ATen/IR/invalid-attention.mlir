// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of aten.scaled_dot_product_attention (ATenAttentionOps.cpp).

func.func @ranks(%q: tensor<4x8xf32>, %k: tensor<1x4x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op expects query, key and value of one rank >= 2, got 2, 3 and 3}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @types(%q: tensor<4x8xf32>, %k: tensor<4x8xf16>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op expects query, key and value of one element type}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @embedding(%q: tensor<4x8xf32>, %k: tensor<4x6xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op query and key embedding sizes differ (8 vs 6)}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<4x8xf32>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @sequence(%q: tensor<4x8xf32>, %k: tensor<5x8xf32>, %v: tensor<6x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op key and value sequence lengths differ (5 vs 6)}}
  %0 = aten.scaled_dot_product_attention %q, %k, %v : (tensor<4x8xf32>, tensor<5x8xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gqa_rank(%q: tensor<4x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op with enable_gqa expects a head dim (rank >= 3)}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q {enable_gqa = true} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @gqa_kv_heads(%q: tensor<4x5x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<1x5x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op key and value head counts differ (2 vs 1)}}
  %0 = aten.scaled_dot_product_attention %q, %k, %v {enable_gqa = true} : (tensor<4x5x8xf32>, tensor<2x5x8xf32>, tensor<1x5x8xf32>) -> tensor<4x5x8xf32>
  return
}

// -----

func.func @gqa_multiple(%q: tensor<4x5x8xf32>, %k: tensor<3x5x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op query heads (4) are not a multiple of the key/value heads (3)}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k {enable_gqa = true} : (tensor<4x5x8xf32>, tensor<3x5x8xf32>, tensor<3x5x8xf32>) -> tensor<4x5x8xf32>
  return
}

// -----

func.func @batch(%q: tensor<4x5x8xf32>, %k: tensor<3x5x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op batch dims of query, key and value do not broadcast}}
  %0 = aten.scaled_dot_product_attention %q, %k, %k : (tensor<4x5x8xf32>, tensor<3x5x8xf32>, tensor<3x5x8xf32>) -> tensor<4x5x8xf32>
  return
}

// -----

func.func @mask_type(%q: tensor<4x8xf32>, %m: tensor<4x4xi32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op expects a bool mask or one of the query's element type, got 'i32'}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @mask_shape(%q: tensor<4x8xf32>, %m: tensor<4x5xi1>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op mask of shape [4, 5] does not broadcast to the scores' shape [4, 4]}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x5xi1>) -> tensor<4x8xf32>
  return
}

// -----

func.func @dropout(%q: tensor<4x8xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op dropout_p must be in [0, 1], got 1.5}}
  %0 = aten.scaled_dot_product_attention %q, %q, %q {dropout_p = 1.5 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @result(%q: tensor<4x8xf32>, %v: tensor<4x3xf32>) {
  // expected-error @+1 {{'aten.scaled_dot_product_attention' op result shape [4, 8] does not match the inferred shape [4, 3]}}
  %0 = aten.scaled_dot_product_attention %q, %q, %v : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return
}
