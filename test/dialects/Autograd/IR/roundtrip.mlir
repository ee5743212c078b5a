// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Every autograd op parses, prints, and parses again to the same thing.

func.func private @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.mul_tensor %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = aten.mean_dim %x : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @vjp
// CHECK: autograd.vjp @f(%{{.*}}, %{{.*}}) cotangents(%{{.*}}) wrt [1] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
func.func @vjp(%x: tensor<4xf32>, %w: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %gw = autograd.vjp @f(%x, %w) cotangents(%c) wrt [1]
      : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %gw : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @grad
// CHECK: autograd.grad @loss(%{{.*}}) wrt [0] : (tensor<4xf32>) -> tensor<f32>, tensor<4xf32>
func.func @grad(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %v, %g = autograd.grad @loss(%x) wrt [0] : (tensor<4xf32>) -> tensor<f32>, tensor<4xf32>
  return %v, %g : tensor<f32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @jvp
// CHECK: autograd.jvp @f(%{{.*}}, %{{.*}}) tangents(%{{.*}}, %{{.*}}) wrt [0, 1] : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
func.func @jvp(%x: tensor<4xf32>, %w: tensor<4xf32>, %tx: tensor<4xf32>, %tw: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y, %ty = autograd.jvp @f(%x, %w) tangents(%tx, %tw) wrt [0, 1]
      : (tensor<4xf32>, tensor<4xf32>), (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, tensor<4xf32>
  return %y, %ty : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @stop
// CHECK: autograd.stop_gradient %{{.*}} : tensor<4xf32>
func.func @stop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autograd.stop_gradient %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @vmap
// CHECK: autograd.vmap @f(%{{.*}}, %{{.*}}) in_dims [1, -1] out_dims [0] : (tensor<4x?xf32>, tensor<4xf32>) -> tensor<?x4xf32>
func.func @vmap(%xs: tensor<4x?xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = autograd.vmap @f(%xs, %w) in_dims [1, -1] out_dims [0] : (tensor<4x?xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
