// RUN: kiln-opt %s --kiln-lower-to-linalg --kiln-linalg-to-gpu | FileCheck %s

// The GPU pipeline frees each device buffer right after the last kernel that
// reads it: the gpu.dealloc is queued on the call's stream after that launch
// (its async token), so the next allocation can take the block while the
// later kernels run. Three products in a chain hold at most two 8x16 buffers
// at once (1024 bytes), which the entry records for --timing.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: kiln.peak_buffer_bytes = 1024 : i64
// CHECK: %[[B:[a-z0-9_]+]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<8x16xf32>
// CHECK: %[[A:[a-z0-9_]+]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<8x16xf32>
// CHECK: gpu.launch_func async [%{{.*}}] {{.*}} args(%[[A]] : memref<8x16xf32>, %arg0
// CHECK: %[[L:[0-9]+]] = gpu.launch_func async [%{{.*}}] {{.*}} args(%[[B]] : memref<8x16xf32>, %[[A]] : memref<8x16xf32>, %arg2
// CHECK-NEXT: %[[F:[0-9]+]] = gpu.dealloc async [%[[L]]] %[[A]] : memref<8x16xf32>
// CHECK-NEXT: %[[C:[a-z0-9_]+]], %{{.*}} = gpu.alloc async [%[[F]]] () : memref<8x4xf32>
// CHECK: %[[L2:[0-9]+]] = gpu.launch_func async [%{{.*}}] {{.*}} args(%[[C]] : memref<8x4xf32>, %[[B]] : memref<8x16xf32>, %arg3
// CHECK-NEXT: %[[F2:[0-9]+]] = gpu.dealloc async [%[[L2]]] %[[B]] : memref<8x16xf32>
// CHECK-NEXT: gpu.wait [%[[F2]]]
// CHECK-NEXT: return %[[C]]
func.func @chain(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %w3: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %a = aten.mm %x, %w1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %b = aten.mm %a, %w2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %c = aten.mm %b, %w3 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %c : tensor<8x4xf32>
}
