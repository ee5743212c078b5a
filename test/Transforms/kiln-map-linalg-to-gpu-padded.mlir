// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu),canonicalize,cse)" | FileCheck %s

// A window op that reads a constant-filled buffer with its source copied
// into the interior (a pad) reads the source itself: an index inside it
// loads there, one in the border is the pad value. The fill and the copy
// are no kernels any more, and the padded buffer is gone.

// A 3x3 depthwise convolution over a map zero-padded by one on each side of
// H and W: one kernel, loading %x at (h + kh - 1, w + kw - 1) where both are
// below 8 as unsigned numbers (the index clamped to 0 outside), else 0.0.
// CHECK-LABEL: func.func @depthwise_zero_pad
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: arith.select
// CHECK: memref.load %arg0
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @depthwise_zero_pad(%x: memref<2x8x8x32xf32>, %w: memref<3x3x32xf32>, %y: memref<2x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<2x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<2x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [2, 8, 8, 32] [1, 1, 1, 1]
      : memref<2x10x10x32xf32> to memref<2x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%x : memref<2x8x8x32xf32>) outs(%in : memref<2x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<2x10x10x32xf32>, memref<3x3x32xf32>) outs(%y : memref<2x8x8x32xf32>)
  memref.dealloc %p : memref<2x10x10x32xf32>
  return
}

// A 3x3 stride-2 max pool over a map padded with -inf (asymmetric: one row
// above, two below) whose source a ReLU writes and frees right after the
// copy: the free moves after the pool, which selects -inf in the border.
// CHECK-LABEL: func.func @max_pool_neg_inf_pad
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<1x9x8x16xf32>
// CHECK: memref.collapse_shape %[[SRC]]
// CHECK: gpu.launch
// CHECK: vector.store
// CHECK: gpu.launch
// CHECK: memref.load %[[SRC]]
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEG]]
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}}, %arg1
// CHECK-NOT: gpu.launch
// CHECK: memref.dealloc %[[SRC]]
// CHECK-NEXT: return
func.func @max_pool_neg_inf_pad(%x: memref<1x9x8x16xf32>, %y: memref<1x5x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r = memref.alloc() : memref<1x9x8x16xf32>
  linalg.map { arith.maximumf } ins(%x, %x : memref<1x9x8x16xf32>, memref<1x9x8x16xf32>) outs(%r : memref<1x9x8x16xf32>)
  %p = memref.alloc() : memref<1x12x10x16xf32>
  linalg.fill ins(%ninf : f32) outs(%p : memref<1x12x10x16xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 9, 8, 16] [1, 1, 1, 1]
      : memref<1x12x10x16xf32> to memref<1x9x8x16xf32, strided<[1920, 160, 16, 1], offset: 176>>
  linalg.copy ins(%r : memref<1x9x8x16xf32>) outs(%in : memref<1x9x8x16xf32, strided<[1920, 160, 16, 1], offset: 176>>)
  memref.dealloc %r : memref<1x9x8x16xf32>
  %win = memref.alloc() : memref<3x3xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x5x4x16xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %win : memref<1x12x10x16xf32>, memref<3x3xf32>) outs(%y : memref<1x5x4x16xf32>)
  memref.dealloc %win : memref<3x3xf32>
  memref.dealloc %p : memref<1x12x10x16xf32>
  return
}

// Left alone: the padded buffer has a second reader (the fill and the copy
// stay kernels), and the source is overwritten between the copy and the
// window (the window must read the copy).
// CHECK-LABEL: func.func @two_readers
// CHECK-COUNT-4: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @two_readers(%x: memref<1x8x8x32xf32>, %w: memref<3x3x32xf32>, %y: memref<1x8x8x32xf32>, %z: memref<1x10x10x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%x : memref<1x8x8x32xf32>) outs(%in : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%y : memref<1x8x8x32xf32>)
  linalg.copy ins(%p : memref<1x10x10x32xf32>) outs(%z : memref<1x10x10x32xf32>)
  memref.dealloc %p : memref<1x10x10x32xf32>
  return
}

// CHECK-LABEL: func.func @source_overwritten
// CHECK-COUNT-4: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @source_overwritten(%x: memref<1x8x8x32xf32>, %w: memref<3x3x32xf32>, %y: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%x : memref<1x8x8x32xf32>) outs(%in : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  linalg.fill ins(%zero : f32) outs(%x : memref<1x8x8x32xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%y : memref<1x8x8x32xf32>)
  memref.dealloc %p : memref<1x10x10x32xf32>
  return
}

// The window's fused epilogue (a tanh rounding nothing) writes the source's
// buffer, which bufferization reused because the source was dead after the
// copy: the window now reads the source, so the epilogue and every later use
// get a fresh buffer, and the source is freed after the kernel.
// CHECK-LABEL: func.func @epilogue_into_source
// CHECK: %[[S:.*]] = memref.alloc() : memref<1x8x8x32xf32>
// CHECK: gpu.launch
// CHECK: %[[N:.*]] = memref.alloc() : memref<1x8x8x32xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[S]]
// CHECK: math.tanh
// CHECK: memref.store {{.*}}, %[[N]]
// CHECK: memref.dealloc %[[S]]
// CHECK: gpu.launch
// CHECK: memref.dealloc %[[N]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @epilogue_into_source(%x: memref<1x8x8x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>, %y: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<1x8x8x32xf32>
  linalg.copy ins(%x : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  %p = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%in : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  %acc = memref.alloc() : memref<1x8x8x32xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%acc : memref<1x8x8x32xf32>) dimensions = [0, 1, 2]
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%acc : memref<1x8x8x32xf32>)
  memref.dealloc %p : memref<1x10x10x32xf32>
  linalg.map { math.tanh } ins(%acc : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  memref.dealloc %acc : memref<1x8x8x32xf32>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%y : memref<1x8x8x32xf32>)
  memref.dealloc %s : memref<1x8x8x32xf32>
  return
}

// The fused epilogue adds the source to the window's result in place (it
// reads the source's buffer as it overwrites it): no fresh buffer can take
// its place, so the window reads the padded copy and the fill and the copy
// stay kernels.
// CHECK-LABEL: func.func @epilogue_reads_source
// CHECK-COUNT-5: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @epilogue_reads_source(%x: memref<1x8x8x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>, %y: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<1x8x8x32xf32>
  linalg.copy ins(%x : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  %p = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%in : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  %acc = memref.alloc() : memref<1x8x8x32xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%acc : memref<1x8x8x32xf32>) dimensions = [0, 1, 2]
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%acc : memref<1x8x8x32xf32>)
  memref.dealloc %p : memref<1x10x10x32xf32>
  linalg.map { arith.addf } ins(%acc, %s : memref<1x8x8x32xf32>, memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  memref.dealloc %acc : memref<1x8x8x32xf32>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%y : memref<1x8x8x32xf32>)
  memref.dealloc %s : memref<1x8x8x32xf32>
  return
}

// Two padded windows in a row over one buffer that bufferization reused for
// both epilogues: the first epilogue's fresh buffer becomes the second
// window's source, and the second epilogue, which overwrote it, gets a fresh
// buffer of its own (it must not write what its window reads).
// CHECK-LABEL: func.func @chained_reuse
// CHECK: %[[S:.*]] = memref.alloc() : memref<1x8x8x32xf32>
// CHECK: gpu.launch
// CHECK: %[[N1:.*]] = memref.alloc() : memref<1x8x8x32xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[S]]
// CHECK: memref.store {{.*}}, %[[N1]]
// CHECK: memref.dealloc %[[S]]
// CHECK: %[[N2:.*]] = memref.alloc() : memref<1x8x8x32xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[N1]]
// CHECK: math.tanh
// CHECK: memref.store {{.*}}, %[[N2]]
// CHECK: memref.dealloc %[[N1]]
// CHECK: gpu.launch
// CHECK: memref.dealloc %[[N2]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @chained_reuse(%x: memref<1x8x8x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>, %y: memref<1x8x8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<1x8x8x32xf32>
  linalg.copy ins(%x : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  %p = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x32xf32>)
  %in = memref.subview %p[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%in : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  %acc = memref.alloc() : memref<1x8x8x32xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%acc : memref<1x8x8x32xf32>) dimensions = [0, 1, 2]
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%acc : memref<1x8x8x32xf32>)
  memref.dealloc %p : memref<1x10x10x32xf32>
  linalg.map { math.tanh } ins(%acc : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  memref.dealloc %acc : memref<1x8x8x32xf32>
  %p2 = memref.alloc() : memref<1x10x10x32xf32>
  linalg.fill ins(%zero : f32) outs(%p2 : memref<1x10x10x32xf32>)
  %in2 = memref.subview %p2[0, 1, 1, 0] [1, 8, 8, 32] [1, 1, 1, 1]
      : memref<1x10x10x32xf32> to memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%in2 : memref<1x8x8x32xf32, strided<[3200, 320, 32, 1], offset: 352>>)
  %acc2 = memref.alloc() : memref<1x8x8x32xf32>
  linalg.broadcast ins(%b : memref<32xf32>) outs(%acc2 : memref<1x8x8x32xf32>) dimensions = [0, 1, 2]
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p2, %w : memref<1x10x10x32xf32>, memref<3x3x32xf32>) outs(%acc2 : memref<1x8x8x32xf32>)
  memref.dealloc %p2 : memref<1x10x10x32xf32>
  linalg.map { math.tanh } ins(%acc2 : memref<1x8x8x32xf32>) outs(%s : memref<1x8x8x32xf32>)
  memref.dealloc %acc2 : memref<1x8x8x32xf32>
  linalg.copy ins(%s : memref<1x8x8x32xf32>) outs(%y : memref<1x8x8x32xf32>)
  memref.dealloc %s : memref<1x8x8x32xf32>
  return
}
