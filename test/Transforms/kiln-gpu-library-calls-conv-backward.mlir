// RUN: kiln-opt %s -split-input-file --kiln-gpu-library-calls="convs=cudnn min-macs=1" --cse | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-gpu-library-calls="convs=cudnn min-macs=1 tf32-convs=true" --cse | FileCheck %s --check-prefix=TF32
// RUN: kiln-opt %s -split-input-file --kiln-gpu-library-calls="convs=kernel min-macs=1" | FileCheck %s --check-prefix=KERNEL

// kiln-gpu-library-calls on a convolution's gradients (ConvBackwardLibraryCalls.cpp):
// the ops convert-aten-to-linalg marks kiln.conv_backward, bufferized, become
// cuDNN backward-data / backward-filter calls (kiln_gpu_conv_bwd_*), declared
// as device calls with the forward call's arguments.
// KERNEL-NOT: call @kiln_gpu_conv_bwd

// CHECK-DAG: func.func private @kiln_gpu_conv_bwd_filter_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_conv_bwd_data_f32(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>) attributes {kiln.device_call, llvm.emit_c_interface}

// Stride 2, padding 1, zeroed outputs (flags 2; 3 with TF32): x and dy read
// in place, the padded copy and the spread op gone.
// CHECK-LABEL: func.func @conv_backward
// CHECK-NOT: linalg.generic
// CHECK: call @kiln_gpu_conv_bwd_filter_f32(%c2_i32, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK: call @kiln_gpu_conv_bwd_data_f32(%c2_i32, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK-NOT: linalg.generic
// CHECK: return
// TF32-LABEL: func.func @conv_backward
// TF32: call @kiln_gpu_conv_bwd_filter_f32(%c3_i32,
// TF32: call @kiln_gpu_conv_bwd_data_f32(%c3_i32,
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 8 + d1, d6, d7)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 16 + d2, d6 * 2 + d3, d7 * 2 + d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 8 + d5, d3 + d6, d4 + d7)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 8 + d5, d2, -d6 + 2, -d7 + 2)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
module {
  func.func @conv_backward(%arg0: memref<2x8x4x4xf32>, %arg1: memref<2x16x8x8xf32>, %arg2: memref<8x16x3x3xf32>) -> (memref<2x16x8x8xf32>, memref<8x16x3x3xf32>) {
    %c2 = arith.constant 2 : index
    %c-1 = arith.constant -1 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x10x10xf32>
    linalg.map outs(%alloc : memref<2x16x10x10xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc[0, 0, 1, 1] [2, 16, 8, 8] [1, 1, 1, 1] : memref<2x16x10x10xf32> to memref<2x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    linalg.copy ins(%arg1 : memref<2x16x8x8xf32>) outs(%subview : memref<2x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>)
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x8x16x3x3xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<1x8x16x3x3xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %alloc : memref<2x8x4x4xf32>, memref<2x16x10x10xf32>) outs(%alloc_0 : memref<1x8x16x3x3xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "weight", stride = array<i64: 2, 2>}} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %0 = arith.mulf %in, %in_5 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape = memref.collapse_shape %alloc_0 [[0, 1], [2], [3], [4]] : memref<1x8x16x3x3xf32> into memref<8x16x3x3xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x8x10x10xf32>
    linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc_1 : memref<2x8x10x10xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "spread", stride = array<i64: 2, 2>}} {
    ^bb0(%out: f32):
      %0 = linalg.index 2 : index
      %1 = arith.addi %0, %c-1 : index
      %2 = arith.cmpi sge, %1, %c0 : index
      %3 = arith.select %2, %1, %c0 : index
      %4 = arith.remui %3, %c2 : index
      %5 = arith.cmpi eq, %4, %c0 : index
      %6 = arith.divui %3, %c2 : index
      %7 = arith.cmpi ult, %6, %c4 : index
      %8 = arith.andi %5, %7 : i1
      %9 = arith.andi %2, %8 : i1
      %10 = arith.select %9, %6, %c0 : index
      %11 = linalg.index 3 : index
      %12 = arith.addi %11, %c-1 : index
      %13 = arith.cmpi sge, %12, %c0 : index
      %14 = arith.select %13, %12, %c0 : index
      %15 = arith.remui %14, %c2 : index
      %16 = arith.cmpi eq, %15, %c0 : index
      %17 = arith.divui %14, %c2 : index
      %18 = arith.cmpi ult, %17, %c4 : index
      %19 = arith.andi %16, %18 : i1
      %20 = arith.andi %13, %19 : i1
      %21 = arith.select %20, %17, %c0 : index
      %22 = linalg.index 0 : index
      %23 = linalg.index 1 : index
      %24 = memref.load %arg0[%22, %23, %10, %21] : memref<2x8x4x4xf32>
      %25 = arith.andi %9, %20 : i1
      %26 = arith.select %25, %24, %cst : f32
      linalg.yield %26 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<2x1x16x8x8xf32>)
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x3x3xf32>
    linalg.generic {indexing_maps = [#map4, #map5, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_1, %arg2, %alloc_3 : memref<2x8x10x10xf32>, memref<8x16x3x3xf32>, memref<8x3x3xf32>) outs(%alloc_2 : memref<2x1x16x8x8xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "input", stride = array<i64: 2, 2>}} {
    ^bb0(%in: f32, %in_5: f32, %in_6: f32, %out: f32):
      %0 = arith.mulf %in, %in_5 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape_4 = memref.collapse_shape %alloc_2 [[0], [1, 2], [3], [4]] : memref<2x1x16x8x8xf32> into memref<2x16x8x8xf32>
    return %collapse_shape_4, %collapse_shape : memref<2x16x8x8xf32>, memref<8x16x3x3xf32>
  }
}

// -----

// Outputs that are not zeroed first: cuDNN adds into them (flags 0).
// CHECK-LABEL: func.func @accumulate
// CHECK: call @kiln_gpu_conv_bwd_filter_f32(%c0_i32,
// CHECK: call @kiln_gpu_conv_bwd_data_f32(%c0_i32,
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 8 + d1, d6, d7)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 16 + d2, d6 * 2 + d3, d7 * 2 + d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 8 + d5, d3 + d6, d4 + d7)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 8 + d5, d2, -d6 + 2, -d7 + 2)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
module {
  func.func @accumulate(%arg0: memref<2x8x4x4xf32>, %arg1: memref<2x16x8x8xf32>, %arg2: memref<8x16x3x3xf32>) -> (memref<2x16x8x8xf32>, memref<8x16x3x3xf32>) {
    %c2 = arith.constant 2 : index
    %c-1 = arith.constant -1 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x10x10xf32>
    linalg.map outs(%alloc : memref<2x16x10x10xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc[0, 0, 1, 1] [2, 16, 8, 8] [1, 1, 1, 1] : memref<2x16x10x10xf32> to memref<2x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>
    linalg.copy ins(%arg1 : memref<2x16x8x8xf32>) outs(%subview : memref<2x16x8x8xf32, strided<[1600, 100, 10, 1], offset: 11>>)
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x8x16x3x3xf32>
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %alloc : memref<2x8x4x4xf32>, memref<2x16x10x10xf32>) outs(%alloc_0 : memref<1x8x16x3x3xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "weight", stride = array<i64: 2, 2>}} {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %0 = arith.mulf %in, %in_5 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape = memref.collapse_shape %alloc_0 [[0, 1], [2], [3], [4]] : memref<1x8x16x3x3xf32> into memref<8x16x3x3xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x8x10x10xf32>
    linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc_1 : memref<2x8x10x10xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "spread", stride = array<i64: 2, 2>}} {
    ^bb0(%out: f32):
      %0 = linalg.index 2 : index
      %1 = arith.addi %0, %c-1 : index
      %2 = arith.cmpi sge, %1, %c0 : index
      %3 = arith.select %2, %1, %c0 : index
      %4 = arith.remui %3, %c2 : index
      %5 = arith.cmpi eq, %4, %c0 : index
      %6 = arith.divui %3, %c2 : index
      %7 = arith.cmpi ult, %6, %c4 : index
      %8 = arith.andi %5, %7 : i1
      %9 = arith.andi %2, %8 : i1
      %10 = arith.select %9, %6, %c0 : index
      %11 = linalg.index 3 : index
      %12 = arith.addi %11, %c-1 : index
      %13 = arith.cmpi sge, %12, %c0 : index
      %14 = arith.select %13, %12, %c0 : index
      %15 = arith.remui %14, %c2 : index
      %16 = arith.cmpi eq, %15, %c0 : index
      %17 = arith.divui %14, %c2 : index
      %18 = arith.cmpi ult, %17, %c4 : index
      %19 = arith.andi %16, %18 : i1
      %20 = arith.andi %13, %19 : i1
      %21 = arith.select %20, %17, %c0 : index
      %22 = linalg.index 0 : index
      %23 = linalg.index 1 : index
      %24 = memref.load %arg0[%22, %23, %10, %21] : memref<2x8x4x4xf32>
      %25 = arith.andi %9, %20 : i1
      %26 = arith.select %25, %24, %cst : f32
      linalg.yield %26 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x1x16x8x8xf32>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x3x3xf32>
    linalg.generic {indexing_maps = [#map4, #map5, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_1, %arg2, %alloc_3 : memref<2x8x10x10xf32>, memref<8x16x3x3xf32>, memref<8x3x3xf32>) outs(%alloc_2 : memref<2x1x16x8x8xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "input", stride = array<i64: 2, 2>}} {
    ^bb0(%in: f32, %in_5: f32, %in_6: f32, %out: f32):
      %0 = arith.mulf %in, %in_5 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape_4 = memref.collapse_shape %alloc_2 [[0], [1, 2], [3], [4]] : memref<2x1x16x8x8xf32> into memref<2x16x8x8xf32>
    return %collapse_shape_4, %collapse_shape : memref<2x16x8x8xf32>, memref<8x16x3x3xf32>
  }
}

// -----

// bfloat16: the bf16 entries, never TF32.
// CHECK-LABEL: func.func @conv_backward_bf16
// CHECK: call @kiln_gpu_conv_bwd_filter_bf16(%c2_i32,
// CHECK: call @kiln_gpu_conv_bwd_data_bf16(%c2_i32,
// TF32-LABEL: func.func @conv_backward_bf16
// TF32: call @kiln_gpu_conv_bwd_filter_bf16(%c2_i32,
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 8 + d1, d6, d7)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 16 + d2, d6 * 2 + d3, d7 * 2 + d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 8 + d5, d3 + d6, d4 + d7)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 8 + d5, d2, -d6 + 2, -d7 + 2)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
module {
  func.func @conv_backward_bf16(%arg0: memref<2x8x4x4xbf16>, %arg1: memref<2x16x8x8xbf16>, %arg2: memref<8x16x3x3xbf16>) -> (memref<2x16x8x8xbf16>, memref<8x16x3x3xbf16>) {
    %c2 = arith.constant 2 : index
    %c-1 = arith.constant -1 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %cst = arith.constant 0.000000e+00 : bf16
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x16x10x10xbf16>
    linalg.map outs(%alloc : memref<2x16x10x10xbf16>)
      (%init: bf16) {
        linalg.yield %cst : bf16
      }
    %subview = memref.subview %alloc[0, 0, 1, 1] [2, 16, 8, 8] [1, 1, 1, 1] : memref<2x16x10x10xbf16> to memref<2x16x8x8xbf16, strided<[1600, 100, 10, 1], offset: 11>>
    linalg.copy ins(%arg1 : memref<2x16x8x8xbf16>) outs(%subview : memref<2x16x8x8xbf16, strided<[1600, 100, 10, 1], offset: 11>>)
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<1x8x16x3x3xbf16>
    linalg.fill ins(%cst : bf16) outs(%alloc_0 : memref<1x8x16x3x3xbf16>)
    linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %alloc : memref<2x8x4x4xbf16>, memref<2x16x10x10xbf16>) outs(%alloc_0 : memref<1x8x16x3x3xbf16>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "weight", stride = array<i64: 2, 2>}} {
    ^bb0(%in: bf16, %in_5: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_5 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %collapse_shape = memref.collapse_shape %alloc_0 [[0, 1], [2], [3], [4]] : memref<1x8x16x3x3xbf16> into memref<8x16x3x3xbf16>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<2x8x10x10xbf16>
    linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc_1 : memref<2x8x10x10xbf16>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "spread", stride = array<i64: 2, 2>}} {
    ^bb0(%out: bf16):
      %0 = linalg.index 2 : index
      %1 = arith.addi %0, %c-1 : index
      %2 = arith.cmpi sge, %1, %c0 : index
      %3 = arith.select %2, %1, %c0 : index
      %4 = arith.remui %3, %c2 : index
      %5 = arith.cmpi eq, %4, %c0 : index
      %6 = arith.divui %3, %c2 : index
      %7 = arith.cmpi ult, %6, %c4 : index
      %8 = arith.andi %5, %7 : i1
      %9 = arith.andi %2, %8 : i1
      %10 = arith.select %9, %6, %c0 : index
      %11 = linalg.index 3 : index
      %12 = arith.addi %11, %c-1 : index
      %13 = arith.cmpi sge, %12, %c0 : index
      %14 = arith.select %13, %12, %c0 : index
      %15 = arith.remui %14, %c2 : index
      %16 = arith.cmpi eq, %15, %c0 : index
      %17 = arith.divui %14, %c2 : index
      %18 = arith.cmpi ult, %17, %c4 : index
      %19 = arith.andi %16, %18 : i1
      %20 = arith.andi %13, %19 : i1
      %21 = arith.select %20, %17, %c0 : index
      %22 = linalg.index 0 : index
      %23 = linalg.index 1 : index
      %24 = memref.load %arg0[%22, %23, %10, %21] : memref<2x8x4x4xbf16>
      %25 = arith.andi %9, %20 : i1
      %26 = arith.select %25, %24, %cst : bf16
      linalg.yield %26 : bf16
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x1x16x8x8xbf16>
    linalg.fill ins(%cst : bf16) outs(%alloc_2 : memref<2x1x16x8x8xbf16>)
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x3x3xbf16>
    linalg.generic {indexing_maps = [#map4, #map5, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_1, %arg2, %alloc_3 : memref<2x8x10x10xbf16>, memref<8x16x3x3xbf16>, memref<8x3x3xbf16>) outs(%alloc_2 : memref<2x1x16x8x8xbf16>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "input", stride = array<i64: 2, 2>}} {
    ^bb0(%in: bf16, %in_5: bf16, %in_6: bf16, %out: bf16):
      %0 = arith.mulf %in, %in_5 : bf16
      %1 = arith.addf %out, %0 : bf16
      linalg.yield %1 : bf16
    }
    %collapse_shape_4 = memref.collapse_shape %alloc_2 [[0], [1, 2], [3], [4]] : memref<2x1x16x8x8xbf16> into memref<2x16x8x8xbf16>
    return %collapse_shape_4, %collapse_shape : memref<2x16x8x8xbf16>, memref<8x16x3x3xbf16>
  }
}

// -----

// cuDNN's gradients take no mixed layouts: the weight gradient's NHWC input
// (kiln-channels-last folded the transpose into the indexing map) is first
// copied into an NCHW buffer, freed after the call.
// CHECK-LABEL: func.func @nhwc
// CHECK: %[[NCHW:.*]] = memref.alloc() {{.*}} : memref<2x16x10x10xf32>
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : memref<2x10x10x16xf32>) outs(%[[NCHW]] : memref<2x16x10x10xf32>)
// CHECK: memref.expand_shape %[[NCHW]]
// CHECK: call @kiln_gpu_conv_bwd_filter_f32(
// CHECK: memref.dealloc %[[NCHW]]
// CHECK: call @kiln_gpu_conv_bwd_data_f32(
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 32 + d1, d6, d7)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d3 + d6, d4 + d7, d0 * 16 + d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 32 + d5, d3 + d6, d4 + d7)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1 * 32 + d5, d2, -d6 + 2, -d7 + 2)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
module {
  func.func @nhwc(%arg0: memref<2x16x8x8xf32>, %arg1: memref<16x16x3x3xf32>, %arg2: memref<32x16x3x3xf32>, %arg3: memref<2x32x8x8xf32>) -> (memref<2x32x8x8xf32>, memref<2x16x8x8xf32>, memref<32x16x3x3xf32>) {
    %c-1 = arith.constant -1 : index
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x8x8x16xf32>
    linalg.transpose ins(%arg0 : memref<2x16x8x8xf32>) outs(%alloc : memref<2x8x8x16xf32>) permutation = [0, 2, 3, 1] 
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<2x10x10x16xf32>
    linalg.map outs(%alloc_0 : memref<2x10x10x16xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview = memref.subview %alloc_0[0, 1, 1, 0] [2, 8, 8, 16] [1, 1, 1, 1] : memref<2x10x10x16xf32> to memref<2x8x8x16xf32, strided<[1600, 160, 16, 1], offset: 176>>
    linalg.copy ins(%alloc : memref<2x8x8x16xf32>) outs(%subview : memref<2x8x8x16xf32, strided<[1600, 160, 16, 1], offset: 176>>)
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<16x3x3x16xf32>
    linalg.transpose ins(%arg1 : memref<16x16x3x3xf32>) outs(%alloc_1 : memref<16x3x3x16xf32>) permutation = [0, 2, 3, 1] 
    linalg.fill ins(%cst : f32) outs(%alloc : memref<2x8x8x16xf32>)
    linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%alloc_0, %alloc_1 : memref<2x10x10x16xf32>, memref<16x3x3x16xf32>) outs(%alloc : memref<2x8x8x16xf32>)
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc : memref<2x8x8x16xf32>) outs(%alloc : memref<2x8x8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %in, %cst : f32
      linalg.yield %0 : f32
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<2x10x10x16xf32>
    linalg.map outs(%alloc_2 : memref<2x10x10x16xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %subview_3 = memref.subview %alloc_2[0, 1, 1, 0] [2, 8, 8, 16] [1, 1, 1, 1] : memref<2x10x10x16xf32> to memref<2x8x8x16xf32, strided<[1600, 160, 16, 1], offset: 176>>
    linalg.copy ins(%alloc : memref<2x8x8x16xf32>) outs(%subview_3 : memref<2x8x8x16xf32, strided<[1600, 160, 16, 1], offset: 176>>)
    %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<32x3x3x16xf32>
    linalg.transpose ins(%arg2 : memref<32x16x3x3xf32>) outs(%alloc_4 : memref<32x3x3x16xf32>) permutation = [0, 2, 3, 1] 
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<2x8x8x32xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_5 : memref<2x8x8x32xf32>)
    linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%alloc_2, %alloc_4 : memref<2x10x10x16xf32>, memref<32x3x3x16xf32>) outs(%alloc_5 : memref<2x8x8x32xf32>)
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<2x32x8x8xf32>
    linalg.transpose ins(%alloc_5 : memref<2x8x8x32xf32>) outs(%alloc_6 : memref<2x32x8x8xf32>) permutation = [0, 3, 1, 2] 
    %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<1x32x16x3x3xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_7 : memref<1x32x16x3x3xf32>)
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg3, %alloc_2 : memref<2x32x8x8xf32>, memref<2x10x10x16xf32>) outs(%alloc_7 : memref<1x32x16x3x3xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "weight", stride = array<i64: 1, 1>}} {
    ^bb0(%in: f32, %in_12: f32, %out: f32):
      %0 = arith.mulf %in, %in_12 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape = memref.collapse_shape %alloc_7 [[0, 1], [2], [3], [4]] : memref<1x32x16x3x3xf32> into memref<32x16x3x3xf32>
    %alloc_8 = memref.alloc() {alignment = 64 : i64} : memref<2x32x10x10xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc_8 : memref<2x32x10x10xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "spread", stride = array<i64: 1, 1>}} {
    ^bb0(%out: f32):
      %0 = linalg.index 2 : index
      %1 = arith.addi %0, %c-1 : index
      %2 = arith.cmpi sge, %1, %c0 : index
      %3 = arith.select %2, %1, %c0 : index
      %4 = arith.cmpi ult, %3, %c8 : index
      %5 = arith.andi %2, %4 : i1
      %6 = arith.select %5, %3, %c0 : index
      %7 = linalg.index 3 : index
      %8 = arith.addi %7, %c-1 : index
      %9 = arith.cmpi sge, %8, %c0 : index
      %10 = arith.select %9, %8, %c0 : index
      %11 = arith.cmpi ult, %10, %c8 : index
      %12 = arith.andi %9, %11 : i1
      %13 = arith.select %12, %10, %c0 : index
      %14 = linalg.index 0 : index
      %15 = linalg.index 1 : index
      %16 = memref.load %arg3[%14, %15, %6, %13] : memref<2x32x8x8xf32>
      %17 = arith.andi %5, %12 : i1
      %18 = arith.select %17, %16, %cst : f32
      linalg.yield %18 : f32
    }
    %alloc_9 = memref.alloc() {alignment = 64 : i64} : memref<2x1x16x8x8xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_9 : memref<2x1x16x8x8xf32>)
    %alloc_10 = memref.alloc() {alignment = 64 : i64} : memref<32x3x3xf32>
    linalg.generic {indexing_maps = [#map4, #map5, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%alloc_8, %arg2, %alloc_10 : memref<2x32x10x10xf32>, memref<32x16x3x3xf32>, memref<32x3x3xf32>) outs(%alloc_9 : memref<2x1x16x8x8xf32>) attrs =  {kiln.conv_backward = {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1>, part = "input", stride = array<i64: 1, 1>}} {
    ^bb0(%in: f32, %in_12: f32, %in_13: f32, %out: f32):
      %0 = arith.mulf %in, %in_12 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    %collapse_shape_11 = memref.collapse_shape %alloc_9 [[0], [1, 2], [3], [4]] : memref<2x1x16x8x8xf32> into memref<2x16x8x8xf32>
    return %alloc_6, %collapse_shape_11, %collapse_shape : memref<2x32x8x8xf32>, memref<2x16x8x8xf32>, memref<32x16x3x3xf32>
  }
}
