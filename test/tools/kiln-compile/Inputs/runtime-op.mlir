// A model whose one op runs through the runtime's dispatcher (the example plugin's).
func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4x8xf32>, 5.000000e-01]} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
