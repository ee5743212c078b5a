// RUN: kiln-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu))" --verify-diagnostics
// RUN: not kiln-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(kiln-map-linalg-to-gpu{block-size=2048}))" 2>&1 | FileCheck %s --check-prefix=BLOCK

// An output indexed by the reduction loop but not by the parallel one would
// be written by every thread: refused.
func.func @shared_output(%a: memref<8x64xf32>, %e: memref<64xf32>) {
  // expected-error @+1 {{has an output indexed by a reduction loop but not by every parallel loop}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xf32>) outs(%e : memref<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// Tensors must be bufferized first.
func.func @tensors(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{must be bufferized before it is mapped to the GPU}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// BLOCK: block-size must be in [1, 1024], got 2048
