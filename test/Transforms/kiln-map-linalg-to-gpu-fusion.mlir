// RUN: kiln-opt %s --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{window-min-threads=256}),canonicalize,cse)" | FileCheck %s

// A reduction run one thread per output (or several: a sliding window's;
// or a subgroup per output) takes in the elementwise op that writes its output's initial values just
// before it (the prologue) and the one that reads its result just after it
// (the epilogue): one kernel instead of three, the float32 accumulator never
// in memory when nothing else reads it.

#bias = affine_map<(n, h, w, c) -> (c)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>

// A bf16 depthwise convolution as kiln lowers it: the bias widened into a
// float32 accumulator, the convolution, then SiLU and the rounding to bf16.
// One launch: each thread starts its 8 outputs at the widened bias (one
// load: they share the channel), and stores SiLU's bf16 results; the
// accumulator's buffer is gone.
// CHECK-LABEL: func.func @depthwise_bias_silu
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x8x16x32xbf16>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: %[[B:.*]] = memref.load %arg2
// CHECK: %[[B32:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[B32]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: scf.yield
// CHECK: math.exp
// CHECK-COUNT-8: memref.store {{.*}}, %[[Y]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: memref.dealloc
// CHECK: return %[[Y]]
func.func @depthwise_bias_silu(%x: memref<1x10x18x32xbf16>, %w: memref<3x3x32xbf16>, %b: memref<32xbf16>)
    -> memref<1x8x16x32xbf16> {
  %acc = memref.alloc() : memref<1x8x16x32xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<32xbf16>) outs(%acc : memref<1x8x16x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x10x18x32xbf16>, memref<3x3x32xbf16>) outs(%acc : memref<1x8x16x32xf32>)
  %y = memref.alloc() : memref<1x8x16x32xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x16x32xf32>) outs(%y : memref<1x8x16x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    %f = arith.extf %r : bf16 to f32
    %n = arith.negf %f : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %ex : f32
    %s = arith.divf %f, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %acc : memref<1x8x16x32xf32>
  return %y : memref<1x8x16x32xbf16>
}

// A max pool: the -inf fill and the window in one launch, the fill's
// constant the initial value (no load of the output before the window).
// (Here and below, results are fresh buffers: two arguments may be the
// same buffer, so an output that is an argument is not fused with a
// reduction that reads another argument.)
// CHECK-LABEL: func.func @fill_max_pool
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x8x8x64xf32>
// CHECK: gpu.launch
// CHECK-NOT: memref.load %[[Y]]
// CHECK: arith.maximumf
// CHECK: memref.store {{.*}}, %[[Y]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return %[[Y]]
func.func @fill_max_pool(%x: memref<1x18x18x64xf32>) -> memref<1x8x8x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = memref.alloc() : memref<3x3xf32>
  %y = memref.alloc() : memref<1x8x8x64xf32>
  linalg.fill ins(%ninf : f32) outs(%y : memref<1x8x8x64xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%x, %win : memref<1x18x18x64xf32>, memref<3x3xf32>) outs(%y : memref<1x8x8x64xf32>)
  memref.dealloc %win : memref<3x3xf32>
  return %y : memref<1x8x8x64xf32>
}

// A mean over H and W with many outputs (one thread each): zero fill, sum
// and the division are one launch, into a fresh buffer the epilogue's
// allocation moved up before the kernel.
// CHECK-LABEL: func.func @mean
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x256xf32>
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return %[[OUT]]
func.func @mean(%x: memref<64x7x7x256xf32>) -> memref<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %sum = memref.alloc() : memref<64x256xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64x256xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<64x7x7x256xf32>) outs(%sum : memref<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  %out = memref.alloc() : memref<64x256xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<64x256xf32>) outs(%out : memref<64x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<64x256xf32>
  return %out : memref<64x256xf32>
}

// A squeeze-excite pool at batch 1 (64 outputs: a subgroup each): lane 0
// starts from the fill's zero, divides the total and stores the mean.
// CHECK-LABEL: func.func @pool_few_outputs
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x64xf32>
// CHECK: gpu.launch
// CHECK: gpu.shuffle xor
// CHECK: scf.if
// CHECK: arith.divf
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return %[[OUT]]
func.func @pool_few_outputs(%x: memref<1x28x28x64xf32>) -> memref<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 784.0 : f32
  %sum = memref.alloc() : memref<1x64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<1x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : memref<1x28x28x64xf32>) outs(%sum : memref<1x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  %out = memref.alloc() : memref<1x64xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (n, c)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sum : memref<1x64xf32>) outs(%out : memref<1x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  }
  memref.dealloc %sum : memref<1x64xf32>
  return %out : memref<1x64xf32>
}

// A ReLU in place over the result (float32: no rounding kernel): the
// thread stores the ReLU's value into the output once.
// CHECK-LABEL: func.func @depthwise_relu_in_place
// CHECK: %[[Y:.*]] = memref.alloc
// CHECK: gpu.launch
// CHECK: arith.maximumf
// CHECK-COUNT-8: memref.store {{.*}}, %[[Y]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return %[[Y]]
func.func @depthwise_relu_in_place(%x: memref<1x10x18x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>)
    -> memref<1x8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x8x16x32xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%y : memref<1x8x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x10x18x32xf32>, memref<3x3x32xf32>) outs(%y : memref<1x8x16x32xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%y : memref<1x8x16x32xf32>) {
  ^bb0(%out: f32):
    %r = arith.maximumf %out, %zero : f32
    linalg.yield %r : f32
  }
  return %y : memref<1x8x16x32xf32>
}

// A sum over a short leading dim (8192 outputs, one thread each). The
// accumulator is read again after the epilogue: the thread stores both
// the sum and the epilogue's value; the later reader stays a kernel.
// CHECK-LABEL: func.func @result_read_later
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<8192xf32>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<8192xf32>
// CHECK: gpu.launch
// CHECK: arith.addf
// CHECK-DAG: memref.store {{.*}}, %[[ACC]][
// CHECK-DAG: memref.store {{.*}}, %[[Y]][
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: %[[ACC]]
// CHECK: arith.mulf
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @result_read_later(%x: memref<16x8192xf32>, %z: memref<8192xf32>) -> memref<8192xf32> {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8192xf32>
  %y = memref.alloc() : memref<8192xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8192xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (k, i)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x8192xf32>) outs(%acc : memref<8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%acc : memref<8192xf32>) outs(%y : memref<8192xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%acc : memref<8192xf32>) outs(%z : memref<8192xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  }
  memref.dealloc %acc : memref<8192xf32>
  return %y : memref<8192xf32>
}

// What stays apart. The epilogue writes the buffer the convolution reads
// (other threads may still read it): the epilogue is a kernel of its own;
// the bias still goes in. An op between the bias and the convolution
// writes the bias's buffer: the broadcast stays a kernel.
// CHECK-LABEL: func.func @epilogue_writes_input
// CHECK: gpu.launch
// CHECK: memref.load %arg2
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @epilogue_writes_input(%x: memref<1x10x18x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>) {
  %acc = memref.alloc() : memref<1x8x16x32xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%acc : memref<1x8x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x10x18x32xf32>, memref<3x3x32xf32>) outs(%acc : memref<1x8x16x32xf32>)
  %view = memref.subview %x[0, 1, 1, 0] [1, 8, 16, 32] [1, 1, 1, 1]
      : memref<1x10x18x32xf32> to memref<1x8x16x32xf32, strided<[5760, 576, 32, 1], offset: 608>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x16x32xf32>) outs(%view : memref<1x8x16x32xf32, strided<[5760, 576, 32, 1], offset: 608>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %acc : memref<1x8x16x32xf32>
  return
}

// CHECK-LABEL: func.func @bias_overwritten_between
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<1x8x16x32xf32>
// CHECK: gpu.launch
// CHECK: %[[ACC]]
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: %arg2
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: memref.load %[[ACC]]
// CHECK: arith.negf
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @bias_overwritten_between(%x: memref<1x10x18x32xf32>, %w: memref<3x3x32xf32>, %b: memref<32xf32>)
    -> memref<1x8x16x32xf32> {
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<1x8x16x32xf32>
  %y = memref.alloc() : memref<1x8x16x32xf32>
  linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : memref<32xf32>) outs(%acc : memref<1x8x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%one : f32) outs(%b : memref<32xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x10x18x32xf32>, memref<3x3x32xf32>) outs(%acc : memref<1x8x16x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x8x16x32xf32>) outs(%y : memref<1x8x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  memref.dealloc %acc : memref<1x8x16x32xf32>
  return %y : memref<1x8x16x32xf32>
}
