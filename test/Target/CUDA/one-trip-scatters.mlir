// RUN: kiln-opt %s --kiln-lower-to-linalg --kiln-linalg-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s --kiln-cuda-pipeline="format=ptx" | FileCheck %s --check-prefix=PTX

// Programs the OpInfo entries gave that did not compile for CUDA: index_put
// (index_copy, index_fill, index_add) with a one-element index, whose scatter
// loops canonicalization folds away, left a store on the host; frac and
// division rounding to zero kept math.trunc, which libdevice lowering leaves.

func.func @put_one(%x: tensor<4xf32> {bufferization.writable = false}, %i: tensor<1xi64> {bufferization.writable = false},
                   %v: tensor<1xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %0 = aten.index_put %x[%i], %v {index_dims = array<i64: 0>} : (tensor<4xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @add_one(%x: tensor<1xf32> {bufferization.writable = false}, %i: tensor<1xi64> {bufferization.writable = false},
                   %v: tensor<f32> {bufferization.writable = false}) -> tensor<1xf32> {
  %0 = aten.index_put %x[%i], %v {accumulate = true, index_dims = array<i64: 0>} : (tensor<1xf32>, tensor<1xi64>, tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
func.func @rounding(%x: tensor<20xf32>, %y: tensor<20xf32>) -> (tensor<20xf32>, tensor<20xf32>) {
  %0 = aten.frac %x : (tensor<20xf32>) -> tensor<20xf32>
  %1 = aten.div_tensor_mode %x, %y {rounding_mode = "trunc"} : (tensor<20xf32>, tensor<20xf32>) -> tensor<20xf32>
  return %0, %1 : tensor<20xf32>, tensor<20xf32>
}

// The host code launches kernels and touches no buffer itself: the copy of
// the input, then the one-thread store (for add_one, the sum of the input's
// element and the value, stored into the copy).
// GPU-LABEL: func.func @put_one
// GPU-NOT: memref.store
// GPU-NOT: memref.load
// GPU: gpu.launch_func async {{.*}} @put_one_kernel::@put_one_kernel blocks in (%c1, %c1, %c1)
// GPU: gpu.launch_func async {{.*}} @put_one_kernel::@[[PUT:put_one_kernel_[0-9]+]] blocks in (%c1, %c1, %c1)
// GPU: return
// GPU: gpu.module
// GPU: gpu.func @[[PUT]](%{{.*}}: memref<1xi64>, %{{.*}}: memref<1xf32>, %[[R:.*]]: memref<4xf32>)
// GPU: memref.load
// GPU: arith.index_cast
// GPU: memref.store %{{.*}}, %[[R]][
// GPU: gpu.func @[[ADD:add_one_kernel_[0-9]+]]
// GPU: arith.addf
// GPU: memref.store
// GPU-LABEL: func.func @add_one
// GPU-NOT: memref.store
// GPU-NOT: memref.load
// GPU: gpu.launch_func async {{.*}} @put_one_kernel::@[[ADD]]
// GPU: return

// PTX: .entry put_one_kernel_0
// PTX: .entry add_one_kernel_1
// PTX: .entry rounding_kernel
// PTX: cvt.rzi.f32.f32
