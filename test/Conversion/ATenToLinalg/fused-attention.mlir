// RUN: kiln-opt %s --kiln-gpu-fused-attention | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-fused-attention="float32-scores-mib=1" | FileCheck %s --check-prefix=F32

// kiln-gpu-fused-attention: attention the CUDA runtime's fused kernel runs
// becomes a call of kiln_gpu_sdpa_<type>[_boolmask|_addmask] on rank-4
// strided buffers; the rest keeps the aten op (the decomposition).

// CHECK-DAG: func.func private @kiln_gpu_sdpa_bf16_boolmask(memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xi1, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>, i32, i32, f32) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_sdpa_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i32, i32, f32) attributes {kiln.device_call, llvm.emit_c_interface}
// CHECK-DAG: func.func private @kiln_gpu_sdpa_f16_addmask(

// BERT's layout: heads split out of [B, S, H, E] by a permute are read in
// place through a reinterpret_cast of the source's own strides; the expanded
// mask is read through its size-1 dims; the result is written straight into
// the [B, L, H, Ev] layout its permute asks for (no copy either side).
// CHECK-LABEL: func.func @bert
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x4x64xbf16>, %[[Y:.*]]: tensor<2x16x4x64xbf16>, %[[Z:.*]]: tensor<2x16x4x64xbf16>, %[[M:.*]]: tensor<2x1x1x16xi1>)
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only {kiln.fused_attention_operand = {{[0-9]+}} : i64} : tensor<2x16x4x64xbf16> to memref<2x16x4x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[XBASE:.*]], %[[XOFF:.*]], %[[XS:.*]]:4, %[[XST:.*]]:4 = memref.extract_strided_metadata %[[XB]]
// CHECK: %[[QV:.*]] = memref.reinterpret_cast %[[XB]] to offset: [%[[XOFF]]], sizes: [%[[XS]]#0, %[[XS]]#2, %[[XS]]#1, %[[XS]]#3], strides: [%[[XST]]#0, %[[XST]]#2, %[[XST]]#1, %[[XST]]#3]
// CHECK: bufferization.to_buffer %[[Y]] read_only
// CHECK: bufferization.to_buffer %[[Z]] read_only
// CHECK: %[[MB:.*]] = bufferization.to_buffer %[[M]] read_only {{.*}} : tensor<2x1x1x16xi1> to memref<2x1x1x16xi1, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: %[[MV:.*]] = memref.cast %[[MB]]
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x16x4x64xbf16>
// CHECK: memref.extract_strided_metadata %[[OUT]]
// CHECK: %[[OV:.*]] = memref.reinterpret_cast %[[OUT]]
// CHECK-DAG: %[[NOCAUSAL:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[GROUP1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: call @kiln_gpu_sdpa_bf16_boolmask(%[[QV]], %{{.*}}, %{{.*}}, %[[MV]], %[[OV]], %[[NOCAUSAL]], %[[GROUP1]], %[[SCALE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x16x4x64xbf16> to tensor<2x16x4x64xbf16>
// CHECK: return %[[T]]
func.func @bert(%x: tensor<2x16x4x64xbf16>, %y: tensor<2x16x4x64xbf16>, %z: tensor<2x16x4x64xbf16>, %m: tensor<2x1x1x16xi1>) -> tensor<2x16x4x64xbf16> {
  %q = aten.permute %x {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %k = aten.permute %y {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %v = aten.permute %z {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x64xbf16>) -> tensor<2x4x16x64xbf16>
  %me = aten.expand %m[2, -1, 16, 16] : tensor<2x1x1x16xi1> -> tensor<2x1x16x16xi1>
  %a = aten.scaled_dot_product_attention %q, %k, %v mask %me {scale = 1.250000e-01 : f64} : (tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x4x16x64xbf16>, tensor<2x1x16x16xi1>) -> tensor<2x4x16x64xbf16>
  %o = aten.permute %a {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x64xbf16>) -> tensor<2x16x4x64xbf16>
  return %o : tensor<2x16x4x64xbf16>
}

// Rank 3 with a dynamic batch, causal, default scale 1/sqrt(40): operands
// gain a leading unit dim, the result buffer takes the query's batch size.
// CHECK-LABEL: func.func @causal3
// CHECK-SAME: (%[[Q:.*]]: tensor<?x7x40xf32>
// CHECK: tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] output_shape [1, %{{.*}}, 7, 40] : tensor<?x7x40xf32> into tensor<1x?x7x40xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x?x7x24xf32>
// CHECK-DAG: %[[CAUSAL:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0.158113882 : f32
// CHECK: call @kiln_gpu_sdpa_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CAUSAL]], %{{.*}}, %[[SCALE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2], [3]] : tensor<1x?x7x24xf32> into tensor<?x7x24xf32>
func.func @causal3(%q: tensor<?x7x40xf32>, %k: tensor<?x9x40xf32>, %v: tensor<?x9x24xf32>) -> tensor<?x7x24xf32> {
  %a = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x7x40xf32>, tensor<?x9x40xf32>, tensor<?x9x24xf32>) -> tensor<?x7x24xf32>
  return %a : tensor<?x7x24xf32>
}

// Grouped-query heads (8 query heads over 2): group 4; a 2-D additive mask
// of the query's type gains leading unit dims.
// CHECK-LABEL: func.func @addmask_gqa
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 5, 6] : tensor<5x6xf16> into tensor<1x1x5x6xf16>
// CHECK: %[[GROUP:.*]] = arith.constant 4 : i32
// CHECK: call @kiln_gpu_sdpa_f16_addmask(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GROUP]], %{{.*}})
func.func @addmask_gqa(%q: tensor<1x8x5x32xf16>, %k: tensor<1x2x6x32xf16>, %v: tensor<1x2x6x32xf16>, %m: tensor<5x6xf16>) -> tensor<1x8x5x32xf16> {
  %a = aten.scaled_dot_product_attention %q, %k, %v mask %m {enable_gqa = true} : (tensor<1x8x5x32xf16>, tensor<1x2x6x32xf16>, tensor<1x2x6x32xf16>, tensor<5x6xf16>) -> tensor<1x8x5x32xf16>
  return %a : tensor<1x8x5x32xf16>
}

// One mask for two calls: each call reads it through a to_buffer of its own
// (distinct markers keep CSE from merging them).
// CHECK-LABEL: func.func @shared_mask
// CHECK: bufferization.to_buffer %[[SM:[^ ]*]] read_only {kiln.fused_attention_operand = [[A:[0-9]+]] : i64} : tensor<1x1x8x8xi1>
// CHECK: call @kiln_gpu_sdpa_bf16_boolmask
// CHECK: bufferization.to_buffer %[[SM]] read_only {kiln.fused_attention_operand = {{[0-9]+}} : i64} : tensor<1x1x8x8xi1>
// CHECK: call @kiln_gpu_sdpa_bf16_boolmask
func.func @shared_mask(%q: tensor<1x2x8x32xbf16>, %m: tensor<1x1x8x8xi1>) -> tensor<1x2x8x32xbf16> {
  %a = aten.scaled_dot_product_attention %q, %q, %q mask %m : (tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x1x8x8xi1>) -> tensor<1x2x8x32xbf16>
  %b = aten.scaled_dot_product_attention %a, %q, %q mask %m : (tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x1x8x8xi1>) -> tensor<1x2x8x32xbf16>
  return %b : tensor<1x2x8x32xbf16>
}

// What the kernel does not take keeps the aten op: head sizes above 128,
// float64, a dynamic head size, rank 5.
// CHECK-LABEL: func.func @fallbacks
// CHECK-NOT: call @kiln_gpu_sdpa
// CHECK-COUNT-4: aten.scaled_dot_product_attention
// CHECK-NOT: call @kiln_gpu_sdpa
// CHECK: return
func.func @fallbacks(%big: tensor<1x2x5x256xf32>, %d: tensor<1x2x5x32xf64>, %dyn: tensor<1x2x5x?xf32>,
                     %r5: tensor<1x1x2x5x32xf32>)
    -> (tensor<1x2x5x256xf32>, tensor<1x2x5x32xf64>, tensor<1x2x5x?xf32>, tensor<1x1x2x5x32xf32>) {
  %0 = aten.scaled_dot_product_attention %big, %big, %big : (tensor<1x2x5x256xf32>, tensor<1x2x5x256xf32>, tensor<1x2x5x256xf32>) -> tensor<1x2x5x256xf32>
  %1 = aten.scaled_dot_product_attention %d, %d, %d : (tensor<1x2x5x32xf64>, tensor<1x2x5x32xf64>, tensor<1x2x5x32xf64>) -> tensor<1x2x5x32xf64>
  %2 = aten.scaled_dot_product_attention %dyn, %dyn, %dyn {scale = 0.5 : f64} : (tensor<1x2x5x?xf32>, tensor<1x2x5x?xf32>, tensor<1x2x5x?xf32>) -> tensor<1x2x5x?xf32>
  %4 = aten.scaled_dot_product_attention %r5, %r5, %r5 : (tensor<1x1x2x5x32xf32>, tensor<1x1x2x5x32xf32>, tensor<1x1x2x5x32xf32>) -> tensor<1x1x2x5x32xf32>
  return %0, %1, %2, %4 : tensor<1x2x5x256xf32>, tensor<1x2x5x32xf64>, tensor<1x2x5x?xf32>, tensor<1x1x2x5x32xf32>
}

// Llama-family grouped-query attention: keys and values projected as
// [B, S, Hk, E], their heads split out by a permute and repeated for the
// query heads by repeat_kv (unsqueeze, expand, view). The call reads the
// projections in place (a permuted view of each, no repeat) with group 4.
// CHECK-LABEL: func.func @repeat_kv
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x16x64xbf16>, %[[Y:.*]]: tensor<1x16x2x64xbf16>, %[[Z:.*]]: tensor<1x16x2x64xbf16>)
// CHECK: bufferization.to_buffer %[[Q]] read_only
// CHECK: %[[KB:.*]] = bufferization.to_buffer %[[Y]] read_only {{.*}} : tensor<1x16x2x64xbf16> to memref<1x16x2x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: memref.reinterpret_cast %[[KB]]
// CHECK: %[[VB:.*]] = bufferization.to_buffer %[[Z]] read_only {{.*}} : tensor<1x16x2x64xbf16> to memref<1x16x2x64xbf16, strided<[?, ?, ?, ?], offset: ?>>
// CHECK: memref.reinterpret_cast %[[VB]]
// CHECK-DAG: %[[CAUSAL:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[GROUP:.*]] = arith.constant 4 : i32
// CHECK: call @kiln_gpu_sdpa_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CAUSAL]], %[[GROUP]], %{{.*}})
func.func @repeat_kv(%q: tensor<1x8x16x64xbf16>, %y: tensor<1x16x2x64xbf16>, %z: tensor<1x16x2x64xbf16>) -> tensor<1x8x16x64xbf16> {
  %k = aten.permute %y {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x64xbf16>) -> tensor<1x2x16x64xbf16>
  %v = aten.permute %z {dims = array<i64: 0, 2, 1, 3>} : (tensor<1x16x2x64xbf16>) -> tensor<1x2x16x64xbf16>
  %ku = aten.unsqueeze %k, 2 : (tensor<1x2x16x64xbf16>) -> tensor<1x2x1x16x64xbf16>
  %ke = aten.expand %ku[1, 2, 4, 16, 64] : tensor<1x2x1x16x64xbf16> -> tensor<1x2x4x16x64xbf16>
  %kr = aten.view %ke[1, 8, 16, 64] : tensor<1x2x4x16x64xbf16> -> tensor<1x8x16x64xbf16>
  %vu = aten.unsqueeze %v, 2 : (tensor<1x2x16x64xbf16>) -> tensor<1x2x1x16x64xbf16>
  %ve = aten.expand %vu[1, 2, 4, 16, 64] : tensor<1x2x1x16x64xbf16> -> tensor<1x2x4x16x64xbf16>
  %vr = aten.view %ve[1, 8, 16, 64] : tensor<1x2x4x16x64xbf16> -> tensor<1x8x16x64xbf16>
  %a = aten.scaled_dot_product_attention %q, %kr, %vr {is_causal = true} : (tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>) -> tensor<1x8x16x64xbf16>
  return %a : tensor<1x8x16x64xbf16>
}

// Heads repeated along another dim (unsqueeze at 1: head h reads source
// head h % 2, not h / 4) are not grouped-query attention: the call reads
// the repeated tensors, group 1.
// CHECK-LABEL: func.func @repeat_outer
// CHECK: bufferization.to_buffer %{{.*}} read_only {{.*}} : tensor<1x8x16x64xbf16>
// CHECK: bufferization.to_buffer %{{.*}} read_only {{.*}} : tensor<1x8x16x64xbf16>
// CHECK-DAG: %[[GROUP1:.*]] = arith.constant 1 : i32
// CHECK: call @kiln_gpu_sdpa_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GROUP1]], %{{.*}})
func.func @repeat_outer(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>) -> tensor<1x8x16x64xbf16> {
  %ku = aten.unsqueeze %k, 1 : (tensor<1x2x16x64xbf16>) -> tensor<1x1x2x16x64xbf16>
  %ke = aten.expand %ku[1, 4, 2, 16, 64] : tensor<1x1x2x16x64xbf16> -> tensor<1x4x2x16x64xbf16>
  %kr = aten.view %ke[1, 8, 16, 64] : tensor<1x4x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
  %a = aten.scaled_dot_product_attention %q, %kr, %kr : (tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>) -> tensor<1x8x16x64xbf16>
  return %a : tensor<1x8x16x64xbf16>
}

// A bool mask built the way Hugging Face models build it: key positions
// (arange along the last dim) <= query positions (arange along dim -2),
// and-ed with a padding mask read from an input. It hides every key after
// its query, so the call also sets the causal flag (the kernel then skips
// the tiles after the diagonal) and still reads the mask.
// (The causal operand is the sixth: %c1_i32 is a constant 1, %c0_i32 a 0.)
// CHECK-LABEL: func.func @causal_and_padding
// CHECK: call @kiln_gpu_sdpa_bf16_boolmask(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c1_i32{{(_[0-9]+)?}}, %{{[^,]*}}, %{{[^,]*}})
func.func @causal_and_padding(%q: tensor<1x8x16x64xbf16>, %pad: tensor<1x1x1x16xi1>) -> tensor<1x8x16x64xbf16> {
  %r = aten.arange {end = 16 : i64, start = 0 : i64, step = 1 : i64} : tensor<16xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %r0 = aten.add_tensor %r, %zero : (tensor<16xi64>, tensor<i64>) -> tensor<16xi64>
  %c = aten.arange {end = 16 : i64, start = 0 : i64, step = 1 : i64} : tensor<16xi64>
  %q1 = aten.unsqueeze %r0, 0 : (tensor<16xi64>) -> tensor<1x16xi64>
  %q2 = aten.unsqueeze %q1, 1 : (tensor<1x16xi64>) -> tensor<1x1x16xi64>
  %qi = aten.unsqueeze %q2, 3 : (tensor<1x1x16xi64>) -> tensor<1x1x16x1xi64>
  %k1 = aten.unsqueeze %c, 0 : (tensor<16xi64>) -> tensor<1x16xi64>
  %k2 = aten.unsqueeze %k1, 1 : (tensor<1x16xi64>) -> tensor<1x1x16xi64>
  %kj = aten.unsqueeze %k2, 2 : (tensor<1x1x16xi64>) -> tensor<1x1x1x16xi64>
  %t = aten.full [], true : tensor<i1>
  %le = aten.le_tensor %kj, %qi : (tensor<1x1x1x16xi64>, tensor<1x1x16x1xi64>) -> tensor<1x1x16x16xi1>
  %lec = aten._to_copy %le : (tensor<1x1x16x16xi1>) -> tensor<1x1x16x16xi1>
  %a1 = aten.bitwise_and_tensor %t, %lec : (tensor<i1>, tensor<1x1x16x16xi1>) -> tensor<1x1x16x16xi1>
  %m = aten.bitwise_and_tensor %a1, %pad : (tensor<1x1x16x16xi1>, tensor<1x1x1x16xi1>) -> tensor<1x1x16x16xi1>
  %me = aten.expand %m[1, -1, 16, 16] : tensor<1x1x16x16xi1> -> tensor<1x1x16x16xi1>
  %a = aten.scaled_dot_product_attention %q, %q, %q mask %me : (tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x1x16x16xi1>) -> tensor<1x8x16x64xbf16>
  return %a : tensor<1x8x16x64xbf16>
}

// Query positions >= key positions (ge, the other way round) and key <
// query + 1 (lt) are the same rule; key < query is stricter: all set the flag.
// CHECK-LABEL: func.func @causal_forms
// CHECK-COUNT-3: call @kiln_gpu_sdpa_f32_boolmask(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c1_i32{{(_[0-9]+)?}},
func.func @causal_forms(%q: tensor<2x4x8x32xf32>) -> (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) {
  %r = aten.arange {end = 8 : i64, start = 0 : i64, step = 1 : i64} : tensor<8xi64>
  %qi = aten.unsqueeze %r, 1 : (tensor<8xi64>) -> tensor<8x1xi64>
  %one = arith.constant dense<1> : tensor<i64>
  %qi1 = aten.add_tensor %qi, %one : (tensor<8x1xi64>, tensor<i64>) -> tensor<8x1xi64>
  %ge = aten.ge_tensor %qi, %r : (tensor<8x1xi64>, tensor<8xi64>) -> tensor<8x8xi1>
  %lt1 = aten.lt_tensor %r, %qi1 : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %lt = aten.lt_tensor %r, %qi : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %a = aten.scaled_dot_product_attention %q, %q, %q mask %ge : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  %b = aten.scaled_dot_product_attention %q, %q, %q mask %lt1 : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  %c = aten.scaled_dot_product_attention %q, %q, %q mask %lt : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  return %a, %b, %c : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
}

// Masks that let a query see a later key keep the flag off: key <= query + 1
// (a shifted diagonal), query positions that start later (a decode step's
// query at position 8 over 9 keys: the kernel's causal rule is top-left),
// positions along the wrong dims, an or with another mask, and a mask
// broadcast along the query dim.
// CHECK-LABEL: func.func @not_causal
// CHECK-COUNT-5: call @kiln_gpu_sdpa_f32_boolmask(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c0_i32{{(_[0-9]+)?}},
func.func @not_causal(%q: tensor<2x4x8x32xf32>, %q1: tensor<2x4x1x32xf32>, %k9: tensor<2x4x9x32xf32>, %other: tensor<8x8xi1>, %row: tensor<1x8xi1>) -> (tensor<2x4x8x32xf32>, tensor<2x4x1x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) {
  %r = aten.arange {end = 8 : i64, start = 0 : i64, step = 1 : i64} : tensor<8xi64>
  %qi = aten.unsqueeze %r, 1 : (tensor<8xi64>) -> tensor<8x1xi64>
  %one = arith.constant dense<1> : tensor<i64>
  %qi1 = aten.add_tensor %qi, %one : (tensor<8x1xi64>, tensor<i64>) -> tensor<8x1xi64>
  %shift = aten.le_tensor %r, %qi1 : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %a = aten.scaled_dot_product_attention %q, %q, %q mask %shift : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  %k = aten.arange {end = 9 : i64, start = 0 : i64, step = 1 : i64} : tensor<9xi64>
  %p = aten.arange {end = 9 : i64, start = 8 : i64, step = 1 : i64} : tensor<1xi64>
  %pi = aten.unsqueeze %p, 1 : (tensor<1xi64>) -> tensor<1x1xi64>
  %dec = aten.le_tensor %k, %pi : (tensor<9xi64>, tensor<1x1xi64>) -> tensor<1x9xi1>
  %b = aten.scaled_dot_product_attention %q1, %k9, %k9 mask %dec : (tensor<2x4x1x32xf32>, tensor<2x4x9x32xf32>, tensor<2x4x9x32xf32>, tensor<1x9xi1>) -> tensor<2x4x1x32xf32>
  %kj = aten.unsqueeze %r, 0 : (tensor<8xi64>) -> tensor<1x8xi64>
  %wrong = aten.le_tensor %qi, %kj : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x8xi1>
  %c = aten.scaled_dot_product_attention %q, %q, %q mask %wrong : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  %le = aten.le_tensor %r, %qi : (tensor<8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %or = aten.logical_or %le, %other : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
  %d = aten.scaled_dot_product_attention %q, %q, %q mask %or : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<8x8xi1>) -> tensor<2x4x8x32xf32>
  %e = aten.scaled_dot_product_attention %q, %q, %q mask %row : (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<1x8xi1>) -> tensor<2x4x8x32xf32>
  return %a, %b, %c, %d, %e : tensor<2x4x8x32xf32>, tensor<2x4x1x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
}

// With float32-scores-mib=1 (the CUDA pipeline leaves the option at 0), float32
// attention whose scores (B x H x L x S floats) fit in 1 MiB keeps the aten
// op for the decomposition (cuBLAS GEMMs); larger scores (4 x 256 x 512
// floats: 2 MiB) and 16-bit types still call the fused kernel.
// F32-LABEL: func.func @f32_scores
// F32: aten.scaled_dot_product_attention {{.*}} -> tensor<1x2x8x32xf32>
// F32: call @kiln_gpu_sdpa_f32(
// F32: call @kiln_gpu_sdpa_bf16(
// F32-NOT: aten.scaled_dot_product_attention
// F32: return
func.func @f32_scores(%small: tensor<1x2x8x32xf32>, %q: tensor<1x4x256x32xf32>, %k: tensor<1x4x512x32xf32>, %h: tensor<1x2x8x32xbf16>) -> (tensor<1x2x8x32xf32>, tensor<1x4x256x32xf32>, tensor<1x2x8x32xbf16>) {
  %a = aten.scaled_dot_product_attention %small, %small, %small : (tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>) -> tensor<1x2x8x32xf32>
  %b = aten.scaled_dot_product_attention %q, %k, %k : (tensor<1x4x256x32xf32>, tensor<1x4x512x32xf32>, tensor<1x4x512x32xf32>) -> tensor<1x4x256x32xf32>
  %c = aten.scaled_dot_product_attention %h, %h, %h : (tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>, tensor<1x2x8x32xbf16>) -> tensor<1x2x8x32xbf16>
  return %a, %b, %c : tensor<1x2x8x32xf32>, tensor<1x4x256x32xf32>, tensor<1x2x8x32xbf16>
}
