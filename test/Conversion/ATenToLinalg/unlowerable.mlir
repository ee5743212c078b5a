// RUN: not kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' 2>&1 | FileCheck %s
// RUN: not kiln-compile %s -o %t.so 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not test -e %t.so

// An aten op with no lowering is an error at its location (the user's Python
// line), naming the op; the pass fails rather than leaving it behind.

// CHECK: model.py:12:3: error: failed to legalize operation 'aten.convolution'
// CHECK-NOT: error:
// CHECK: model.py:20:5: error: failed to legalize operation 'aten.scaled_dot_product_attention'

// kiln-compile reports the file and line, and the node's name.
// COMPILE: model.py:12: error: failed to legalize operation 'aten.convolution' {{.*}} [node 'deconv']
// COMPILE: kiln-compile: error: compilation of '{{.*}}unlowerable.mlir' failed

// A convolution whose kernel size is only known at run time.
func.func @dynamic_kernel_convolution(%x: tensor<1x3x8x8xf32>, %w: tensor<6x3x?x3xf32>) -> tensor<1x6x?x6xf32> {
  %0 = aten.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<6x3x?x3xf32>) -> tensor<1x6x?x6xf32> loc("deconv"("model.py":12:3))
  return %0 : tensor<1x6x?x6xf32>
}

// -----

// Attention with dropout is random: only dropout_p = 0 is compiled.
func.func private @attention_dropout(%q: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = aten.scaled_dot_product_attention %q, %q, %q {dropout_p = 0.1 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32> loc("sdpa"("model.py":20:5))
  return %0 : tensor<2x4x8xf32>
}
