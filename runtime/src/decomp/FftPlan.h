// kiln runtime — what an FFT node computes, as a list of 1-d transforms (FftPlan.cpp; emitted by Complex.cpp).
#ifndef KILN_RUNTIME_DECOMP_FFTPLAN_H
#define KILN_RUNTIME_DECOMP_FFTPLAN_H

#include "../loader/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::decomp {

/// One 1-d transform along `dim` of length `n` (the input along that dim is
/// trimmed to n, or zero-padded: PyTorch's resizing).
struct FftStep {
  enum Kind {
    C2C,      ///< complex to complex, n outputs
    R2CHalf,  ///< the first n/2+1 outputs of a transform (a onesided real transform)
    C2R,      ///< Hermitian input (its first n/2+1 entries) to n real outputs; always the last step
  };
  int64_t dim = 0;
  int64_t n = 0;
  Kind kind = C2C;
  bool forward = true; ///< exp(-2 pi i ...) (true) or exp(+2 pi i ...)
  double scale = 1.0;  ///< this dim's share of the normalization
};

struct FftPlan {
  std::vector<FftStep> steps;
  bool realInput = false; ///< the op takes a real input only (rfft, ihfft)
  bool conjOutput = false; ///< ihfft: the conjugate of the transform
};

/// The transforms an FFT node (`torch.ops.aten.` + `op`, e.g. "fft_irfft2.default"
/// or "_fft_c2r.default") computes on an input whose dims have `sizes`
/// (nullopt: symbolic), with PyTorch's defaults for n, s, dim and norm. nullopt
/// and `why` set where kiln cannot (a symbolic transformed dim) or the
/// arguments are invalid; nullopt and `why` empty where `op` is no FFT.
std::optional<FftPlan> planFft(const std::string &op, const nlohmann::json &node,
                               const std::vector<std::optional<int64_t>> &sizes, std::string &why);

/// The argument of `node` (a serialized graph node) called `name`; null if absent.
const nlohmann::json *nodeArg(const nlohmann::json &node, const std::string &name);

/// Whether `target` (a node's target) is an FFT planFft knows.
bool isFftTarget(const std::string &target);

} // namespace kiln::decomp

#endif
