// A transformer feed-forward block with BERT-base sizes (hidden 768, inner
// 3072, 128 tokens): linear, GELU, linear. Its two matmuls go to cuBLAS.
// test/gpu/check.py compares the GPU build with kiln's CPU build on random
// inputs (inputs.json gives their shapes) and times both GEMM paths.
func.func @forward(%x: tensor<128x768xf32>, %w1: tensor<3072x768xf32>, %b1: tensor<3072xf32>,
                   %w2: tensor<768x3072xf32>, %b2: tensor<768xf32>) -> tensor<128x768xf32> {
  %0 = aten.linear %x, %w1, %b1 : (tensor<128x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<128x3072xf32>
  %1 = aten.gelu %0 : tensor<128x3072xf32>
  %2 = aten.linear %1, %w2, %b2 : (tensor<128x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<128x768xf32>
  return %2 : tensor<128x768xf32>
}
