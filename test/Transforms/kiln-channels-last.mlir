// RUN: kiln-opt %s --kiln-channels-last="slices=true" --canonicalize | FileCheck %s
// RUN: kiln-opt %s --kiln-channels-last --canonicalize | FileCheck %s --check-prefix=NOSLICES
// RUN: kiln-opt %s --kiln-channels-last="grouped=true" --canonicalize | FileCheck %s --check-prefix=GROUPED
// RUN: kiln-opt %s --kiln-channels-last="grouped=true depthwise=false" --canonicalize | FileCheck %s --check-prefix=NODW
// RUN: kiln-opt %s --kiln-channels-last="grouped=true depthwise-hwc=true" --canonicalize | FileCheck %s --check-prefix=DWHWC

// A stem convolution, batch norm and ReLU, max pooling, a 1x1 convolution,
// a residual add and a sum over H and W. Every op runs in NHWC: the only
// transpose left is the one of the entry's input, whose zero padding is then
// a pad of the NHWC tensor (it folds into the cuDNN call later); the
// filters become arguments in (F, KH, KW, C) order, listed in
// kiln.weight_layouts; the per-channel scale is read along the last dim;
// the reduction reads the NHWC tensor through its map.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// GROUPED-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[W1:.*]]: tensor<8x3x3x4xf32> {kiln.kind = "param", kiln.name = "c1.weight"}
// CHECK-SAME: %[[SCALE:.*]]: tensor<8xf32>
// CHECK-SAME: %[[W2:.*]]: tensor<8x1x1x8xf32> {kiln.kind = "param", kiln.name = "c2.weight"}
// CHECK-SAME: %[[X:.*]]: tensor<2x4x16x16xf32> {kiln.kind = "input", kiln.name = "x"}
// CHECK-SAME: attributes {kiln.weight_layouts = {c1.weight = array<i64: 0, 2, 3, 1>, c2.weight = array<i64: 0, 2, 3, 1>}}
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<2x4x16x16xf32>) outs(%{{.*}} : tensor<2x16x16x4xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[XP:.*]] = tensor.pad %[[XT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[XP]], %[[W1]] : tensor<2x18x18x4xf32>, tensor<8x3x3x4xf32>) outs(%{{.*}} : tensor<2x16x16x8xf32>)
// CHECK: %[[BN:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], {{.*}} ins(%[[C1]], %[[SCALE]] : tensor<2x16x16x8xf32>, tensor<8xf32>)
// CHECK: %[[PP:.*]] = tensor.pad %[[BN]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[MP:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[PP]], %{{.*}} : tensor<2x18x18x8xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<2x8x8x8xf32>)
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[MP]], %[[W2]] : tensor<2x8x8x8xf32>, tensor<8x1x1x8xf32>)
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], {{.*}} ins(%[[C2]], %[[MP]] : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[ADD]] : tensor<2x8x8x8xf32>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[SUM]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @block(%w1: tensor<8x4x3x3xf32> {kiln.kind = "param", kiln.name = "c1.weight"},
                 %scale: tensor<8xf32> {kiln.kind = "param", kiln.name = "bn.weight"},
                 %w2: tensor<8x8x1x1xf32> {kiln.kind = "param", kiln.name = "c2.weight"},
                 %x: tensor<2x4x16x16xf32> {kiln.kind = "input", kiln.name = "x"}) -> tensor<2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x4x16x16xf32> to tensor<2x4x18x18xf32>
  %e0 = tensor.empty() : tensor<2x8x16x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%px, %w1 : tensor<2x4x18x18xf32>, tensor<8x4x3x3xf32>) outs(%f0 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %e1 = tensor.empty() : tensor<2x8x16x16xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %scale : tensor<2x8x16x16xf32>, tensor<8xf32>) outs(%e1 : tensor<2x8x16x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16x16xf32>
  %pp = tensor.pad %bn low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x8x16x16xf32> to tensor<2x8x18x18xf32>
  %e2 = tensor.empty() : tensor<2x8x8x8xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%pp, %win : tensor<2x8x18x18xf32>, tensor<3x3xf32>) outs(%f2 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %e3 = tensor.empty() : tensor<2x8x8x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%mp, %w2 : tensor<2x8x8x8xf32>, tensor<8x8x1x1xf32>) outs(%f3 : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %e4 = tensor.empty() : tensor<2x8x8x8xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %mp : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) outs(%e4 : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x8x8xf32>
  %e5 = tensor.empty() : tensor<2x8xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%add : tensor<2x8x8x8xf32>) outs(%f5 : tensor<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  return %sum : tensor<2x8xf32>
}

// A dynamic batch, a biased convolution and an add of an NCHW input:
// - the bias broadcast that initialises the convolution is computed in NHWC;
// - the add has a full-size input in NCHW, so it stays NCHW and reads the
//   convolution's NHWC result through its map;
// - the filter, also returned, keeps its layout and is transposed in the
//   program (no kiln.weight_layouts).
// CHECK-LABEL: func.func @mixed(
// CHECK-SAME: %[[W:.*]]: tensor<6x4x1x1xf32> {kiln.kind = "param", kiln.name = "w"}
// CHECK-SAME: %[[B:.*]]: tensor<6xf32>
// CHECK-SAME: %[[X:[a-z0-9]*]]: tensor<?x4x5x5xf32>
// CHECK-SAME: %[[Y:[a-z0-9]*]]: tensor<?x6x5x5xf32>
// CHECK-NOT: kiln.weight_layouts
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<?x4x5x5xf32>) outs(%{{.*}} : tensor<?x5x5x4xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<6x4x1x1xf32>) outs(%{{.*}} : tensor<6x1x1x4xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[BIAS:.*]] = linalg.generic {indexing_maps = [#[[LAST]], #[[ID]]], {{.*}} ins(%[[B]] : tensor<6xf32>) outs(%{{.*}} : tensor<?x5x5x6xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[XT]], %[[WT]] : tensor<?x5x5x4xf32>, tensor<6x1x1x4xf32>) outs(%[[BIAS]] : tensor<?x5x5x6xf32>)
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[READ]], #[[ID]], #[[ID]]], {{.*}} ins(%[[C]], %[[Y]] : tensor<?x5x5x6xf32>, tensor<?x6x5x5xf32>) outs(%{{.*}} : tensor<?x6x5x5xf32>)
// CHECK: return %[[ADD]], %[[W]]
func.func @mixed(%w: tensor<6x4x1x1xf32> {kiln.kind = "param", kiln.name = "w"},
                 %b: tensor<6xf32> {kiln.kind = "param", kiln.name = "b"},
                 %x: tensor<?x4x5x5xf32> {kiln.kind = "input", kiln.name = "x"},
                 %y: tensor<?x6x5x5xf32> {kiln.kind = "input", kiln.name = "y"}) -> (tensor<?x6x5x5xf32>, tensor<6x4x1x1xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x5x5xf32>
  %e0 = tensor.empty(%n) : tensor<?x6x5x5xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<6xf32>) outs(%e0 : tensor<?x6x5x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x6x5x5xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x4x5x5xf32>, tensor<6x4x1x1xf32>) outs(%bias : tensor<?x6x5x5xf32>) -> tensor<?x6x5x5xf32>
  %e1 = tensor.empty(%n) : tensor<?x6x5x5xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %y : tensor<?x6x5x5xf32>, tensor<?x6x5x5xf32>) outs(%e1 : tensor<?x6x5x5xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x6x5x5xf32>
  return %sum, %w : tensor<?x6x5x5xf32>, tensor<6x4x1x1xf32>
}


// Grouped and depthwise convolutions (as the aten lowering emits them:
// conv_2d_ngchw_gfchw between expand_shapes that split the channels into
// groups and a collapse_shape that merges them back) run in NHWC as
// conv_2d_nhwgc_gfhwc with `grouped`: a depthwise 3x3 (4 groups of 1), a
// ReLU, then a 1x1 convolution of 2 groups. Both filters become arguments in (F, KH, KW, C/G)
// order and no transpose is left but the input's. By default they stay
// NCHW.
// CHECK-LABEL: func.func @grouped(
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: kiln.weight_layouts
// With depthwise=false (the CUDA default) the depthwise one stays NCHW and
// the grouped 1x1 of two channels per group goes NHWC.
// NODW-LABEL: func.func @grouped(
// NODW: linalg.conv_2d_ngchw_gfchw
// NODW-NOT: linalg.conv_2d_ngchw_gfchw
// NODW: linalg.conv_2d_nhwgc_gfhwc
// With depthwise-hwc (the CUDA default, generated depthwise kernels) the
// depthwise one is linalg.depthwise_conv_2d_nhwc_hwc, its filter an argument
// in (KH, KW, 1, C) order (layout 2 3 1 0) viewed as (KH, KW, C); the grouped
// 1x1 is unchanged.
// DWHWC-LABEL: func.func @grouped(
// DWHWC-SAME: %[[W1:.*]]: tensor<3x3x1x4xf32> {kiln.kind = "param", kiln.name = "dw.weight"}
// DWHWC-SAME: attributes {kiln.weight_layouts = {dw.weight = array<i64: 2, 3, 1, 0>, pw.weight = array<i64: 0, 2, 3, 1>}}
// DWHWC: %[[W1C:.*]] = tensor.collapse_shape %[[W1]] {{\[\[}}0], [1], [2, 3]] : tensor<3x3x1x4xf32> into tensor<3x3x4xf32>
// DWHWC: %[[XP:.*]] = tensor.pad
// DWHWC: %[[C1:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[XP]], %[[W1C]] : tensor<2x10x10x4xf32>, tensor<3x3x4xf32>) outs(%{{.*}} : tensor<2x8x8x4xf32>)
// DWHWC: linalg.generic {{.*}} ins(%[[C1]] : tensor<2x8x8x4xf32>)
// DWHWC: linalg.conv_2d_nhwgc_gfhwc
// DWHWC-NOT: linalg.conv_2d_ngchw_gfchw
// GROUPED-LABEL: func.func @grouped(
// GROUPED-SAME: %[[W1:.*]]: tensor<4x3x3x1xf32> {kiln.kind = "param", kiln.name = "dw.weight"}
// GROUPED-SAME: %[[W2:.*]]: tensor<6x1x1x2xf32> {kiln.kind = "param", kiln.name = "pw.weight"}
// GROUPED-SAME: attributes {kiln.weight_layouts = {dw.weight = array<i64: 0, 2, 3, 1>, pw.weight = array<i64: 0, 2, 3, 1>}}
// GROUPED: %[[XT:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<2x8x8x4xf32>) permutation = [0, 2, 3, 1]
// GROUPED: %[[XP:.*]] = tensor.pad %[[XT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// GROUPED: %[[XG:.*]] = tensor.expand_shape %[[XP]] {{\[\[}}0], [1], [2], [3, 4]] {{.*}} into tensor<2x10x10x4x1xf32>
// GROUPED: %[[W1G:.*]] = tensor.expand_shape %[[W1]] {{\[\[}}0, 1], [2], [3], [4]] {{.*}} into tensor<4x1x3x3x1xf32>
// GROUPED: %[[C1:.*]] = linalg.conv_2d_nhwgc_gfhwc {{.*}} ins(%[[XG]], %[[W1G]] : tensor<2x10x10x4x1xf32>, tensor<4x1x3x3x1xf32>) outs(%{{.*}} : tensor<2x8x8x4x1xf32>)
// GROUPED: %[[M1:.*]] = tensor.collapse_shape %[[C1]] {{\[\[}}0], [1], [2], [3, 4]] {{.*}} into tensor<2x8x8x4xf32>
// GROUPED: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.*}} ins(%[[M1]] : tensor<2x8x8x4xf32>)
// GROUPED: %[[RG:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1], [2], [3, 4]] {{.*}} into tensor<2x8x8x2x2xf32>
// GROUPED: %[[W2G:.*]] = tensor.expand_shape %[[W2]] {{\[\[}}0, 1], [2], [3], [4]] {{.*}} into tensor<2x3x1x1x2xf32>
// GROUPED: %[[C2:.*]] = linalg.conv_2d_nhwgc_gfhwc {{.*}} ins(%[[RG]], %[[W2G]] : tensor<2x8x8x2x2xf32>, tensor<2x3x1x1x2xf32>) outs(%{{.*}} : tensor<2x8x8x2x3xf32>)
// GROUPED: %[[M2:.*]] = tensor.collapse_shape %[[C2]] {{\[\[}}0], [1], [2], [3, 4]] {{.*}} into tensor<2x8x8x6xf32>
// GROUPED: %[[OUT:.*]] = linalg.transpose ins(%[[M2]] : tensor<2x8x8x6xf32>) outs(%{{.*}} : tensor<2x6x8x8xf32>) permutation = [0, 3, 1, 2]
// GROUPED-NOT: linalg.transpose
// GROUPED: return %[[OUT]]
func.func @grouped(%w1: tensor<4x1x3x3xf32> {kiln.kind = "param", kiln.name = "dw.weight"},
                   %w2: tensor<6x2x1x1xf32> {kiln.kind = "param", kiln.name = "pw.weight"},
                   %x: tensor<2x4x8x8xf32> {kiln.kind = "input", kiln.name = "x"}) -> tensor<2x6x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
  %e0 = tensor.empty() : tensor<2x4x8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %xg = tensor.expand_shape %px [[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 10, 10] : tensor<2x4x10x10xf32> into tensor<2x4x1x10x10xf32>
  %w1g = tensor.expand_shape %w1 [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : tensor<4x1x3x3xf32> into tensor<4x1x1x3x3xf32>
  %i1g = tensor.expand_shape %f0 [[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 8, 8] : tensor<2x4x8x8xf32> into tensor<2x4x1x8x8xf32>
  %c1 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xg, %w1g : tensor<2x4x1x10x10xf32>, tensor<4x1x1x3x3xf32>) outs(%i1g : tensor<2x4x1x8x8xf32>) -> tensor<2x4x1x8x8xf32>
  %m1 = tensor.collapse_shape %c1 [[0], [1, 2], [3], [4]] : tensor<2x4x1x8x8xf32> into tensor<2x4x8x8xf32>
  %e1 = tensor.empty() : tensor<2x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m1 : tensor<2x4x8x8xf32>) outs(%e1 : tensor<2x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %zero : f32
    linalg.yield %v : f32
  } -> tensor<2x4x8x8xf32>
  %e2 = tensor.empty() : tensor<2x6x8x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x6x8x8xf32>) -> tensor<2x6x8x8xf32>
  %rg = tensor.expand_shape %r [[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 8, 8] : tensor<2x4x8x8xf32> into tensor<2x2x2x8x8xf32>
  %w2g = tensor.expand_shape %w2 [[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 1, 1] : tensor<6x2x1x1xf32> into tensor<2x3x2x1x1xf32>
  %i2g = tensor.expand_shape %f2 [[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 8, 8] : tensor<2x6x8x8xf32> into tensor<2x2x3x8x8xf32>
  %c2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%rg, %w2g : tensor<2x2x2x8x8xf32>, tensor<2x3x2x1x1xf32>) outs(%i2g : tensor<2x2x3x8x8xf32>) -> tensor<2x2x3x8x8xf32>
  %m2 = tensor.collapse_shape %c2 [[0], [1, 2], [3], [4]] : tensor<2x2x3x8x8xf32> into tensor<2x6x8x8xf32>
  return %m2 : tensor<2x6x8x8xf32>
}

// The zeroed accumulator as canonicalisation leaves it: a fill of the split
// tensor, not a split of the fill. It becomes a fill of the NHWC tensor
// (which canonicalisation again writes as a fill of its split).
// CHECK-LABEL: func.func @grouped_fill_of_split(
// CHECK: linalg.conv_2d_ngchw_gfchw
// GROUPED-LABEL: func.func @grouped_fill_of_split(
// GROUPED-SAME: %{{.*}}: tensor<4x3x3x1xf32> {kiln.kind = "param", kiln.name = "dw.weight"}
// GROUPED: %[[FG:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8x8x4x1xf32>)
// GROUPED: linalg.conv_2d_nhwgc_gfhwc {{.*}} outs(%[[FG]] : tensor<2x8x8x4x1xf32>)
// GROUPED-NOT: linalg.conv_2d_ngchw_gfchw
func.func @grouped_fill_of_split(%w1: tensor<4x1x3x3xf32> {kiln.kind = "param", kiln.name = "dw.weight"},
                   %x: tensor<2x4x8x8xf32> {kiln.kind = "input", kiln.name = "x"}) -> tensor<2x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
  %e0 = tensor.empty() : tensor<2x4x8x8xf32>
  %xg = tensor.expand_shape %px [[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 10, 10] : tensor<2x4x10x10xf32> into tensor<2x4x1x10x10xf32>
  %w1g = tensor.expand_shape %w1 [[0, 1], [2], [3], [4]] output_shape [4, 1, 1, 3, 3] : tensor<4x1x3x3xf32> into tensor<4x1x1x3x3xf32>
  %e0g = tensor.expand_shape %e0 [[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 8, 8] : tensor<2x4x8x8xf32> into tensor<2x4x1x8x8xf32>
  %i1g = linalg.fill ins(%zero : f32) outs(%e0g : tensor<2x4x1x8x8xf32>) -> tensor<2x4x1x8x8xf32>
  %c1 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xg, %w1g : tensor<2x4x1x10x10xf32>, tensor<4x1x1x3x3xf32>) outs(%i1g : tensor<2x4x1x8x8xf32>) -> tensor<2x4x1x8x8xf32>
  %m1 = tensor.collapse_shape %c1 [[0], [1, 2], [3], [4]] : tensor<2x4x1x8x8xf32> into tensor<2x4x8x8xf32>
  return %m1 : tensor<2x4x8x8xf32>
}

// A concatenation of two convolutions' results along the channels (the
// aten lowering's inserts into an empty tensor), then a slice of it: both
// run in NHWC, at the NHWC offsets and sizes, so the only transposes left
// are the input's and the result's. An insert into a destination that is
// NCHW and not free to permute (an argument) stays NCHW.
// Without `slices` the concatenation stays NCHW.
// NOSLICES-LABEL: func.func @concat(
// NOSLICES: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x10x8x8xf32>
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[CW1:[^:]*]]: tensor<4x1x1x3xf32>
// CHECK-SAME: %[[CW2:[^:]*]]: tensor<6x1x1x3xf32>
// CHECK-SAME: %[[CD:[^:]*]]: tensor<1x8x8x8xf32>
// CHECK: %[[A:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %[[CW1]]
// CHECK: %[[B:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %[[CW2]]
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<1x8x8x6xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x8x10xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0, 0] [1, 8, 8, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> into tensor<1x8x8x10xf32>
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[B]] into %[[I1]][0, 0, 0, 4] [1, 8, 8, 6] [1, 1, 1, 1] : tensor<1x8x8x6xf32> into tensor<1x8x8x10xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[I2]][0, 0, 0, 2] [1, 8, 8, 5] [1, 1, 1, 1] : tensor<1x8x8x10xf32> to tensor<1x8x8x5xf32>
// CHECK: %[[ST:.*]] = linalg.transpose ins(%[[S]] : tensor<1x8x8x5xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK: %[[D:.*]] = tensor.insert_slice %[[BT]] into %[[CD]][0, 1, 0, 0] [1, 6, 8, 8] [1, 1, 1, 1] : tensor<1x6x8x8xf32> into tensor<1x8x8x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[ST]], %[[D]]
func.func @concat(%w1: tensor<4x3x1x1xf32> {kiln.kind = "param", kiln.name = "e1.weight"},
                  %w2: tensor<6x3x1x1xf32> {kiln.kind = "param", kiln.name = "e3.weight"},
                  %x: tensor<1x3x8x8xf32> {kiln.kind = "input", kiln.name = "x"},
                  %d: tensor<1x8x8x8xf32> {kiln.kind = "input", kiln.name = "d"}) -> (tensor<1x5x8x8xf32>, tensor<1x8x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x4x8x8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x3x8x8xf32>, tensor<4x3x1x1xf32>) outs(%f0 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %e1 = tensor.empty() : tensor<1x6x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x6x8x8xf32>) -> tensor<1x6x8x8xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w2 : tensor<1x3x8x8xf32>, tensor<6x3x1x1xf32>) outs(%f1 : tensor<1x6x8x8xf32>) -> tensor<1x6x8x8xf32>
  %cat0 = tensor.empty() : tensor<1x10x8x8xf32>
  %cat1 = tensor.insert_slice %a into %cat0[0, 0, 0, 0] [1, 4, 8, 8] [1, 1, 1, 1] : tensor<1x4x8x8xf32> into tensor<1x10x8x8xf32>
  %cat2 = tensor.insert_slice %b into %cat1[0, 4, 0, 0] [1, 6, 8, 8] [1, 1, 1, 1] : tensor<1x6x8x8xf32> into tensor<1x10x8x8xf32>
  %s = tensor.extract_slice %cat2[0, 2, 0, 0] [1, 5, 8, 8] [1, 1, 1, 1] : tensor<1x10x8x8xf32> to tensor<1x5x8x8xf32>
  %into = tensor.insert_slice %b into %d[0, 1, 0, 0] [1, 6, 8, 8] [1, 1, 1, 1] : tensor<1x6x8x8xf32> into tensor<1x8x8x8xf32>
  return %s, %into : tensor<1x5x8x8xf32>, tensor<1x8x8x8xf32>
}

// A strided 5x5 depthwise convolution of bf16 into float32, and one with two
// output channels per group (a channel multiplier): with depthwise-hwc the
// first is depthwise_conv_2d_nhwc_hwc with its strides, the second stays
// conv_2d_nhwgc_gfhwc with an (F, KH, KW, C/G) filter.
// DWHWC-LABEL: func.func @depthwise_strided(
// DWHWC-SAME: tensor<5x5x1x8xbf16> {kiln.kind = "param", kiln.name = "dw.weight"}
// DWHWC-SAME: tensor<8x3x3x1xbf16> {kiln.kind = "param", kiln.name = "mult.weight"}
// DWHWC-SAME: attributes {kiln.weight_layouts = {dw.weight = array<i64: 2, 3, 1, 0>, mult.weight = array<i64: 0, 2, 3, 1>}}
// DWHWC: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<2x16x16x8xbf16>, tensor<5x5x8xbf16>) outs(%{{.*}} : tensor<2x6x6x8xf32>)
// DWHWC: linalg.conv_2d_nhwgc_gfhwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x16x16x4x1xbf16>, tensor<4x2x3x3x1xbf16>) outs(%{{.*}} : tensor<2x14x14x4x2xf32>)
func.func @depthwise_strided(%w: tensor<8x1x5x5xbf16> {kiln.kind = "param", kiln.name = "dw.weight"},
                      %w2: tensor<8x1x3x3xbf16> {kiln.kind = "param", kiln.name = "mult.weight"},
                      %x: tensor<2x8x16x16xbf16> {kiln.kind = "input", kiln.name = "x"},
                      %x4: tensor<2x4x16x16xbf16> {kiln.kind = "input", kiln.name = "x4"}) -> (tensor<2x8x6x6xf32>, tensor<2x8x14x14xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x6x6xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %xg = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [2, 8, 1, 16, 16] : tensor<2x8x16x16xbf16> into tensor<2x8x1x16x16xbf16>
  %wg = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [8, 1, 1, 5, 5] : tensor<8x1x5x5xbf16> into tensor<8x1x1x5x5xbf16>
  %ig = tensor.expand_shape %f0 [[0], [1, 2], [3], [4]] output_shape [2, 8, 1, 6, 6] : tensor<2x8x6x6xf32> into tensor<2x8x1x6x6xf32>
  %c = linalg.conv_2d_ngchw_gfchw {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>}
      ins(%xg, %wg : tensor<2x8x1x16x16xbf16>, tensor<8x1x1x5x5xbf16>) outs(%ig : tensor<2x8x1x6x6xf32>) -> tensor<2x8x1x6x6xf32>
  %m = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<2x8x1x6x6xf32> into tensor<2x8x6x6xf32>
  %e1 = tensor.empty() : tensor<2x8x14x14xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x14x14xf32>) -> tensor<2x8x14x14xf32>
  %xg2 = tensor.expand_shape %x4 [[0], [1, 2], [3], [4]] output_shape [2, 4, 1, 16, 16] : tensor<2x4x16x16xbf16> into tensor<2x4x1x16x16xbf16>
  %wg2 = tensor.expand_shape %w2 [[0, 1], [2], [3], [4]] output_shape [4, 2, 1, 3, 3] : tensor<8x1x3x3xbf16> into tensor<4x2x1x3x3xbf16>
  %ig2 = tensor.expand_shape %f1 [[0], [1, 2], [3], [4]] output_shape [2, 4, 2, 14, 14] : tensor<2x8x14x14xf32> into tensor<2x4x2x14x14xf32>
  %c2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xg2, %wg2 : tensor<2x4x1x16x16xbf16>, tensor<4x2x1x3x3xbf16>) outs(%ig2 : tensor<2x4x2x14x14xf32>) -> tensor<2x4x2x14x14xf32>
  %m2 = tensor.collapse_shape %c2 [[0], [1, 2], [3], [4]] : tensor<2x4x2x14x14xf32> into tensor<2x8x14x14xf32>
  return %m, %m2 : tensor<2x8x6x6xf32>, tensor<2x8x14x14xf32>
}
