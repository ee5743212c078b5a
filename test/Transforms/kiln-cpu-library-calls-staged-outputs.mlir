// RUN: kiln-opt %s --kiln-cpu-library-calls --cse | FileCheck %s
// RUN: kiln-opt %s --kiln-cpu-library-calls="convs=false" | FileCheck %s --check-prefix=OFF

// A convolution that writes a strided slice of a buffer (its part of an NHWC
// channel concatenation) is staged through a dense buffer of its own
// (LibraryCallStagedOutputs.cpp), which the runtime's call writes and a copy
// moves into the slice.

#nhwc_in = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#nhwc_w = affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>
#nhwc_out = affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#chan = affine_map<(n, h, w, c) -> (c)>

// The bias broadcast into the slice initialises the dense buffer instead,
// so it still folds into the call (flags 2 + 8: overwrite, constant
// weight); the slice gets the result by one copy.
// CHECK-LABEL: func.func @biased_part_of_concat(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xf32>
// CHECK-SAME: %[[CAT:[a-z0-9]+]]: memref<1x28x28x96xf32>
// CHECK-DAG: %[[SUB:.*]] = memref.subview %[[CAT]][0, 0, 0, 32] [1, 28, 28, 64] [1, 1, 1, 1]
// CHECK: %[[STAGED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x64xf32>
// CHECK: %[[FLAGS:.*]] = arith.constant 10 : i32
// CHECK-NOT: linalg.generic
// CHECK: call @kiln_cpu_conv_bias_f32(%[[FLAGS]],
// CHECK: linalg.copy ins(%[[STAGED]] : memref<1x28x28x64xf32>) outs(%[[SUB]] : memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1], offset: 32>>)
// CHECK: memref.dealloc %[[STAGED]]
// CHECK: return
// OFF-LABEL: func.func @biased_part_of_concat(
// OFF-NOT: memref.alloc
// OFF-NOT: call
// OFF: return
func.func @biased_part_of_concat(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32> {kiln.kind = "param", kiln.name = "c.weight"},
                                 %bias: memref<64xf32>, %cat: memref<1x28x28x96xf32>) {
  %out = memref.subview %cat[0, 0, 0, 32] [1, 28, 28, 64] [1, 1, 1, 1]
      : memref<1x28x28x96xf32> to memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1], offset: 32>>
  linalg.generic {indexing_maps = [#chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : memref<64xf32>) outs(%out : memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1], offset: 32>>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  }
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1], offset: 32>>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Nothing sets the slice just before (it holds a value read before): the
// convolution accumulates onto a copy of it (flags 8: no overwrite).
// CHECK-LABEL: func.func @accumulating_part(
// CHECK-SAME: %[[CAT2:[a-z0-9]+]]: memref<1x28x28x96xf32>
// CHECK-DAG: %[[SUB2:.*]] = memref.subview %[[CAT2]][0, 0, 0, 0] [1, 28, 28, 64] [1, 1, 1, 1]
// CHECK: %[[STAGED2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x28x28x64xf32>
// CHECK: linalg.copy ins(%[[SUB2]] : {{.*}}) outs(%[[STAGED2]] : memref<1x28x28x64xf32>)
// CHECK: %[[FLAGS2:.*]] = arith.constant 8 : i32
// CHECK: call @kiln_cpu_conv_f32(%[[FLAGS2]],
// CHECK: linalg.copy ins(%[[STAGED2]] : memref<1x28x28x64xf32>) outs(%[[SUB2]] : {{.*}})
// CHECK: memref.dealloc %[[STAGED2]]
func.func @accumulating_part(%in: memref<1x30x30x32xf32>, %w: memref<64x3x3x32xf32> {kiln.kind = "param", kiln.name = "c.weight"},
                             %cat: memref<1x28x28x96xf32>) {
  %out = memref.subview %cat[0, 0, 0, 0] [1, 28, 28, 64] [1, 1, 1, 1]
      : memref<1x28x28x96xf32> to memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1]>>
  linalg.generic {indexing_maps = [#nhwc_in, #nhwc_w, #nhwc_out],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%in, %w : memref<1x30x30x32xf32>, memref<64x3x3x32xf32>) outs(%out : memref<1x28x28x64xf32, strided<[75264, 2688, 96, 1]>>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}
