// Cutting a value-and-gradient entry into its forward and backward halves.
// RUN: kiln-opt %s -split-input-file -autograd-differentiate=remat=1 -symbol-dce -autograd-split-grad=half=forward | FileCheck %s --check-prefix=FWD
// RUN: kiln-opt %s -split-input-file -autograd-differentiate=remat=1 -symbol-dce -autograd-split-grad=half=backward | FileCheck %s --check-prefix=BWD
// RUN: not kiln-opt %s -split-input-file -autograd-split-grad=half=sideways 2>&1 | FileCheck %s --check-prefix=HALF

// A product, tanh, a random mask and a running statistic. The forward keeps
// the random draw, the product and the state update; the backward reads the
// mask and the product (residuals/0, /1: the cut rebuilds the tanh from the
// product, marked), the user input x as it is (residuals/input0) and the
// weight w as a weight, whose transpose it rebuilds itself. Nothing of the
// forward's product or random draw is in the backward.
// HALF: autograd-split-grad: half must be 'forward' or 'backward', got 'sideways'
// FWD-LABEL: module attributes {kiln.residual_bytes = 256 : i64
// FWD: func.func @forward(%{{[a-z0-9]+}}: tensor<4x8xf32> {{[^)]*}}"x"}, %{{[a-z0-9]+}}: tensor<8x8xf32> {{[^)]*}}"w"}, %[[RM:[a-z0-9]+]]: tensor<8xf32> {{[^)]*}}"rm"}, %[[S:[a-z0-9]+]]: tensor<2xi64> {{[^)]*}}"rng"})
// FWD-SAME: -> (tensor<4x8xf32> {kiln.name = "y"}, tensor<4x8xf32> {kiln.dims = [4, 8], kiln.name = "residuals/0"}, tensor<4x8xf32> {kiln.dims = [4, 8], kiln.name = "residuals/1"}, tensor<8xf32> {kiln.name = "rm", kiln.update = "buffer"})
// FWD: %[[H:.*]] = aten.mm
// FWD: %[[U:.*]] = aten.random %[[S]]
// FWD: %[[Y:.*]] = aten.mul_tensor %{{.*}}, %[[U]]
// FWD: %[[NEW:.*]] = aten.add_tensor %[[RM]]
// FWD: return %[[Y]], %[[U]], %[[H]], %[[NEW]]
// FWD-NOT: cotangent
// BWD: func.func @forward(%[[W:[a-z0-9]+]]: tensor<8x8xf32> {kiln.kind = "param", kiln.name = "w"}, %[[X:[a-z0-9]+]]: tensor<4x8xf32> {{[^)]*}}kiln.name = "residuals/input0"}, %[[U:[a-z0-9]+]]: tensor<4x8xf32> {{[^)]*}}kiln.name = "residuals/0"}, %[[H:[a-z0-9]+]]: tensor<4x8xf32> {{[^)]*}}kiln.name = "residuals/1"}, %[[C:[a-z0-9]+]]: tensor<4x8xf32> {kiln.kind = "input", kiln.name = "cotangent0"})
// BWD-SAME: -> (tensor<4x8xf32> {kiln.name = "grads/input0"}, tensor<8x8xf32> {kiln.name = "grads/w"})
// BWD-NOT: aten.random
// BWD-NOT: aten.mm
// BWD: aten.mul_tensor %[[C]], %[[U]]
// BWD: aten.tanh %[[H]] {autograd.recomputed}
// BWD: aten.permute %[[W]] {autograd.recomputed
// BWD: aten.permute %[[X]]
// BWD-NOT: aten.random
// BWD-NOT: aten.add_tensor
// BWD: return
func.func private @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %rm: tensor<8xf32>, %s: tensor<2xi64>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %wt = aten.permute %w {dims = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = aten.mm %x, %wt : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = aten.tanh %h : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = aten.random %s, [4, 8] {distribution = "uniform", stream = 0 : i64} : tensor<2xi64> -> tensor<4x8xf32>
  %y = aten.mul_tensor %t, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %mean = aten.mean_dim %h {dim = array<i64: 0>, keepdim = false} : (tensor<4x8xf32>) -> tensor<8xf32>
  %new = aten.add_tensor %rm, %mean : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %stop = autograd.stop_gradient %new : tensor<8xf32>
  return %y, %stop : tensor<4x8xf32>, tensor<8xf32>
}
func.func @forward(%x: tensor<4x8xf32> {kiln.kind = "input", kiln.name = "x", kiln.dims = [4, 8]},
                   %w: tensor<8x8xf32> {kiln.kind = "param", kiln.name = "w"},
                   %rm: tensor<8xf32> {kiln.kind = "buffer", kiln.name = "rm"},
                   %s: tensor<2xi64> {kiln.kind = "rng", kiln.name = "rng"},
                   %c: tensor<4x8xf32> {kiln.kind = "input", kiln.name = "cotangent0"})
    -> (tensor<4x8xf32> {kiln.name = "y"}, tensor<4x8xf32> {kiln.name = "grads/input0"},
        tensor<8x8xf32> {kiln.name = "grads/w"}, tensor<8xf32> {kiln.name = "rm", kiln.update = "buffer"}) {
  %y, %new, %gx, %gw = autograd.vjp @f(%x, %w, %rm, %s) cotangents(%c, %rm) wrt [0, 1]
      : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<2xi64>), (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<8x8xf32>
  return %y, %gx, %gw, %new : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
}

// -----

// The sigmoid's rule reads its result, which is the output: it crosses as
// that output (residuals/output0), not as a copy. The forward writes the
// input %x (a state update of kind input), and the backward reads %x: the
// forward returns its value before the update (residuals/0), since the
// caller's tensor holds the new value once the forward has run.
// FWD-LABEL: module attributes {kiln.residual_bytes = 128 : i64, {{.*}}kiln.split_model_inputs = 2 : i64
// FWD: func.func @forward(%[[X:[a-z0-9]+]]: tensor<4x8xf32> {{[^)]*}}, %{{[a-z0-9]+}}: tensor<8x8xf32> {{[^)]*}})
// FWD-SAME: -> (tensor<4x8xf32> {kiln.name = "s"}, tensor<4x8xf32> {kiln.dims = [4, 8], kiln.name = "residuals/0"}, tensor<4x8xf32> {kiln.name = "x", kiln.update = "input"})
// FWD: return %{{.*}}, %[[X]], %{{.*}}
// BWD: func.func @forward(%{{[a-z0-9]+}}: tensor<8x8xf32> {{[^)]*}}"residuals/input1"}, %[[S:[a-z0-9]+]]: tensor<4x8xf32> {{[^)]*}}"residuals/output0"}, %{{[a-z0-9]+}}: tensor<4x8xf32> {{[^)]*}}"residuals/0"}, %{{[a-z0-9]+}}: tensor<4x8xf32> {{[^)]*}}"cotangent0"})
// BWD-SAME: -> (tensor<4x8xf32> {kiln.name = "grads/input0"}, tensor<8x8xf32> {kiln.name = "grads/input1"})
// BWD-NOT: aten.sigmoid
// BWD: aten.mul_tensor %[[S]], %{{.*}}
// BWD: return
func.func private @g(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %o = aten.mm %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = aten.sigmoid %o : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %n = aten.neg %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %stop = autograd.stop_gradient %n : tensor<4x8xf32>
  return %s, %stop : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @forward(%x: tensor<4x8xf32> {kiln.kind = "input", kiln.name = "x"},
                   %w: tensor<8x8xf32> {kiln.kind = "input", kiln.name = "w"},
                   %c: tensor<4x8xf32> {kiln.kind = "input", kiln.name = "cotangent0"})
    -> (tensor<4x8xf32> {kiln.name = "s"}, tensor<4x8xf32> {kiln.name = "grads/input0"},
        tensor<8x8xf32> {kiln.name = "grads/input1"}, tensor<4x8xf32> {kiln.name = "x", kiln.update = "input"}) {
  %s, %new, %gx, %gw = autograd.vjp @g(%x, %w) cotangents(%c, %x) wrt [0, 1]
      : (tensor<4x8xf32>, tensor<8x8xf32>), (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>
  return %s, %gx, %gw, %new : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>
}

// -----

// A dynamic size the forward computes from its own values (not an
// argument's) crosses as the first dim of an empty tensor<?x0xi8>: no data,
// so nothing moves between host and device; the backward reads the dim. (A
// size of an argument is recomputed instead.)
// FWD-LABEL: module attributes {kiln.residual_bytes = 0 : i64, kiln.split_model_inputs = 1 : i64}
// FWD: -> (tensor<?x4xf32> {kiln.name = "y"}, tensor<?x0xi8> {kiln.dims = ["?", 0], kiln.name = "residuals/0"})
// FWD: %[[N:.*]] = tensor.dim
// FWD: %[[T:.*]] = tensor.empty(%[[N]]) : tensor<?x0xi8>
// FWD: return %{{.*}}, %[[T]]
// BWD: func.func @forward(%[[R:[a-z0-9]+]]: tensor<?x0xi8> {{[^)]*}}"residuals/0"}, %[[C:[a-z0-9]+]]: tensor<?x4xf32> {{[^)]*}}"cotangent0"})
// BWD: %[[N:.*]] = tensor.dim %[[R]], %{{.*}} : tensor<?x0xi8>
// BWD: aten.expand %{{.*}}[%[[N]], 4]
// BWD-NOT: aten.relu
func.func @forward(%x: tensor<?x4xf32> {kiln.kind = "input", kiln.name = "x"},
                   %c: tensor<?x4xf32> {kiln.kind = "input", kiln.name = "cotangent0"})
    -> (tensor<?x4xf32> {kiln.name = "y"}, tensor<?x4xf32> {kiln.name = "grads/input0"}) {
  %c0 = arith.constant 0 : index
  %one = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %h = aten.relu %x : tensor<?x4xf32>
  %n = tensor.dim %h, %c0 : tensor<?x4xf32>
  %e = aten.expand %one[%n, 4] : tensor<f32> -> tensor<?x4xf32>
  %y = aten.mul_tensor %h, %e : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %e2 = aten.expand %two[%n, 4] : tensor<f32> -> tensor<?x4xf32>
  %g = aten.mul_tensor %c, %e2 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y, %g : tensor<?x4xf32>, tensor<?x4xf32>
}
