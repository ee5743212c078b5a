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

/// Whether runWinograd() should take a convolution of c input and
/// k output channels whose output is oh x ow on a CPU where
/// winogradPreferred(): at least 16 input and output channels, and an
/// output whose tiles at least halve the products' multiply-adds (a 2x2 or
/// 5x5 output does not). Measured per layer against oneDNN's direct kernel
/// on the 2-core Zen 3 build machine (docs/Rationale/cpu-library-calls.md):
/// 0.46-0.78 of its time from 16 to 512 channels, 4 to 1,568 tiles. Every
/// operand's channel groups must also hold whole groups of 8 (checked by the
/// caller).
bool winogradPays(int64_t c, int64_t k, int64_t oh, int64_t ow);

/// Whether convolution calls use Winograd's F(4x4, 3x3) where it pays:
/// KILN_CPU_WINOGRAD=on or off when set, else only on CPUs without
/// AVX-512F. With AVX-512, oneDNN's 16-wide direct kernels ran 3x3 layers
/// as fast as this code or faster, up to 2.2x on layers of few tiles and
/// many channels (docs/performance.md (29)). Read once;
/// setWinogradPreferred() replaces the answer (tests).
bool winogradPreferred();
void setWinogradPreferred(bool preferred);

/// Runs `conv` on `threads` threads of the calling thread's OpenMP team:
/// the filter transformed once per weight buffer and shape (kept until
/// forgetWinogradWeights), the input in 6x6 tiles transformed, multiplied
/// and transformed back, the bias, added tensor and activation applied as
/// each 4x4 output tile is written.
void runWinograd(const WinogradConv &conv, int threads);

/// Drops the transformed filters (a model is unloaded).
void forgetWinogradWeights();

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_WINOGRAD_H
