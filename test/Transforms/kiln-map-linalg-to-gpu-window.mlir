// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{window-min-threads=256}),canonicalize,cse)" | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s --check-prefix=FEW
// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{window-outputs=0 window-min-threads=256}),canonicalize,cse)" | FileCheck %s --check-prefix=OFF

// Sliding-window reductions with several outputs per thread: consecutive
// outputs along the output column share the window's overlapping input
// elements and the filter taps, loaded once.

// A 3x3 depthwise convolution in NHWC (4096 outputs, 16 columns): 8
// columns a thread (512 threads, at least window-min-threads), channels
// stay innermost across threads. The filter row's loop runs; the tap loop
// is unrolled: per filter row 10 input loads (8 outputs + 2 of overlap) and
// 3 filter loads, not 24 and 24. Accumulation order per output is the
// one-output kernel's (taps in order), so results are bit-identical.
// CHECK-LABEL: func.func @depthwise
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: arith.cmpi ult, %{{.*}}, %c512
// CHECK-COUNT-8: memref.load %arg2
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NOT: scf.for
// CHECK-COUNT-10: memref.load %arg0
// CHECK-NOT: memref.load %arg0
// CHECK: scf.yield
// CHECK-COUNT-8: memref.store {{.*}}, %arg2
// FEW-LABEL: func.func @depthwise
// FEW: arith.cmpi ult, %{{.*}}, %c4096
// FEW: scf.for
// FEW: scf.for
// FEW: memref.load %arg0
// FEW-NOT: memref.load %arg0
// FEW: memref.store
// FEW-NOT: memref.store
// OFF-LABEL: func.func @depthwise
// OFF: arith.cmpi ult, %{{.*}}, %c4096
// OFF-COUNT-1: memref.store
// OFF-NOT: memref.store
func.func @depthwise(%x: memref<1x10x18x32xf32>, %w: memref<3x3x32xf32>, %y: memref<1x8x16x32xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x10x18x32xf32>, memref<3x3x32xf32>) outs(%y : memref<1x8x16x32xf32>)
  return
}

// A 5x5 stride-2 bf16 depthwise convolution (2048 outputs, 8 columns): 8
// columns a thread; the window of 8 outputs 2 apart spans 19 input columns
// per filter row, each loaded and widened once, with 5 filter taps.
// CHECK-LABEL: func.func @depthwise_strided_bf16
// FEW-LABEL: func.func @depthwise_strided_bf16
// OFF-LABEL: func.func @depthwise_strided_bf16
// CHECK: scf.for %{{.*}} = %c0 to %c5 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NOT: scf.for
// CHECK-COUNT-19: memref.load %arg0
// CHECK-NOT: memref.load %arg0
// CHECK: scf.yield
// CHECK-COUNT-8: memref.store {{.*}}, %arg2
func.func @depthwise_strided_bf16(%x: memref<1x11x19x64xbf16>, %w: memref<5x5x64xbf16>, %y: memref<1x4x8x64xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x11x19x64xbf16>, memref<5x5x64xbf16>) outs(%y : memref<1x4x8x64xf32>)
  return
}

// No window slides along a parallel loop of a matmul: one output a thread.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-COUNT-1: memref.store
// CHECK-NOT: memref.store
func.func @matmul(%a: memref<64x8xf32>, %b: memref<8x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x8xf32>, memref<8x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
