// RUN: kiln-opt %s -split-input-file -autograd-batch -symbol-dce | FileCheck %s

// Elementwise ops: an unbatched operand broadcasts as is; a batched one of
// lower per-sample rank gets unit dims after its batch. A batch at dim 1 is
// moved to the front first.
func.func private @ew(%x: tensor<4x3xf32>, %w: tensor<3xf32>, %s: tensor<4x1xf32>) -> tensor<4x3xf32> {
  %0 = aten.mul_tensor %x, %w : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %1 = aten.add_tensor %0, %s : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @ew_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<4x?x3xf32>, %[[W:.*]]: tensor<3xf32>, %[[S:.*]]: tensor<?x4x1xf32>)
// CHECK: %[[XB:.*]] = aten.permute %[[X]] {dims = array<i64: 1, 0, 2>} : (tensor<4x?x3xf32>) -> tensor<?x4x3xf32>
// CHECK: %[[M:.*]] = aten.mul_tensor %[[XB]], %[[W]] : (tensor<?x4x3xf32>, tensor<3xf32>) -> tensor<?x4x3xf32>
// CHECK: %[[A:.*]] = aten.add_tensor %[[M]], %[[S]] : (tensor<?x4x3xf32>, tensor<?x4x1xf32>) -> tensor<?x4x3xf32>
// CHECK: %[[R:.*]] = aten.permute %[[A]] {dims = array<i64: 1, 2, 0>} : (tensor<?x4x3xf32>) -> tensor<4x3x?xf32>
// CHECK: return %[[R]]
func.func @ew_vmap(%x: tensor<4x?x3xf32>, %w: tensor<3xf32>, %s: tensor<?x4x1xf32>) -> tensor<4x3x?xf32> {
  %0 = autograd.vmap @ew(%x, %w, %s) in_dims [1, -1, 0] out_dims [2]
      : (tensor<4x?x3xf32>, tensor<3xf32>, tensor<?x4x1xf32>) -> tensor<4x3x?xf32>
  return %0 : tensor<4x3x?xf32>
}

// -----

// Per-sample weights (a weight gradient's linear on two batched operands)
// become one broadcasting matmul; reductions and views shift their dims.
func.func private @grads(%g: tensor<8x16xf32>, %x: tensor<8x64xf32>) -> (tensor<16x64xf32>, tensor<16xf32>, tensor<128xf32>) {
  %0 = aten.permute %g {dims = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %1 = aten.permute %x {dims = array<i64: 1, 0>} : (tensor<8x64xf32>) -> tensor<64x8xf32>
  %2 = aten.linear %0, %1 : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
  %3 = aten.sum_to_size %g : (tensor<8x16xf32>) -> tensor<16xf32>
  %4 = aten.view %g[128] : tensor<8x16xf32> -> tensor<128xf32>
  return %2, %3, %4 : tensor<16x64xf32>, tensor<16xf32>, tensor<128xf32>
}
// CHECK-LABEL: func.func @grads_vmap(
// CHECK-SAME: %[[G:.*]]: tensor<?x8x16xf32>, %[[X:.*]]: tensor<?x8x64xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[G]], %c0
// CHECK: %[[GT:.*]] = aten.permute %[[G]] {dims = array<i64: 0, 2, 1>}
// CHECK: %[[XT:.*]] = aten.permute %[[X]] {dims = array<i64: 0, 2, 1>}
// CHECK: %[[XTT:.*]] = aten.permute %[[XT]] {dims = array<i64: 0, 2, 1>} : (tensor<?x64x8xf32>) -> tensor<?x8x64xf32>
// CHECK: %[[W:.*]] = aten.matmul %[[GT]], %[[XTT]] : (tensor<?x16x8xf32>, tensor<?x8x64xf32>) -> tensor<?x16x64xf32>
// CHECK: %[[S0:.*]] = aten.sum_dim_intlist %[[G]] {dim = array<i64: 1>} : (tensor<?x8x16xf32>) -> tensor<?x16xf32>
// CHECK: %[[V:.*]] = aten.view %[[G]][%[[B]], 128] : tensor<?x8x16xf32> -> tensor<?x128xf32>
// CHECK: return %[[W]], %[[S0]], %[[V]]
func.func @grads_vmap(%g: tensor<?x8x16xf32>, %x: tensor<?x8x64xf32>) -> (tensor<?x16x64xf32>, tensor<?x16xf32>, tensor<?x128xf32>) {
  %0:3 = autograd.vmap @grads(%g, %x) in_dims [0, 0] out_dims [0, 0, 0]
      : (tensor<?x8x16xf32>, tensor<?x8x64xf32>) -> tensor<?x16x64xf32>, tensor<?x16xf32>, tensor<?x128xf32>
  return %0#0, %0#1, %0#2 : tensor<?x16x64xf32>, tensor<?x16xf32>, tensor<?x128xf32>
}

// -----

// Convolution with unbatched weights folds the batch into N. Ops on
// unbatched values only run once; an unbatched result is broadcast along
// the batch.
func.func private @conv(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>) {
  %0 = aten.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x6x6xf32>
  %1 = aten.neg %w : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
  return %0, %1 : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
}
// CHECK-LABEL: func.func @conv_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<?x2x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[F:.*]] = aten.flatten_using_ints %[[X]] {end_dim = 1 : i64} : (tensor<?x2x3x8x8xf32>) -> tensor<?x3x8x8xf32>
// CHECK: %[[C:.*]] = aten.convolution %[[F]], %[[W]] {{.*}} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32>
// CHECK: %[[Y:.*]] = aten.view %[[C]][%[[B]], 2, 4, 6, 6] : tensor<?x4x6x6xf32> -> tensor<?x2x4x6x6xf32>
// CHECK: %[[N:.*]] = aten.neg %[[W]] : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
// CHECK: %[[U:.*]] = aten.unsqueeze %[[N]], 0
// CHECK: %[[E:.*]] = aten.expand %[[U]][%[[B]], -1, -1, -1, -1] : tensor<1x4x3x3x3xf32> -> tensor<?x4x3x3x3xf32>
// CHECK: return %[[Y]], %[[E]]
func.func @conv_vmap(%x: tensor<?x2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x2x4x6x6xf32>, tensor<?x4x3x3x3xf32>) {
  %0:2 = autograd.vmap @conv(%x, %w) in_dims [0, -1] out_dims [0, 0]
      : (tensor<?x2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<?x2x4x6x6xf32>, tensor<?x4x3x3x3xf32>
  return %0#0, %0#1 : tensor<?x2x4x6x6xf32>, tensor<?x4x3x3x3xf32>
}

// -----

// The loop over the batch: each batched operand sliced at the sample, each
// result inserted.
func.func private @noRule(%x: tensor<5xf32>) -> tensor<4x2xf32> {
  %0 = aten.as_strided %x {size = array<i64: 4, 2>, stride = array<i64: 1, 1>} : (tensor<5xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
// CHECK-LABEL: func.func @loop_vmap(
// CHECK-SAME: %[[X:.*]]: tensor<?x5xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[E:.*]] = bufferization.alloc_tensor(%[[B]]) : tensor<?x4x2xf32>
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[B]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[E]]) -> (tensor<?x4x2xf32>) {
// CHECK:   %[[S:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 5] [1, 1] : tensor<?x5xf32> to tensor<5xf32>
// CHECK:   %[[D:.*]] = aten.as_strided %[[S]]
// CHECK:   %[[U:.*]] = tensor.insert_slice %[[D]] into %[[ACC]][%[[I]], 0, 0] [1, 4, 2] [1, 1, 1] : tensor<4x2xf32> into tensor<?x4x2xf32>
// CHECK:   scf.yield %[[U]]
// CHECK: return %[[R]]
func.func @loop_vmap(%x: tensor<?x5xf32>) -> tensor<?x4x2xf32> {
  %0 = autograd.vmap @noRule(%x) in_dims [0] out_dims [0] : (tensor<?x5xf32>) -> tensor<?x4x2xf32>
  return %0 : tensor<?x4x2xf32>
}

// -----

// A runtime call with a registered batching rule (kiln.runtime_vmap) becomes
// one "<op>#vmap" call over the batch: the batched operand's type, the
// literals, then one in_dim per argument. One without a rule runs in the loop.
func.func private @rt(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4x8xf32>, 2.0 : f64], kiln.runtime_vmap = "kilntest::scaled_gelu#vmap"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = aten.call_runtime "kilntest::mix"(%x, %y) {args = [tensor<4x8xf32>, tensor<4x8xf32>]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @rt_vmap(
// CHECK: aten.call_runtime "kilntest::scaled_gelu#vmap"(%{{.*}}) {args = [tensor<?x4x8xf32>, 2.000000e+00, 0, -1]} : (tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
// CHECK: scf.for
// CHECK: aten.call_runtime "kilntest::mix"(%{{.*}}, %{{.*}}) {args = [tensor<4x8xf32>, tensor<4x8xf32>]} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @rt_vmap(%x: tensor<?x4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<?x4x8xf32>, tensor<?x4x8xf32>) {
  %0:2 = autograd.vmap @rt(%x, %y) in_dims [0, -1] out_dims [0, 0]
      : (tensor<?x4x8xf32>, tensor<4x8xf32>) -> tensor<?x4x8xf32>, tensor<?x4x8xf32>
  return %0#0, %0#1 : tensor<?x4x8xf32>, tensor<?x4x8xf32>
}

// -----

// Reductions of a 0-d sample read [B] as [B, 1] along dim 1; an op along a
// dim of a 0-d sample is squeezed back; argmax of the flattened sample
// flattens it after the batch.
func.func private @scalar(%x: tensor<f32>, %y: tensor<3x4xf32>) -> (tensor<f32>, tensor<f32>, tensor<i64>) {
  %0 = aten.sum_dim_intlist %x : (tensor<f32>) -> tensor<f32>
  %1 = aten.cumsum %x {dim = 0 : i64} : (tensor<f32>) -> tensor<f32>
  %2 = aten.argmax %y : (tensor<3x4xf32>) -> tensor<i64>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<i64>
}
// CHECK-LABEL: func.func @scalar_vmap(
// CHECK: %[[U:.*]] = aten.unsqueeze %{{.*}}, 1 : (tensor<?xf32>) -> tensor<?x1xf32>
// CHECK: aten.sum_dim_intlist %[[U]] {dim = array<i64: 1>} : (tensor<?x1xf32>) -> tensor<?xf32>
// CHECK: %[[C:.*]] = aten.cumsum %{{.*}} {dim = 1 : i64} : (tensor<?x1xf32>) -> tensor<?x1xf32>
// CHECK: aten.squeeze_dims %[[C]] {dims = array<i64: 1>} : (tensor<?x1xf32>) -> tensor<?xf32>
// CHECK: %[[F:.*]] = aten.flatten_using_ints %{{.*}} {start_dim = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK: aten.argmax %[[F]] {dim = 1 : i64} : (tensor<?x12xf32>) -> tensor<?xi64>
func.func @scalar_vmap(%x: tensor<?xf32>, %y: tensor<?x3x4xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) {
  %0:3 = autograd.vmap @scalar(%x, %y) in_dims [0, 0] out_dims [0, 0, 0]
      : (tensor<?xf32>, tensor<?x3x4xf32>) -> tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
  return %0#0, %0#1, %0#2 : tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
}

// -----

// Gathers and scatters shift their dim with every tensor operand batched (a
// shared index is broadcast along the batch); pads and triangles see the
// batch as one more leading dim; repeat puts unit dims after the batch.
func.func private @idx(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>) -> (tensor<4x2xf32>, tensor<4x5xf32>, tensor<4x9xf32>, tensor<4x5xf32>, tensor<2x8x10xf32>) {
  %0 = aten.gather %x, %i {dim = -1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %1 = aten.scatter %x, %i, %0 {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x5xf32>
  %2 = aten.constant_pad_nd %x {pad = array<i64: 1, 3>} : (tensor<4x5xf32>) -> tensor<4x9xf32>
  %3 = aten.tril %x : tensor<4x5xf32>
  %4 = aten.repeat %x {repeats = array<i64: 2, 2, 2>} : (tensor<4x5xf32>) -> tensor<2x8x10xf32>
  return %0, %1, %2, %3, %4 : tensor<4x2xf32>, tensor<4x5xf32>, tensor<4x9xf32>, tensor<4x5xf32>, tensor<2x8x10xf32>
}
// CHECK-LABEL: func.func @idx_vmap(
// CHECK: %[[IB:.*]] = aten.expand %{{.*}}[%{{.*}}, -1, -1] : tensor<1x4x2xi64> -> tensor<?x4x2xi64>
// CHECK: %[[G:.*]] = aten.gather %{{.*}}, %[[IB]] {dim = 2 : i64} : (tensor<?x4x5xf32>, tensor<?x4x2xi64>) -> tensor<?x4x2xf32>
// CHECK: aten.scatter %{{.*}}, %{{.*}}, %[[G]] {dim = 2 : i64} : (tensor<?x4x5xf32>, tensor<?x4x2xi64>, tensor<?x4x2xf32>) -> tensor<?x4x5xf32>
// CHECK: aten.constant_pad_nd %{{.*}} {pad = array<i64: 1, 3>} : (tensor<?x4x5xf32>) -> tensor<?x4x9xf32>
// CHECK: aten.tril %{{.*}} : tensor<?x4x5xf32>
// CHECK: %[[R:.*]] = aten.unsqueeze %{{.*}}, 1 : (tensor<?x4x5xf32>) -> tensor<?x1x4x5xf32>
// CHECK: aten.repeat %[[R]] {repeats = array<i64: 1, 2, 2, 2>} : (tensor<?x1x4x5xf32>) -> tensor<?x2x8x10xf32>
func.func @idx_vmap(%x: tensor<?x4x5xf32>, %i: tensor<4x2xi64>) -> (tensor<?x4x2xf32>, tensor<?x4x5xf32>, tensor<?x4x9xf32>, tensor<?x4x5xf32>, tensor<?x2x8x10xf32>) {
  %0:5 = autograd.vmap @idx(%x, %i) in_dims [0, -1] out_dims [0, 0, 0, 0, 0]
      : (tensor<?x4x5xf32>, tensor<4x2xi64>) -> tensor<?x4x2xf32>, tensor<?x4x5xf32>, tensor<?x4x9xf32>, tensor<?x4x5xf32>, tensor<?x2x8x10xf32>
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<?x4x2xf32>, tensor<?x4x5xf32>, tensor<?x4x9xf32>, tensor<?x4x5xf32>, tensor<?x2x8x10xf32>
}
// -----

// A convolution's backward with per-sample weight and bias gradients: the
// input gradient folds the batch into N; the weight gradient is one batched
// product of the output gradient with the padded input's windows (unfold
// along H and W, every second tap for dilation 2), per group; the bias
// gradient sums the output gradient per sample.
func.func private @convBackward(%g: tensor<2x4x3x3xf32>, %x: tensor<2x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) {
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 2, 2>, groups = 2 : i64, output_mask = array<i1: true, true, true>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x3x3xf32>, tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> (tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @convBackward_vmap(
// CHECK-SAME: %[[G:.*]]: tensor<?x2x4x3x3xf32>, %[[X:.*]]: tensor<?x2x4x8x8xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>)
// CHECK: %[[GI:.*]], %{{.*}}, %{{.*}} = aten.convolution_backward {{.*}} output_mask = array<i1: true, false, false>{{.*}} : (tensor<?x4x3x3xf32>, tensor<?x4x8x8xf32>, tensor<4x2x3x3xf32>)
// CHECK: aten.constant_pad_nd %[[X]] {pad = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<?x2x4x10x10xf32>
// CHECK: aten.unfold %{{.*}} {dimension = 3 : i64, size = 5 : i64, step = 2 : i64} : (tensor<?x2x4x10x10xf32>) -> tensor<?x2x4x3x10x5xf32>
// CHECK: aten.unfold %{{.*}} {dimension = 4 : i64, size = 5 : i64, step = 2 : i64} : (tensor<?x2x4x3x10x5xf32>) -> tensor<?x2x4x3x3x5x5xf32>
// CHECK-NOT: aten.convolution_backward
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<?x2x2x18xf32>, tensor<?x2x18x18xf32>) -> tensor<?x2x2x18xf32>
// CHECK: aten.sum_dim_intlist %[[G]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @convBackward_vmap(%g: tensor<?x2x4x3x3xf32>, %x: tensor<?x2x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> (tensor<?x2x4x8x8xf32>, tensor<?x4x2x3x3xf32>, tensor<?x4xf32>) {
  %0:3 = autograd.vmap @convBackward(%g, %x, %w) in_dims [0, 0, -1] out_dims [0, 0, 0]
      : (tensor<?x2x4x3x3xf32>, tensor<?x2x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<?x2x4x8x8xf32>, tensor<?x4x2x3x3xf32>, tensor<?x4xf32>
  return %0#0, %0#1, %0#2 : tensor<?x2x4x8x8xf32>, tensor<?x4x2x3x3xf32>, tensor<?x4xf32>
}
// -----

// A transposed convolution's backward (weight [Ci, Co/G, KH, KW]): the
// windows are the output gradient's (padded, unfolded with the stride), as
// many as the input has positions (the output padding's extra window
// dropped); the input times them gives the weight gradient per group.
func.func private @convTBackward(%g: tensor<2x6x8x8xf32>, %x: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>) {
  %0:3 = aten.convolution_backward %g, %x, %w {dilation = array<i64: 1, 1>, groups = 2 : i64, output_mask = array<i1: true, true, true>, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<2x6x8x8xf32>, tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>, tensor<6xf32>
}
// CHECK-LABEL: func.func @convTBackward_vmap(
// CHECK-SAME: %[[G:.*]]: tensor<?x2x6x8x8xf32>, %[[X:.*]]: tensor<?x2x4x4x4xf32>
// CHECK: aten.convolution_backward {{.*}} output_mask = array<i1: true, false, false>{{.*}} transposed = true
// CHECK: aten.constant_pad_nd %[[G]] {pad = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<?x2x6x10x10xf32>
// CHECK: aten.unfold {{.*}} -> tensor<?x2x6x4x10x3xf32>
// CHECK: aten.unfold {{.*}} -> tensor<?x2x6x4x4x3x3xf32>
// CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<?x2x2x32xf32>, tensor<?x2x32x27xf32>) -> tensor<?x2x2x27xf32>
// CHECK-NOT: scf.for
// CHECK: return
func.func @convTBackward_vmap(%g: tensor<?x2x6x8x8xf32>, %x: tensor<?x2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<?x2x4x4x4xf32>, tensor<?x4x3x3x3xf32>, tensor<?x6xf32>) {
  %0:3 = autograd.vmap @convTBackward(%g, %x, %w) in_dims [0, 0, -1] out_dims [0, 0, 0]
      : (tensor<?x2x6x8x8xf32>, tensor<?x2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<?x2x4x4x4xf32>, tensor<?x4x3x3x3xf32>, tensor<?x6xf32>
  return %0#0, %0#1, %0#2 : tensor<?x2x4x4x4xf32>, tensor<?x4x3x3x3xf32>, tensor<?x6xf32>
}
