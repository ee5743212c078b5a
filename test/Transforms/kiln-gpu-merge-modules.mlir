// RUN: kiln-opt %s --split-input-file --kiln-gpu-merge-modules | FileCheck %s

// Two outlined modules (the same kernel name in each, and a copy of one global
// in each) become one module; kernels take their module's name and every
// launch follows.
// CHECK: gpu.module @f_kernel {
// CHECK-DAG: gpu.func @f_kernel(
// CHECK-DAG: gpu.func @f_kernel_0(
// CHECK-DAG: memref.global "private" constant @cst
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @f_kernel::@f_kernel blocks
// CHECK: gpu.launch_func @f_kernel::@f_kernel_0 blocks
module attributes {gpu.container_module} {
  gpu.module @f_kernel {
    memref.global "private" constant @cst : memref<2xf32> = dense<[1.0, 2.0]>
    gpu.func @f_kernel(%a: memref<2xf32>) kernel {
      %g = memref.get_global @cst : memref<2xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    memref.global "private" constant @cst : memref<2xf32> = dense<[1.0, 2.0]>
    gpu.func @f_kernel(%a: memref<2xf32>) kernel {
      %g = memref.get_global @cst : memref<2xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<2xf32>
      memref.store %v, %a[%c0] : memref<2xf32>
      gpu.return
    }
  }
  func.func @f(%a: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<2xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<2xf32>)
    return
  }
}

// -----

// Kernels with the same code (a model's repeated layers) are compiled once:
// the second launch runs the first kernel. The third reads another global,
// so it stays its own kernel.
// CHECK: gpu.module @g_kernel {
// CHECK: gpu.func @g_kernel(
// CHECK-NOT: gpu.func @g_kernel_0(
// CHECK: gpu.func @g_kernel_1(
// CHECK-LABEL: func.func @g
// CHECK: gpu.launch_func @g_kernel::@g_kernel blocks
// CHECK: gpu.launch_func @g_kernel::@g_kernel blocks
// CHECK: gpu.launch_func @g_kernel::@g_kernel_1 blocks
module attributes {gpu.container_module} {
  gpu.module @g_kernel {
    memref.global "private" constant @cst : memref<2xf32> = dense<[1.0, 2.0]>
    gpu.func @g_kernel(%a: memref<2xf32>) kernel {
      %g = memref.get_global @cst : memref<2xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<2xf32>
      memref.store %v, %a[%c0] : memref<2xf32>
      gpu.return
    }
  }
  gpu.module @g_kernel_0 {
    memref.global "private" constant @cst : memref<2xf32> = dense<[1.0, 2.0]>
    gpu.func @g_kernel(%b: memref<2xf32>) kernel {
      %g = memref.get_global @cst : memref<2xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<2xf32>
      memref.store %v, %b[%c0] : memref<2xf32>
      gpu.return
    }
  }
  gpu.module @g_kernel_1 {
    memref.global "private" constant @cst_0 : memref<2xf32> = dense<[3.0, 4.0]>
    gpu.func @g_kernel(%a: memref<2xf32>) kernel {
      %g = memref.get_global @cst_0 : memref<2xf32>
      %c0 = arith.constant 0 : index
      %v = memref.load %g[%c0] : memref<2xf32>
      memref.store %v, %a[%c0] : memref<2xf32>
      gpu.return
    }
  }
  func.func @g(%a: memref<2xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @g_kernel::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<2xf32>)
    gpu.launch_func @g_kernel_0::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<2xf32>)
    gpu.launch_func @g_kernel_1::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<2xf32>)
    return
  }
}
