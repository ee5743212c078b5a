// RUN: kiln-opt %s --split-input-file --kiln-gpu-device-buffers --verify-diagnostics | FileCheck %s

// Buffers a kernel touches (directly or through a view) or the caller gets
// back become device allocations; a buffer only the host uses stays a host
// allocation; a constant a kernel reads is rematerialized inside it.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
// CHECK-LABEL: func.func @f
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<2x4xf32>
// CHECK: %[[TMP:.*]] = gpu.alloc () : memref<8xf32>
// CHECK: %[[HOST:.*]] = memref.alloc() : memref<2xindex>
// CHECK: %[[TV:.*]] = memref.expand_shape %[[TMP]]
// CHECK: memref.store %arg1, %[[HOST]]
// CHECK: gpu.launch
// CHECK:   %[[G:.*]] = memref.get_global @table : memref<4xf32>
// CHECK:   %[[GV:.*]] = memref.expand_shape %[[G]]
// CHECK:   memref.load %[[GV]]
// CHECK:   memref.store %{{.*}}, %[[TV]]
// CHECK:   memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.dealloc %[[TMP]] : memref<8xf32>
// CHECK: memref.dealloc %[[HOST]] : memref<2xindex>
// CHECK: return %[[OUT]]
func.func @f(%x: memref<2x4xf32>, %shape: index) -> memref<2x4xf32> {
  %out = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
  %tmp = memref.alloc() : memref<8xf32>
  %host = memref.alloc() : memref<2xindex>
  %g = memref.get_global @table : memref<4xf32>
  %gv = memref.expand_shape %g [[0, 1]] output_shape [1, 4] : memref<4xf32> into memref<1x4xf32>
  %tv = memref.expand_shape %tmp [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  %c0 = arith.constant 0 : index
  memref.store %shape, %host[%c0] : memref<2xindex>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %gv[%c0, %bx] : memref<1x4xf32>
    %w = memref.load %x[%bx, %c0] : memref<2x4xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %tv[%bx, %c0] : memref<2x4xf32>
    memref.store %s, %out[%bx, %c0] : memref<2x4xf32>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<8xf32>
  memref.dealloc %host : memref<2xindex>
  return %out : memref<2x4xf32>
}

// -----

// The host reads an element of device memory (arguments live on the device)
// through the runtime: the element's address (aligned pointer plus offset
// and index times stride, in bytes) is copied into a host scalar of its
// type, made once at the function's entry, which the host then loads.
// CHECK-LABEL: func.func private @kiln_gpu_read_to_host(index, index, index) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @host_read
// CHECK-SAME: (%[[X:.*]]: memref<4x6xf32, strided<[6, 1], offset: ?>>, %[[I:.*]]: index, %[[N:.*]]: memref<2xi64>)
// CHECK-DAG: %[[SF:.*]] = memref.alloca() : memref<f32>
// CHECK-DAG: %[[SI:.*]] = memref.alloca() : memref<i64>
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SZ:.*]]:2, %[[ST:.*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[R:.*]] = arith.muli %[[I]], %[[ST]]#0
// CHECK: %[[L0:.*]] = arith.addi %[[OFF]], %[[R]]
// CHECK: %[[C:.*]] = arith.muli %{{.*}}, %[[ST]]#1
// CHECK: %[[L1:.*]] = arith.addi %[[L0]], %[[C]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[B:.*]] = arith.muli %[[L1]], %[[C4]]
// CHECK: %[[A:.*]] = arith.addi %[[P]], %[[B]]
// CHECK: %[[H:.*]] = memref.extract_aligned_pointer_as_index %[[SF]]
// CHECK: call @kiln_gpu_read_to_host(%[[H]], %[[A]], %[[C4]])
// CHECK: %[[V:.*]] = memref.load %[[SF]][] : memref<f32>
// CHECK: memref.extract_strided_metadata %[[N]]
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: memref.extract_aligned_pointer_as_index %[[N]]
// CHECK: %[[HI:.*]] = memref.extract_aligned_pointer_as_index %[[SI]]
// CHECK: call @kiln_gpu_read_to_host(%[[HI]], %{{.*}}, %[[C8]])
// CHECK: %[[K:.*]] = memref.load %[[SI]][] : memref<i64>
// CHECK: return %[[V]], %[[K]]
func.func @host_read(%x: memref<4x6xf32, strided<[6, 1], offset: ?>>, %i: index, %n: memref<2xi64>) -> (f32, i64) {
  %c1 = arith.constant 1 : index
  %v = memref.load %x[%i, %c1] : memref<4x6xf32, strided<[6, 1], offset: ?>>
  %k = memref.load %n[%c1] : memref<2xi64>
  return %v, %k : f32, i64
}

// -----

// Nor write into a buffer a kernel also uses.
func.func @host_write(%x: memref<4xf32>) -> memref<4xf32> {
  %b = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{'memref.store' op reads or writes a device buffer on the host}}
  memref.store %one, %b[%c0] : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%c0] : memref<4xf32>
    memref.store %v, %b[%c1] : memref<4xf32>
    gpu.terminator
  }
  return %b : memref<4xf32>
}

// -----

// A runtime library call on device buffers (kiln.device_call) is a device use:
// the buffer it writes is a device allocation, and the call is allowed on the host.
func.func private @kiln_gpu_gemm_f32(memref<4x4xf32>, memref<4x4xf32>) attributes {kiln.device_call}
// CHECK-LABEL: func.func @library
// CHECK: %[[B:.*]] = gpu.alloc () : memref<4x4xf32>
// CHECK: call @kiln_gpu_gemm_f32(%arg0, %[[B]])
// CHECK: gpu.dealloc %[[B]]
func.func @library(%a: memref<4x4xf32>) {
  %b = memref.alloc() : memref<4x4xf32>
  call @kiln_gpu_gemm_f32(%a, %b) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  memref.dealloc %b : memref<4x4xf32>
  return
}

// -----

// A dispatcher op between kernels (aten.call_runtime on buffers) takes and
// returns device buffers: the runtime copies them across around the call.
// The pass marks it for the lowering that calls kiln_rt_call_op_device.
// CHECK-LABEL: func.func @host_call
// CHECK: %[[IN:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.launch
// CHECK: %[[R:.*]] = aten.call_runtime "kilntest::scaled_gelu"(%[[IN]]) {args = [memref<4xf32>, 2.000000e+00], kiln.device_call}
// CHECK: gpu.launch
// CHECK: memref.load %[[R]]
// CHECK: gpu.dealloc %[[IN]]
// CHECK: gpu.dealloc %[[R]]
func.func @host_call(%x: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %in = memref.alloc() : memref<4xf32>
  %out = memref.alloc() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx] : memref<4xf32>
    memref.store %v, %in[%bx] : memref<4xf32>
    gpu.terminator
  }
  %r = aten.call_runtime "kilntest::scaled_gelu"(%in) {args = [memref<4xf32>, 2.0 : f64]} : (memref<4xf32>) -> memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %r[%bx] : memref<4xf32>
    memref.store %v, %out[%bx] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %in : memref<4xf32>
  memref.dealloc %r : memref<4xf32>
  return %out : memref<4xf32>
}

// -----

// A buffer chosen on the host by an scf.if (a dynamic-shape broadcast picks
// one of two buffers) is fine to yield on the host; the buffers either branch
// yields become device allocations when a kernel reads the result.
// CHECK-LABEL: func.func @chosen_by_if
// CHECK: %[[A:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[B:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[R:.*]] = scf.if
// CHECK:   scf.yield %[[A]]
// CHECK:   scf.yield %[[B]]
// CHECK: gpu.launch
// CHECK:   memref.load %[[R]]
func.func @chosen_by_if(%c: i1, %out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = scf.if %c -> memref<4xf32> {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %r[%c0] : memref<4xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A recurrence whose steps are kernels (an RNN's time loop): the host loop
// carries the state buffer from step to step. The initial state, the buffer
// each step allocates and yields, and the loop's result are all device
// allocations; the host only passes them along.
// CHECK-LABEL: func.func @recurrence
// CHECK: %[[H0:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[H:.*]] = scf.for {{.*}} iter_args(%[[S:.*]] = %[[H0]])
// CHECK:   %[[N:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:   gpu.launch
// CHECK:     memref.load %[[S]]
// CHECK:     memref.store %{{.*}}, %[[N]]
// CHECK:   gpu.dealloc %[[S]]
// CHECK:   scf.yield %[[N]]
// CHECK: gpu.launch
// CHECK:   memref.load %[[H]]
// CHECK-NOT: memref.alloc
func.func @recurrence(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %h0 = memref.alloc() : memref<4xf32>
  %h = scf.for %t = %c0 to %c10 step %c1 iter_args(%s = %h0) -> (memref<4xf32>) {
    %n = memref.alloc() : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %s[%c0] : memref<4xf32>
      memref.store %v, %n[%c0] : memref<4xf32>
      gpu.terminator
    }
    memref.dealloc %s : memref<4xf32>
    scf.yield %n : memref<4xf32>
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %h[%c0] : memref<4xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %h : memref<4xf32>
  return
}

// -----

// A kernel's result that host control flow needs (a split size, a loop
// bound) is read through the runtime inside the host loop too; the buffer
// stays a device allocation and one host scalar serves every read.
// CHECK-LABEL: func.func @host_reads_carried
// CHECK: %[[S:.*]] = memref.alloca() : memref<index>
// CHECK: %[[B:.*]] = gpu.alloc () : memref<4xindex>
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK:   call @kiln_gpu_read_to_host(%{{.*}}, %{{.*}}, %{{.*}})
// CHECK:   %[[V:.*]] = memref.load %[[S]][] : memref<index>
// CHECK:   arith.addi %{{.*}}, %[[V]]
// CHECK: gpu.dealloc %[[B]]
func.func @host_reads_carried(%out: memref<4xindex>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = memref.alloc() : memref<4xindex>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %bx, %b[%bx] : memref<4xindex>
    gpu.terminator
  }
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    %v = memref.load %b[%t] : memref<4xindex>
    %a = arith.addi %acc, %v : index
    scf.yield %a : index
  }
  memref.dealloc %b : memref<4xindex>
  return %r : index
}

// -----

// A constant that host code keeps (here: read on the host) and a kernel
// reads: the kernel reads it through its own copy of the global
// (`@zeros_kernel`, which host code never names, so CSE cannot hand the
// kernel the host global's address). A constant that a runtime call on
// device buffers takes gets a device copy, made by a kernel just before the
// call and freed after it.
memref.global "private" constant @zeros : memref<2x3xf32> = dense<0.0>
// CHECK: memref.global "private" constant @zeros_kernel : memref<2x3xf32> = dense<0.000000e+00>
// CHECK-LABEL: func.func @kept_constant
// CHECK: %[[G:.*]] = memref.get_global @zeros : memref<2x3xf32>
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<2x3xf32>
// CHECK: gpu.launch
// CHECK:   memref.get_global @zeros_kernel
// CHECK: %[[COPY:.*]] = gpu.alloc () : memref<2x3xf32>
// CHECK: gpu.launch
// CHECK:   %[[K:.*]] = memref.get_global @zeros_kernel : memref<2x3xf32>
// CHECK:   %[[E:.*]] = memref.load %[[K]]
// CHECK:   memref.store %[[E]], %[[COPY]]
// CHECK: call @kiln_gpu_library_step(%[[COPY]], %[[OUT]])
// CHECK: gpu.dealloc %[[COPY]]
// CHECK: %[[H:.*]] = memref.load %[[G]]
// CHECK: return %[[OUT]], %[[H]]
func.func private @kiln_gpu_library_step(memref<2x3xf32>, memref<2x3xf32>) attributes {kiln.device_call}
func.func @kept_constant(%x: memref<2x3xf32>) -> (memref<2x3xf32>, f32) {
  %g = memref.get_global @zeros : memref<2x3xf32>
  %out = memref.alloc() : memref<2x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %g[%bx, %c0] : memref<2x3xf32>
    %w = memref.load %x[%bx, %c0] : memref<2x3xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%bx, %c0] : memref<2x3xf32>
    gpu.terminator
  }
  call @kiln_gpu_library_step(%g, %out) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  %h = memref.load %g[%c1, %c2] : memref<2x3xf32>
  return %out, %h : memref<2x3xf32>, f32
}
