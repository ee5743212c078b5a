// RUN: kiln-opt %s --split-input-file --kiln-fold-batch-norm | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fold-batch-norm=sixteen-bit=true | FileCheck %s --check-prefix=SIXTEEN

// A convolution with a bias followed by affine inference batch norm: one
// convolution reading two derived arguments, appended to the entry, whose
// kiln.derive says how the runtime computes them at load.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32> {kiln.kind = "input", kiln.name = "x"}
// CHECK-SAME: %[[W2:[a-z0-9]+]]: tensor<4x3x3x3xf32> {kiln.derive = {eps = 1.000000e-05 : f64, from = ["c.weight", "bn.weight", "bn.running_var"], recipe = "conv-bn-weight"}, kiln.kind = "derived", kiln.name = "c.weight#bn"}
// CHECK-SAME: %[[B2:[a-z0-9]+]]: tensor<4xf32> {kiln.derive = {eps = 1.000000e-05 : f64, from = ["c.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"], recipe = "conv-bn-bias"}, kiln.kind = "derived", kiln.name = "c.weight#bn_bias"}
// CHECK-NEXT: %[[Y:.*]] = aten.convolution %[[X]], %[[W2]], %[[B2]] {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}
// CHECK-NOT: aten._native_batch_norm_legit_no_training
// CHECK: return %[[Y]]
func.func @forward(%w: tensor<4x3x3x3xf32> {kiln.kind = "param", kiln.name = "c.weight"},
                   %b: tensor<4xf32> {kiln.kind = "param", kiln.name = "c.bias"},
                   %g: tensor<4xf32> {kiln.kind = "param", kiln.name = "bn.weight"},
                   %beta: tensor<4xf32> {kiln.kind = "param", kiln.name = "bn.bias"},
                   %m: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_mean"},
                   %v: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_var"},
                   %x: tensor<2x3x8x8xf32> {kiln.kind = "input", kiln.name = "x"}) -> tensor<2x4x4x4xf32> {
  %0 = aten.convolution %x, %w, %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  %1:3 = aten._native_batch_norm_legit_no_training %0 weight %g bias %beta mean %m var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<2x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x4x4xf32>, tensor<0xf32>, tensor<0xf32>)
  return %1#0 : tensor<2x4x4x4xf32>
}

// -----

// No convolution bias, no affine weights (absent operands are `-`), depthwise
// (the groups stay), a 1-d convolution and another eps.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: {kiln.derive = {eps = 1.000000e-03 : f64, from = ["dw.weight", "-", "bn.running_var"], recipe = "conv-bn-weight"}, kiln.kind = "derived", kiln.name = "dw.weight#bn"}
// CHECK-SAME: {kiln.derive = {eps = 1.000000e-03 : f64, from = ["-", "-", "-", "bn.running_mean", "bn.running_var"], recipe = "conv-bn-bias"}, kiln.kind = "derived", kiln.name = "dw.weight#bn_bias"}
// CHECK-SAME: tensor<6x1x3xf32> {kiln.derive = {{.*}}kiln.name = "c1d.weight#bn"}
// CHECK: aten.convolution {{.*}} {dilation = array<i64: 1, 1>, groups = 4 : i64,
// CHECK: aten.convolution {{.*}} : (tensor<2x6x8xf32>, tensor<6x1x3xf32>, tensor<6xf32>) -> tensor<2x6x6xf32>
// CHECK-NOT: aten._native_batch_norm_legit_no_training
func.func @forward(%w: tensor<4x1x3x3xf32> {kiln.kind = "param", kiln.name = "dw.weight"},
                   %m: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_mean"},
                   %v: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_var"},
                   %w1: tensor<6x1x3xf32> {kiln.kind = "param", kiln.name = "c1d.weight"},
                   %m1: tensor<6xf32> {kiln.kind = "buffer", kiln.name = "bn1.running_mean"},
                   %v1: tensor<6xf32> {kiln.kind = "buffer", kiln.name = "bn1.running_var"},
                   %x: tensor<2x4x8x8xf32> {kiln.kind = "input", kiln.name = "x"},
                   %t: tensor<2x6x8xf32> {kiln.kind = "input", kiln.name = "t"}) -> (tensor<2x4x8x8xf32>, tensor<2x6x6xf32>) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1:3 = aten._native_batch_norm_legit_no_training %0 mean %m var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-03 : f64} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  %2 = aten.convolution %t, %w1 {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, output_padding = array<i64: 0>, groups = 6 : i64} : (tensor<2x6x8xf32>, tensor<6x1x3xf32>) -> tensor<2x6x6xf32>
  %3:3 = aten._native_batch_norm_legit_no_training %2 mean %m1 var %v1 {momentum = 1.000000e-01 : f64, eps = 1.000000e-03 : f64} : (tensor<2x6x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x6xf32>, tensor<0xf32>, tensor<0xf32>)
  return %1#0, %3#0 : tensor<2x4x8x8xf32>, tensor<2x6x6xf32>
}

// -----

// Left alone: the convolution's output has a second reader; the statistics
// are an input, not a weight; the running mean is written by the program
// (kiln.update); a transposed convolution; float16.
// CHECK-LABEL: func.func @forward
// CHECK-NOT: "derived"
// CHECK-COUNT-5: aten._native_batch_norm_legit_no_training
func.func @forward(%w: tensor<4x4x1x1xf32> {kiln.kind = "param", kiln.name = "c.weight"},
                   %m: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_mean"},
                   %v: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "bn.running_var"},
                   %wh: tensor<4x4x1x1xf16> {kiln.kind = "param", kiln.name = "h.weight"},
                   %mh: tensor<4xf16> {kiln.kind = "buffer", kiln.name = "h.running_mean"},
                   %vh: tensor<4xf16> {kiln.kind = "buffer", kiln.name = "h.running_var"},
                   %u: tensor<4xf32> {kiln.kind = "buffer", kiln.name = "u.running_mean"},
                   %s: tensor<4xf32> {kiln.kind = "input", kiln.name = "s"},
                   %x: tensor<1x4x2x2xf32> {kiln.kind = "input", kiln.name = "x"},
                   %xh: tensor<1x4x2x2xf16> {kiln.kind = "input", kiln.name = "xh"})
    -> (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf16>, tensor<4xf32> {kiln.update = "buffer", kiln.name = "u.running_mean"}) {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %1:3 = aten._native_batch_norm_legit_no_training %0 mean %m var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, tensor<0xf32>, tensor<0xf32>)
  %r = aten.add_tensor %1#0, %0 : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %2 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %3:3 = aten._native_batch_norm_legit_no_training %2 mean %s var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, tensor<0xf32>, tensor<0xf32>)
  %4 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %5:3 = aten._native_batch_norm_legit_no_training %4 mean %u var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, tensor<0xf32>, tensor<0xf32>)
  %6 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %7:3 = aten._native_batch_norm_legit_no_training %6 mean %m var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, tensor<0xf32>, tensor<0xf32>)
  %8 = aten.convolution %xh, %wh {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x4x2x2xf16>, tensor<4x4x1x1xf16>) -> tensor<1x4x2x2xf16>
  %9:3 = aten._native_batch_norm_legit_no_training %8 mean %mh var %vh {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<1x4x2x2xf16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<1x4x2x2xf16>, tensor<0xf16>, tensor<0xf16>)
  %new = aten.add_tensor %u, %u : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r, %3#0, %5#0, %7#0, %9#0, %new : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2x2xf16>, tensor<4xf32>
}

// -----

// A bfloat16 convolution folds only with sixteen-bit (CUDA with cuDNN
// convolutions): its derived filter and bias are bfloat16 too.
// CHECK-LABEL: func.func @forward_bf16
// CHECK: aten._native_batch_norm_legit_no_training
// SIXTEEN-LABEL: func.func @forward_bf16
// SIXTEEN-SAME: tensor<4x3x3x3xbf16> {kiln.derive = {eps = 1.000000e-05 : f64, from = ["c.weight", "bn.weight", "bn.running_var"], recipe = "conv-bn-weight"}, kiln.kind = "derived", kiln.name = "c.weight#bn"}
// SIXTEEN-SAME: tensor<4xbf16> {kiln.derive = {{.*}}recipe = "conv-bn-bias"}, kiln.kind = "derived", kiln.name = "c.weight#bn_bias"}
// SIXTEEN-NOT: aten._native_batch_norm_legit_no_training
// SIXTEEN: return
func.func @forward_bf16(%w: tensor<4x3x3x3xbf16> {kiln.kind = "param", kiln.name = "c.weight"},
                        %g: tensor<4xbf16> {kiln.kind = "param", kiln.name = "bn.weight"},
                        %beta: tensor<4xbf16> {kiln.kind = "param", kiln.name = "bn.bias"},
                        %m: tensor<4xbf16> {kiln.kind = "buffer", kiln.name = "bn.running_mean"},
                        %v: tensor<4xbf16> {kiln.kind = "buffer", kiln.name = "bn.running_var"},
                        %x: tensor<2x3x8x8xbf16> {kiln.kind = "input", kiln.name = "x"}) -> tensor<2x4x8x8xbf16> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<2x4x8x8xbf16>
  %1:3 = aten._native_batch_norm_legit_no_training %0 weight %g bias %beta mean %m var %v {momentum = 1.000000e-01 : f64, eps = 1.000000e-05 : f64} : (tensor<2x4x8x8xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> (tensor<2x4x8x8xbf16>, tensor<0xbf16>, tensor<0xbf16>)
  return %1#0 : tensor<2x4x8x8xbf16>
}
