// An ATen op kiln runs through the runtime's eager kernels (topk) between
// two generated kernels: on the GPU the op runs on the host, its operand
// copied from the device and its results copied back
// (kiln_rt_call_op_device). test/gpu/check.py compares the GPU build with
// kiln's CPU build on random inputs (inputs.json gives their shapes).
func.func @forward(%x: tensor<64x1000xf32>) -> (tensor<64x5xf32>, tensor<64x5xi64>) {
  %0 = aten.tanh %x : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %v, %i = aten.call_runtime "aten::topk"(%0) {args = [tensor<64x1000xf32>, 5 : i64]} : (tensor<64x1000xf32>) -> (tensor<64x5xf32>, tensor<64x5xi64>)
  %1 = aten.neg %v : (tensor<64x5xf32>) -> tensor<64x5xf32>
  return %1, %i : tensor<64x5xf32>, tensor<64x5xi64>
}
