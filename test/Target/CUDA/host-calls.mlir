// RUN: kiln-opt %s --kiln-cuda-pipeline | FileCheck %s

// A dispatcher op between two kernels on the CUDA path: the host waits for
// the stream, then calls the runtime's device variant of the dispatcher
// bridge (kiln_rt_call_op_device copies the operands to the host and the
// results back), and the next kernel reads the result on the device.
// CHECK: llvm.func @kiln_rt_call_op_device(!llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @host_call
// CHECK: %[[BUF:.*]] = llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.call @kiln_rt_call_op_device
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemFree
// CHECK-NOT: @kiln_rt_call_op(
func.func @host_call(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.relu %x : tensor<4x8xf32>
  %1 = aten.call_runtime "kilntest::scaled_gelu"(%0) {args = [tensor<4x8xf32>, 2.000000e+00]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = aten.neg %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
