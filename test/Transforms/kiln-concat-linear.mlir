// RUN: kiln-opt %s --split-input-file --kiln-concat-linear | FileCheck %s

// Query, key and value projections of one input (grouped-query widths 16, 4,
// 4), each with a bias: one linear layer reading two derived arguments (the
// weights and the biases stacked along dim 0 at load), then one slice of its
// last dim per original layer. A dynamic batch dim stays dynamic.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x8x16xf32> {kiln.kind = "input", kiln.name = "x"}
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<24x16xf32> {kiln.derive = {eps = 0.000000e+00 : f64, from = ["q.weight", "k.weight", "v.weight"], recipe = "concat-rows"}, kiln.kind = "derived", kiln.name = "q.weight#cat"}
// CHECK-SAME: %[[B:[a-z0-9]+]]: tensor<24xf32> {kiln.derive = {eps = 0.000000e+00 : f64, from = ["q.bias", "k.bias", "v.bias"], recipe = "concat-rows"}, kiln.kind = "derived", kiln.name = "q.weight#cat_bias"}
// CHECK-NEXT: %[[S:.*]] = aten.linear %[[X]], %[[W]], %[[B]] : (tensor<?x8x16xf32>, tensor<24x16xf32>, tensor<24xf32>) -> tensor<?x8x24xf32>
// CHECK-NEXT: %[[Q:.*]] = aten.slice_tensor %[[S]][0, 16] {dim = 2 : i64} : tensor<?x8x24xf32> -> tensor<?x8x16xf32>
// CHECK-NEXT: %[[K:.*]] = aten.slice_tensor %[[S]][16, 20] {dim = 2 : i64} : tensor<?x8x24xf32> -> tensor<?x8x4xf32>
// CHECK-NEXT: %[[V:.*]] = aten.slice_tensor %[[S]][20, 24] {dim = 2 : i64} : tensor<?x8x24xf32> -> tensor<?x8x4xf32>
// CHECK-NOT: aten.linear
// CHECK: return %[[Q]], %[[K]], %[[V]]
func.func @forward(%wq: tensor<16x16xf32> {kiln.kind = "param", kiln.name = "q.weight"},
                   %bq: tensor<16xf32> {kiln.kind = "param", kiln.name = "q.bias"},
                   %wk: tensor<4x16xf32> {kiln.kind = "param", kiln.name = "k.weight"},
                   %bk: tensor<4xf32> {kiln.kind = "param", kiln.name = "k.bias"},
                   %wv: tensor<4x16xf32> {kiln.kind = "param", kiln.name = "v.weight"},
                   %bv: tensor<4xf32> {kiln.kind = "param", kiln.name = "v.bias"},
                   %x: tensor<?x8x16xf32> {kiln.kind = "input", kiln.name = "x"})
    -> (tensor<?x8x16xf32>, tensor<?x8x4xf32>, tensor<?x8x4xf32>) {
  %q = aten.linear %x, %wq, %bq : (tensor<?x8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<?x8x16xf32>
  %k = aten.linear %x, %wk, %bk : (tensor<?x8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<?x8x4xf32>
  %v = aten.linear %x, %wv, %bv : (tensor<?x8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<?x8x4xf32>
  return %q, %k, %v : tensor<?x8x16xf32>, tensor<?x8x4xf32>, tensor<?x8x4xf32>
}

// -----

// A gated MLP (bf16, no biases): gate and up become one product; the down
// projection reads another input and stays. The stacked layer's slice feeds
// the next group's input (a chain of groups).
// CHECK-LABEL: func.func @forward
// CHECK-SAME: tensor<12x4xbf16> {kiln.derive = {eps = 0.000000e+00 : f64, from = ["gate.weight", "up.weight"], recipe = "concat-rows"}, kiln.kind = "derived", kiln.name = "gate.weight#cat"}
// CHECK-SAME: tensor<4x6xbf16> {kiln.derive = {eps = 0.000000e+00 : f64, from = ["a.weight", "b.weight"], recipe = "concat-rows"}, kiln.kind = "derived", kiln.name = "a.weight#cat"}
// CHECK: %[[S:.*]] = aten.linear %{{.*}}, %{{.*}} : (tensor<2x4xbf16>, tensor<12x4xbf16>) -> tensor<2x12xbf16>
// CHECK-NEXT: %[[G:.*]] = aten.slice_tensor %[[S]][0, 6] {dim = 1 : i64}
// CHECK-NEXT: %[[U:.*]] = aten.slice_tensor %[[S]][6, 12] {dim = 1 : i64}
// CHECK: %[[S2:.*]] = aten.linear %[[G]], %{{.*}} : (tensor<2x6xbf16>, tensor<4x6xbf16>) -> tensor<2x4xbf16>
// CHECK: aten.linear %{{.*}}, %{{.*}} : (tensor<2x6xbf16>, tensor<4x6xbf16>) -> tensor<2x4xbf16>
func.func @forward(%wg: tensor<6x4xbf16> {kiln.kind = "param", kiln.name = "gate.weight"},
                   %wu: tensor<6x4xbf16> {kiln.kind = "param", kiln.name = "up.weight"},
                   %wa: tensor<2x6xbf16> {kiln.kind = "param", kiln.name = "a.weight"},
                   %wb: tensor<2x6xbf16> {kiln.kind = "param", kiln.name = "b.weight"},
                   %wd: tensor<4x6xbf16> {kiln.kind = "param", kiln.name = "down.weight"},
                   %x: tensor<2x4xbf16> {kiln.kind = "input", kiln.name = "x"})
    -> (tensor<2x4xbf16>, tensor<2x2xbf16>, tensor<2x2xbf16>) {
  %g = aten.linear %x, %wg : (tensor<2x4xbf16>, tensor<6x4xbf16>) -> tensor<2x6xbf16>
  %u = aten.linear %x, %wu : (tensor<2x4xbf16>, tensor<6x4xbf16>) -> tensor<2x6xbf16>
  %a = aten.linear %g, %wa : (tensor<2x6xbf16>, tensor<2x6xbf16>) -> tensor<2x2xbf16>
  %b = aten.linear %g, %wb : (tensor<2x6xbf16>, tensor<2x6xbf16>) -> tensor<2x2xbf16>
  %m = aten.mul_tensor %g, %u : (tensor<2x6xbf16>, tensor<2x6xbf16>) -> tensor<2x6xbf16>
  %d = aten.linear %m, %wd : (tensor<2x6xbf16>, tensor<4x6xbf16>) -> tensor<2x4xbf16>
  return %d, %a, %b : tensor<2x4xbf16>, tensor<2x2xbf16>, tensor<2x2xbf16>
}

// -----

// Left alone: a bias on one layer and not the other (each alone in its
// group), a weight the program updates, a weight that is an input, two
// element types, and one layer that reads the same weight twice.
// CHECK-LABEL: func.func @forward
// CHECK-NOT: kiln.derive
// CHECK-NOT: aten.slice_tensor
// CHECK: return
func.func @forward(%w1: tensor<4x4xf32> {kiln.kind = "param", kiln.name = "a.weight"},
                   %b1: tensor<4xf32> {kiln.kind = "param", kiln.name = "a.bias"},
                   %w2: tensor<4x4xf32> {kiln.kind = "param", kiln.name = "b.weight"},
                   %w3: tensor<4x4xf32> {kiln.kind = "buffer", kiln.name = "c.weight"},
                   %w4: tensor<4x4xf32> {kiln.kind = "input", kiln.name = "d"},
                   %w5: tensor<4x4xf16> {kiln.kind = "param", kiln.name = "e.weight"},
                   %x: tensor<2x4xf32> {kiln.kind = "input", kiln.name = "x"},
                   %h: tensor<2x4xf16> {kiln.kind = "input", kiln.name = "h"})
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf16>, tensor<2x4xf32>,
        tensor<4x4xf32> {kiln.update = "buffer", kiln.name = "c.weight"}) {
  %a = aten.linear %x, %w1, %b1 : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %b = aten.linear %x, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %c = aten.linear %x, %w3 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %d = aten.linear %x, %w4 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %e = aten.linear %h, %w5 : (tensor<2x4xf16>, tensor<4x4xf16>) -> tensor<2x4xf16>
  %f = aten.linear %x, %w2 : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %a, %b, %c, %d, %e, %f, %w3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf16>, tensor<2x4xf32>, tensor<4x4xf32>
}
