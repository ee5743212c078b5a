// kiln runtime — 3x3 stride-1 float32 convolutions by Winograd's minimal filtering F(4x4, 3x3).
#ifndef KILN_RUNTIME_CPU_WINOGRAD_H
#define KILN_RUNTIME_CPU_WINOGRAD_H

#include <cstdint>

namespace kiln::cpu {

/// A 4-d (N, C, H, W) operand whose channels lie in groups of `group`
/// consecutive elements: element (n, c, h, w) is at
/// data[n*image + (c / group)*block + c % group + h*row + w*column].
/// A channels-last tensor is one group of all channels (block 0); oneDNN's
/// blocked nChw8c / nChw16c layouts are groups of 8 / 16.
struct WinogradOperand {
  float *data = nullptr;
  int64_t image = 0, block = 0, group = 0, row = 0, column = 0;
};

/// y (+)= act(conv3x3(x, w) + bias (+ r)) with stride 1, no dilation, one
/// group, and the filter a constant weight.
struct WinogradConv {
  int64_t n = 0, c = 0, k = 0;  ///< images, input channels, output channels
  int64_t h = 0, w = 0;         ///< the input's rows and columns
  int64_t oh = 0, ow = 0;       ///< the output's
  int64_t padTop = 0, padLeft = 0;
  WinogradOperand x, y, r;      ///< r.data null: nothing added
  const float *weight = nullptr;
  int64_t wK = 0, wC = 0, wH = 0, wW = 0;  ///< the filter's element strides (K, C, 3, 3)
  const float *bias = nullptr;             ///< null or k dense elements
  bool accumulate = false;                 ///< y += ... rather than y = ...
  int32_t activation = 0;                  ///< KILN_CPU_RELU, _HARDSWISH, _SILU, _SIGMOID or 0
};

/// Whether runWinograd() should take a convolution of n images, c input and
/// k output channels whose output is oh x ow (KILN_CPU_WINOGRAD=off:
/// never). It pays where the products dominate the transforms (at least 64
/// input and output channels), where there are at least 16 output tiles
/// (fewer read the transformed filters, four times the filter's size, for
/// too little work) and 2^24 multiply-adds. Measured on the 2-core Zen 3
/// build machine (docs/performance.md), per layer against oneDNN's direct
/// kernel: 1.6-2x faster from 64 to 512 channels with 16 to 1,568 tiles; 0.8x
/// with 4 tiles, and 0.7-0.85x with 32-64 input channels (SqueezeNet's).
/// Every operand's channel groups must also hold whole groups of 8
/// (checked by the caller).
bool winogradPays(int64_t n, int64_t c, int64_t k, int64_t oh, int64_t ow);

/// Runs `conv` on `threads` threads of the calling thread's OpenMP team:
/// the filter transformed (once per weight buffer and shape, kept until
/// forgetWinogradWeights) into 36 matrices packed for oneMKL's GEMM, the
/// input in 6x6 tiles transformed, multiplied and transformed back, the
/// bias, added tensor and activation applied as each 4x4 output tile is
/// written. Returns false, doing nothing, when oneMKL is not available.
bool runWinograd(const WinogradConv &conv, int threads);

/// Drops the transformed filters (a model is unloaded).
void forgetWinogradWeights();

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_WINOGRAD_H
