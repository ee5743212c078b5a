// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the aten matrix products (ATenLinalgOps.cpp).

func.func @mm_rank(%a: tensor<4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.mm' op expects operands of rank 2 and 2, got 1 and 2}}
  %0 = aten.mm %a, %b : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @mm_types(%a: tensor<4x6xf32>, %b: tensor<6x5xf16>) {
  // expected-error @+1 {{'aten.mm' op expects operands of one element type, got 'f32' and 'f16'}}
  %0 = aten.mm %a, %b : (tensor<4x6xf32>, tensor<6x5xf16>) -> tensor<4x5xf32>
  return
}

// -----

func.func @mm_contracted(%a: tensor<4x6xf32>, %b: tensor<7x5xf32>) {
  // expected-error @+1 {{'aten.mm' op contracted sizes do not match (6 vs 7)}}
  %0 = aten.mm %a, %b : (tensor<4x6xf32>, tensor<7x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @bmm_batch(%a: tensor<2x4x6xf32>, %b: tensor<3x6x5xf32>) {
  // expected-error @+1 {{'aten.bmm' op batch sizes do not match (2 vs 3)}}
  %0 = aten.bmm %a, %b : (tensor<2x4x6xf32>, tensor<3x6x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'aten.matmul' op expects operands of rank >= 1, got 0 and 1}}
  %0 = aten.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x6xf32>, %b: tensor<3x6x5xf32>) {
  // expected-error @+1 {{'aten.matmul' op batch dims [2] and [3] do not broadcast}}
  %0 = aten.matmul %a, %b : (tensor<2x4x6xf32>, tensor<3x6x5xf32>) -> tensor<2x4x5xf32>
  return
}

// -----

func.func @matmul_vector_result(%a: tensor<4x6xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'aten.matmul' op result rank 2 does not match the inferred rank 1}}
  %0 = aten.matmul %a, %b : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @addmv_self(%s: tensor<3xf32>, %a: tensor<4x6xf32>, %v: tensor<6xf32>) {
  // expected-error @+1 {{'aten.addmv' op self of shape [3] does not broadcast to the product's shape [4]}}
  %0 = aten.addmv %s, %a, %v : (tensor<3xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'aten.linear' op bias of shape [8] does not broadcast to the output's shape [8, 16]}}
  %0 = aten.linear %x, %w, %b : (tensor<8x64xf32>, tensor<16x64xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @einsum_none() {
  // expected-error @+1 {{'aten.einsum' op expects at least one tensor}}
  %0 = aten.einsum "->"() : () -> tensor<f32>
  return
}

// -----

func.func @einsum_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'aten.einsum' op expects operands of one element type}}
  %0 = aten.einsum "i,i->"(%a, %b) : (tensor<4xf32>, tensor<4xf64>) -> tensor<f32>
  return
}

// -----

func.func @einsum_terms(%a: tensor<4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation 'i,i->': equation has 2 operand terms for 1 tensors}}
  %0 = aten.einsum "i,i->"(%a) : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @einsum_rank(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation 'i->i': operand term 'i' does not match an operand of rank 2}}
  %0 = aten.einsum "i->i"(%a) : (tensor<4x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @einsum_char(%a: tensor<4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation 'i1->i': invalid character '1' in the equation}}
  %0 = aten.einsum "i1->i"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @einsum_two_ellipses(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation '......->': an operand term has more than one '...'}}
  %0 = aten.einsum "......->"(%a) : (tensor<4x4xf32>) -> tensor<f32>
  return
}

// -----

func.func @einsum_output(%a: tensor<4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation 'i->j': output subscript 'j' is not an input subscript or appears more than once}}
  %0 = aten.einsum "i->j"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @einsum_drop_ellipsis(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation '...i->i': the output must keep the '...' dims of the operands}}
  %0 = aten.einsum "...i->i"(%a) : (tensor<2x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @einsum_sizes(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'aten.einsum' op equation 'i,i->': sizes 4 and 5 of one subscript do not match}}
  %0 = aten.einsum "i,i->"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<f32>
  return
}
