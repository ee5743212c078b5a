// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the gather, scatter and pad ops
// (ATenIndexingOps.cpp).

func.func @index_select_dim(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'aten.index_select' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.index_select %x, %i {dim = 2 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<4x5xf32>, %i: tensor<3x1xi64>) {
  // expected-error @+1 {{'aten.index_select' op expects a 0-d or 1-d index, got rank 2}}
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3x1xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @index_select_result(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'aten.index_select' op result shape [4, 5] does not match the inferred shape [4, 3]}}
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_float(%x: tensor<4x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'aten.index_select' op operand #1 must be ranked tensor of 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values}}
  %0 = aten.index_select %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_dim(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{'aten.gather' op dim -3 is out of range for a tensor of rank 2}}
  %0 = aten.gather %x, %i {dim = -3 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<4x5xf32>, %i: tensor<8xi64>) {
  // expected-error @+1 {{'aten.gather' op expects an index of the rank of self (2), got rank 1}}
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<8xi64>) -> tensor<8xf32>
  return
}

// -----

func.func @gather_size(%x: tensor<4x5xf32>, %i: tensor<6x2xi64>) {
  // expected-error @+1 {{'aten.gather' op index dim 0 of size 6 is larger than self's (4)}}
  %0 = aten.gather %x, %i {dim = 1 : i64} : (tensor<4x5xf32>, tensor<6x2xi64>) -> tensor<6x2xf32>
  return
}

// -----

func.func @scatter_dim(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'aten.scatter' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.scatter %x, %i, %s {dim = 2 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_reduce(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'aten.scatter' op unknown reduce 'max' (none, sum, prod, mean, amax or amin)}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64, reduce = "max"} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_index_rank(%x: tensor<4x5xf32>, %i: tensor<8xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'aten.scatter' op expects an index of the rank of self (2), got rank 1}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64} : (tensor<4x5xf32>, tensor<8xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_src_type(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %s: tensor<4x2xf16>) {
  // expected-error @+1 {{'aten.scatter' op expects src of self's element type 'f32'}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf16>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_src_rank(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %s: tensor<8xf32>) {
  // expected-error @+1 {{'aten.scatter' op expects src of the rank of self (or 0-d), got rank 1}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<8xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_index_self(%x: tensor<4x5xf32>, %i: tensor<5x2xi64>, %s: tensor<5x2xf32>) {
  // expected-error @+1 {{'aten.scatter' op index dim 0 of size 5 is larger than self's (4)}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64} : (tensor<4x5xf32>, tensor<5x2xi64>, tensor<5x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @scatter_index_src(%x: tensor<4x5xf32>, %i: tensor<4x3xi64>, %s: tensor<4x2xf32>) {
  // expected-error @+1 {{'aten.scatter' op index dim 1 of size 3 is larger than src's (2)}}
  %0 = aten.scatter %x, %i, %s {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_none(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.index_tensor' op expects at least one index tensor}}
  %0 = aten.index_tensor %x[] {index_dims = array<i64>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_dims_count(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'aten.index_tensor' op has 1 index tensors but 2 index_dims}}
  %0 = aten.index_tensor %x[%i] {index_dims = array<i64: 0, 1>} : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<3x5xf32>
  return
}

// -----

func.func @index_dims_order(%x: tensor<4x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'aten.index_tensor' op index_dims must be increasing dims of self (rank 2)}}
  %0 = aten.index_tensor %x[%i, %i] {index_dims = array<i64: 1, 0>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @index_broadcast(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %j: tensor<2xi64>) {
  // expected-error @+1 {{'aten.index_tensor' op index shapes [3] and [2] do not broadcast}}
  %0 = aten.index_tensor %x[%i, %j] {index_dims = array<i64: 0, 1>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<3xf32>
  return
}

// -----

// Non-adjacent indexed dims put the broadcast index dims first.
func.func @index_result(%x: tensor<4x5x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'aten.index_tensor' op result shape [5, 3] does not match the inferred shape [3, 5]}}
  %0 = aten.index_tensor %x[%i, %i] {index_dims = array<i64: 0, 2>} : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @index_put_type(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %v: tensor<5xi32>) {
  // expected-error @+1 {{'aten.index_put' op expects values of self's element type 'f32'}}
  %0 = aten.index_put %x[%i], %v {index_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<5xi32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @index_put_values(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'aten.index_put' op values of shape [4] do not broadcast to the indexed shape [3, 5]}}
  %0 = aten.index_put %x[%i], %v {index_dims = array<i64: 0>} : (tensor<4x5xf32>, tensor<3xi64>, tensor<4xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @nonzero_result(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.nonzero' op result shape [?, 3] does not match the inferred shape [?, 2]}}
  %0 = aten.nonzero %x : (tensor<4x5xf32>) -> tensor<?x3xi64>
  return
}

// -----

func.func @flip_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.flip' op dim 2 is out of range for a tensor of rank 2}}
  %0 = aten.flip %x {dims = array<i64: 2>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @flip_twice(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.flip' op dim 1 appears more than once}}
  %0 = aten.flip %x {dims = array<i64: 1, -1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @roll_counts(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.roll' op expects one shift per dim (or one shift and no dims), got 2 shifts and 1 dims}}
  %0 = aten.roll %x {shifts = array<i64: 1, 2>, dims = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @roll_dim(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.roll' op dim 5 is out of range for a tensor of rank 2}}
  %0 = aten.roll %x {shifts = array<i64: 1>, dims = array<i64: 5>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @repeat_count(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.repeat' op expects at least 2 repeats (the rank of self), got 1}}
  %0 = aten.repeat %x {repeats = array<i64: 2>} : (tensor<4x5xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @repeat_negative(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.repeat' op expects repeats >= 0, got -1}}
  %0 = aten.repeat %x {repeats = array<i64: 1, -1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @tril_rank(%x: tensor<5xf32>) {
  // expected-error @+1 {{'aten.tril' op expects a tensor of rank >= 2}}
  %0 = aten.tril %x : tensor<5xf32>
  return
}

// -----

func.func @triu_rank(%x: tensor<5xf32>) {
  // expected-error @+1 {{'aten.triu' op expects a tensor of rank >= 2}}
  %0 = aten.triu %x : tensor<5xf32>
  return
}

// -----

func.func @pad_odd(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.constant_pad_nd' op expects an even number of pad entries, got 3}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 1>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @pad_dims(%x: tensor<5xf32>) {
  // expected-error @+1 {{'aten.constant_pad_nd' op pads 2 dims of a tensor of rank 1}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: 1, 1, 1, 1>} : (tensor<5xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @pad_negative_size(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.constant_pad_nd' op padding makes dim 1 of size 5 negative}}
  %0 = aten.constant_pad_nd %x {pad = array<i64: -3, -3>} : (tensor<4x5xf32>) -> tensor<4x0xf32>
  return
}

// -----

// A negative pad crops, down to an empty dim but not below.
func.func @reflection_negative(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.reflection_pad' op padding makes dim 1 of size 5 negative}}
  %0 = aten.reflection_pad %x {padding = array<i64: -3, -3>} : (tensor<4x5xf32>) -> tensor<4x0xf32>
  return
}

// -----

func.func @reflection_size(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.reflection_pad' op padding 5 must be smaller than dim 1 of size 5}}
  %0 = aten.reflection_pad %x {padding = array<i64: 5, 0>} : (tensor<4x5xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @replication_empty(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{'aten.replication_pad' op cannot pad the empty dim 1}}
  %0 = aten.replication_pad %x {padding = array<i64: 1, 0>} : (tensor<4x0xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @circular_size(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'aten.circular_pad' op padding 6 must be at most dim 1 of size 5}}
  %0 = aten.circular_pad %x {padding = array<i64: 6, 0>} : (tensor<4x5xf32>) -> tensor<4x11xf32>
  return
}
