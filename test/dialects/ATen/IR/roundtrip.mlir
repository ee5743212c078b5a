// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Every aten op parses, prints, and parses again to the same thing.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // CHECK: %[[R:.*]] = aten.relu %{{.*}} : tensor<?x64xf32>
  %0 = aten.relu %x : tensor<?x64xf32>
  // The default approximation is not printed.
  // CHECK: %[[G:.*]] = aten.gelu %[[R]] : tensor<?x64xf32>
  %1 = aten.gelu %0 : tensor<?x64xf32>
  // CHECK: aten.gelu %[[G]] {approximate = "tanh"} : tensor<?x64xf32>
  %2 = aten.gelu %1 {approximate = "tanh"} : tensor<?x64xf32>
  return %2 : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @integer_relu
func.func @integer_relu(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: aten.relu %{{.*}} : tensor<4xi32>
  %0 = aten.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @linear_algebra
func.func @linear_algebra(%x: tensor<8x64xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>,
                          %m: tensor<64x16xf32>, %w1: tensor<64xf32>) -> tensor<8x16xf32> {
  // CHECK: aten.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = aten.linear %x, %w, %b : (tensor<8x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: aten.linear %{{.*}}, %{{.*}} : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  %1 = aten.linear %x, %w : (tensor<8x64xf32>, tensor<16x64xf32>) -> tensor<8x16xf32>
  // A 1-d weight gives a result without the feature dim.
  // CHECK: aten.linear %{{.*}}, %{{.*}} : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8xf32>
  %2 = aten.linear %x, %w1 : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8xf32>
  // CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  %3 = aten.addmm %b, %x, %m : (tensor<16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  // CHECK: aten.addmm %{{.*}}, %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64}
  %4 = aten.addmm %b, %x, %m {alpha = 2.0 : f64, beta = 0.5 : f64} : (tensor<16xf32>, tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  return %4 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @convolution
func.func @convolution(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>,
                       %wg: tensor<6x2x3x3xf32>, %wt: tensor<4x6x3x3xf32>) -> tensor<2x6x8x8xf32> {
  // CHECK: aten.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  %0 = aten.conv2d %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  // CHECK: aten.conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x3x3xf32>
  %1 = aten.conv2d %x, %wg {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x3x3xf32>
  // CHECK: aten.convolution %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  %2 = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = false, output_padding = array<i64: 0, 0>} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x8x8xf32>
  // Transposed: weight is [C_in, C_out / groups, kh, kw].
  // CHECK: aten.convolution %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>, transposed = true} : (tensor<2x4x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<2x6x16x16xf32>
  %3 = aten.convolution %x, %wt {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, transposed = true, output_padding = array<i64: 1, 1>} : (tensor<2x4x8x8xf32>, tensor<4x6x3x3xf32>) -> tensor<2x6x16x16xf32>
  return %2 : tensor<2x6x8x8xf32>
}

// CHECK-LABEL: func.func @normalization
func.func @normalization(%x: tensor<?x4x8x8xf32>, %c: tensor<4xf32>) -> tensor<?x4x8x8xf32> {
  // CHECK: aten.batch_norm %{{.*}} weight %{{.*}} bias %{{.*}} mean %{{.*}} var %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = false} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  %0 = aten.batch_norm %x weight %c bias %c mean %c var %c {training = false, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x8x8xf32>
  // Training batch norm may go without running statistics.
  // CHECK: aten.batch_norm %{{.*}} {cudnn_enabled = false, eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = true} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %1 = aten.batch_norm %x {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64, cudnn_enabled = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  // CHECK: aten._native_batch_norm_legit_no_training %{{.*}} weight %{{.*}} bias %{{.*}} mean %{{.*}} var %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  %2:3 = aten._native_batch_norm_legit_no_training %x weight %c bias %c mean %c var %c {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  // CHECK: aten._native_batch_norm_legit_no_training %{{.*}} mean %{{.*}} var %{{.*}} {eps
  %3:3 = aten._native_batch_norm_legit_no_training %x mean %c var %c {momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<?x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<?x4x8x8xf32>, tensor<0xf32>, tensor<0xf32>)
  return %2#0 : tensor<?x4x8x8xf32>
}

// CHECK-LABEL: func.func @pooling
func.func @pooling(%x: tensor<2x4x9x9xf32>, %y: tensor<4x8x8xf32>) -> tensor<2x4x5x5xf32> {
  // CHECK: aten.max_pool2d %{{.*}} {ceil_mode = true, dilation = array<i64: 1, 1>, kernel_size = array<i64: 2, 2>, padding = array<i64: 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x4x9x9xf32>) -> tensor<2x4x5x5xf32>
  %0 = aten.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = true} : (tensor<2x4x9x9xf32>) -> tensor<2x4x5x5xf32>
  // CHECK: aten.max_pool2d_with_indices %{{.*}} {dilation = array<i64: 1, 1>, kernel_size = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<4x8x8xf32>) -> (tensor<4x4x4xf32>, tensor<4x4x4xi64>)
  %1:2 = aten.max_pool2d_with_indices %y {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<4x8x8xf32>) -> (tensor<4x4x4xf32>, tensor<4x4x4xi64>)
  // CHECK: aten.adaptive_avg_pool2d %{{.*}} {output_size = array<i64: 3, 3>} : (tensor<2x4x9x9xf32>) -> tensor<2x4x3x3xf32>
  %2 = aten.adaptive_avg_pool2d %x {output_size = array<i64: 3, 3>} : (tensor<2x4x9x9xf32>) -> tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x5x5xf32>
}

// CHECK-LABEL: func.func @reduction
func.func @reduction(%x: tensor<2x?x8xf32>) -> tensor<2x1x1xf32> {
  // CHECK: aten.mean_dim %{{.*}} {dim = array<i64: -2, -1>, keepdim = true} : (tensor<2x?x8xf32>) -> tensor<2x1x1xf32>
  %0 = aten.mean_dim %x {dim = array<i64: -2, -1>, keepdim = true} : (tensor<2x?x8xf32>) -> tensor<2x1x1xf32>
  // No dim: reduce everything.
  // CHECK: aten.mean_dim %{{.*}} : (tensor<2x?x8xf32>) -> tensor<f32>
  %1 = aten.mean_dim %x : (tensor<2x?x8xf32>) -> tensor<f32>
  // CHECK: aten.mean_dim %{{.*}} {dim = array<i64: 1>} : (tensor<2x?x8xf32>) -> tensor<2x8xf32>
  %2 = aten.mean_dim %x {dim = array<i64: 1>} : (tensor<2x?x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x1x1xf32>
}

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<?x4x8xf32>, %n: index) -> tensor<?x32xf32> {
  // CHECK: aten.permute %{{.*}} {dims = array<i64: 2, 0, 1>} : (tensor<?x4x8xf32>) -> tensor<8x?x4xf32>
  %0 = aten.permute %x {dims = array<i64: 2, 0, 1>} : (tensor<?x4x8xf32>) -> tensor<8x?x4xf32>
  // CHECK: %[[S:.*]] = aten.sym_size_int %{{.*}}, 0 : tensor<?x4x8xf32>
  %s = aten.sym_size_int %x, 0 : tensor<?x4x8xf32>
  // CHECK: aten.view %{{.*}}[%[[S]], 32] : tensor<?x4x8xf32> -> tensor<?x32xf32>
  %1 = aten.view %x[%s, 32] : tensor<?x4x8xf32> -> tensor<?x32xf32>
  // CHECK: aten.view %{{.*}}[-1, 8] : tensor<?x4x8xf32> -> tensor<?x8xf32>
  %2 = aten.view %x[-1, 8] : tensor<?x4x8xf32> -> tensor<?x8xf32>
  // CHECK: aten.flatten_using_ints %{{.*}} {start_dim = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x32xf32>
  %3 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x32xf32>
  // CHECK: aten.flatten_using_ints %{{.*}} {end_dim = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x8xf32>
  %4 = aten.flatten_using_ints %x {start_dim = 0 : i64, end_dim = 1 : i64} : (tensor<?x4x8xf32>) -> tensor<?x8xf32>
  return %1 : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<?x64xf32>, %b: tensor<64xf32>, %s: tensor<f32>) -> tensor<?x64xf32> {
  // CHECK: aten.add_tensor %{{.*}}, %{{.*}} {alpha = 2.000000e+00 : f64} : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %0 = aten.add_tensor %x, %b {alpha = 2.0 : f64} : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  // CHECK: aten.sub_tensor
  %1 = aten.sub_tensor %0, %s : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  // CHECK: aten.mul_tensor
  %2 = aten.mul_tensor %1, %b : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  // CHECK: aten.div_tensor
  %3 = aten.div_tensor %2, %s : (tensor<?x64xf32>, tensor<f32>) -> tensor<?x64xf32>
  return %3 : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @products
func.func @products(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>, %v: tensor<6xf32>, %t: tensor<2x4x6xf32>,
                    %u: tensor<2x6x5xf32>, %s: tensor<4xf32>) {
  // CHECK: aten.mm %{{.*}}, %{{.*}} : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  %0 = aten.mm %a, %b : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  // CHECK: aten.bmm %{{.*}}, %{{.*}} : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  %1 = aten.bmm %t, %u : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: aten.matmul %{{.*}}, %{{.*}} : (tensor<6xf32>, tensor<2x6x5xf32>) -> tensor<2x5xf32>
  %2 = aten.matmul %v, %u : (tensor<6xf32>, tensor<2x6x5xf32>) -> tensor<2x5xf32>
  // CHECK: aten.mv %{{.*}}, %{{.*}} : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  %3 = aten.mv %a, %v : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  // CHECK: aten.dot %{{.*}}, %{{.*}} : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
  %4 = aten.dot %v, %v : (tensor<6xf32>, tensor<6xf32>) -> tensor<f32>
  // CHECK: aten.outer %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %5 = aten.outer %s, %v : (tensor<4xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  // CHECK: aten.addmv %{{.*}}, %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  %6 = aten.addmv %s, %a, %v {alpha = 0.5 : f64} : (tensor<4xf32>, tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
  // CHECK: aten.baddbmm %{{.*}}, %{{.*}}, %{{.*}} {beta = 0.000000e+00 : f64} : (tensor<4x5xf32>, tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  %7 = aten.baddbmm %0, %t, %u {beta = 0.0 : f64} : (tensor<4x5xf32>, tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: aten.einsum "bij,bjk->bik"(%{{.*}}, %{{.*}}) : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  %8 = aten.einsum "bij,bjk->bik"(%t, %u) : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x5xf32>, %i: tensor<4x5xi32>) {
  // CHECK: aten.sum_dim_intlist %{{.*}} {dim = array<i64: 1>, dtype = f64, keepdim = true} : (tensor<4x5xf32>) -> tensor<4x1xf64>
  %0 = aten.sum_dim_intlist %x {dim = array<i64: 1>, keepdim = true, dtype = f64} : (tensor<4x5xf32>) -> tensor<4x1xf64>
  // CHECK: aten.prod_dim_int %{{.*}} : (tensor<4x5xi32>) -> tensor<i64>
  %1 = aten.prod_dim_int %i : (tensor<4x5xi32>) -> tensor<i64>
  // CHECK: aten.amin %{{.*}} {dim = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<5xf32>
  %2 = aten.amin %x {dim = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<5xf32>
  // CHECK: aten.all_dims %{{.*}} : (tensor<4x5xi32>) -> tensor<i1>
  %3 = aten.all_dims %i : (tensor<4x5xi32>) -> tensor<i1>
  // CHECK: aten.count_nonzero %{{.*}} {dim = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi64>
  %4 = aten.count_nonzero %i {dim = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi64>
  // CHECK: aten.linalg_vector_norm %{{.*}} {ord = 0x7FF0000000000000 : f64} : (tensor<4x5xf32>) -> tensor<f32>
  %5 = aten.linalg_vector_norm %x {ord = 0x7FF0000000000000 : f64} : (tensor<4x5xf32>) -> tensor<f32>
  // CHECK: aten.std_mean_correction %{{.*}} {correction = 0.000000e+00 : f64, dim = array<i64: 1>} : (tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %6:2 = aten.std_mean_correction %x {dim = array<i64: 1>, correction = 0.0 : f64} : (tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  // CHECK: aten.min_dim %{{.*}} {dim = 0 : i64} : (tensor<4x5xi32>) -> (tensor<5xi32>, tensor<5xi64>)
  %7:2 = aten.min_dim %i {dim = 0 : i64} : (tensor<4x5xi32>) -> (tensor<5xi32>, tensor<5xi64>)
  // CHECK: aten.argmin %{{.*}} {dim = 1 : i64, keepdim = true} : (tensor<4x5xf32>) -> tensor<4x1xi64>
  %8 = aten.argmin %x {dim = 1 : i64, keepdim = true} : (tensor<4x5xf32>) -> tensor<4x1xi64>
  // CHECK: aten.cumprod %{{.*}} {dim = 1 : i64, dtype = f64} : (tensor<4x5xi32>) -> tensor<4x5xf64>
  %9 = aten.cumprod %i {dim = 1 : i64, dtype = f64} : (tensor<4x5xi32>) -> tensor<4x5xf64>
  // CHECK: aten.logsumexp %{{.*}} {dim = array<i64: -1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  %10 = aten.logsumexp %x {dim = array<i64: -1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @normalization_more
func.func @normalization_more(%x: tensor<2x6x5xf32>, %c: tensor<6xf32>, %w: tensor<5xf32>, %h: tensor<2x6xf16>) {
  // CHECK: aten._softmax %{{.*}} {dim = 1 : i64, half_to_float = true} : (tensor<2x6xf16>) -> tensor<2x6xf32>
  %0 = aten._softmax %h {dim = 1 : i64, half_to_float = true} : (tensor<2x6xf16>) -> tensor<2x6xf32>
  // CHECK: aten.log_softmax_int %{{.*}} {dim = 0 : i64, dtype = f32} : (tensor<2x6xf16>) -> tensor<2x6xf32>
  %1 = aten.log_softmax_int %h {dim = 0 : i64, dtype = f32} : (tensor<2x6xf16>) -> tensor<2x6xf32>
  // CHECK: aten.rms_norm %{{.*}} weight %{{.*}} {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 5>} : (tensor<2x6x5xf32>, tensor<5xf32>) -> tensor<2x6x5xf32>
  %2 = aten.rms_norm %x weight %w {normalized_shape = array<i64: 5>, eps = 1.0e-6 : f64} : (tensor<2x6x5xf32>, tensor<5xf32>) -> tensor<2x6x5xf32>
  // CHECK: aten.group_norm %{{.*}} weight %{{.*}} bias %{{.*}} {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  %3 = aten.group_norm %x weight %c bias %c {num_groups = 3 : i64} : (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x5xf32>
  // CHECK: aten.instance_norm %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, use_input_stats = true} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  %4 = aten.instance_norm %x {use_input_stats = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  // CHECK: aten.native_batch_norm %{{.*}} weight %{{.*}} {eps = 1.000000e-05 : f64, momentum = 1.000000e-01 : f64, training = true} : (tensor<2x6x5xf32>, tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>)
  %5:3 = aten.native_batch_norm %x weight %c {training = true, momentum = 0.1 : f64, eps = 1.0e-5 : f64} : (tensor<2x6x5xf32>, tensor<6xf32>) -> (tensor<2x6x5xf32>, tensor<6xf32>, tensor<6xf32>)
  return
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<2x4x5x8xf32>, %k: tensor<2x2x6x8xf32>, %m: tensor<5x6xi1>) {
  // CHECK: aten.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} {enable_gqa = true, is_causal = true, scale = 1.250000e-01 : f64} : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<5x6xi1>) -> tensor<2x4x5x8xf32>
  %0 = aten.scaled_dot_product_attention %q, %k, %k mask %m {is_causal = true, scale = 0.125 : f64, enable_gqa = true} : (tensor<2x4x5x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>, tensor<5x6xi1>) -> tensor<2x4x5x8xf32>
  return
}
