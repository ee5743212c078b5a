// kiln runtime loader — the parsed form of a compiled model's text manifest.
#ifndef KILN_LOADER_MANIFEST_H
#define KILN_LOADER_MANIFEST_H

#include "kiln/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// `sym <name> <min> <max>`; max -1 means unbounded.
struct ManifestSymbol {
  std::string name;
  int64_t min = 0, max = -1;
  int line = 0;
};

/// One dim: a static size, a declared symbol, or `?` (dynamic, no range).
struct ManifestDim {
  int64_t size = -1;  ///< >= 0 when static
  int symbol = -1;    ///< index into Manifest::symbols when symbolic
  bool isStatic() const { return size >= 0; }
};

/// Rng: the generator state [seed, offset] the loader fills per run (one at most).
/// Derived: a tensor the loader computes from the weights at load (`derive`).
enum class ValueKind { Param, Buffer, Constant, Input, Output, Rng, Derived };
const char *valueKindName(ValueKind k);

/// An `arg` or `out` line.
struct ManifestValue {
  ValueKind kind = ValueKind::Input;
  std::string name;
  DType dtype = DType::Float32;
  std::vector<ManifestDim> dims;
  int64_t offset = -1, nbytes = -1;  ///< embedded weight location, -1 if absent
  /// From a `layout` line: the entry takes the weight permuted (its dim i is
  /// dim layout[i] of the state-dict tensor); empty: as it is.
  std::vector<int64_t> layout;
  /// Derived args, from their `derive` line: the recipe, its eps and the
  /// args it reads (indices into Manifest::args, -1 for `-`).
  std::string recipe;
  double eps = 0;
  std::vector<int> from;
  int line = 0;
  bool isWeight() const {
    return kind == ValueKind::Param || kind == ValueKind::Buffer || kind == ValueKind::Constant;
  }
};

struct Manifest {
  int version = 0;
  std::string name;
  bool externalWeights = false;
  /// `weights appended`: the blob follows the .so's code in its file
  /// (kiln/abi/appended_weights.h), not in the symbol KILN_SYM_WEIGHTS.
  bool appendedWeights = false;
  DeviceType device = DeviceType::CPU;  ///< `device cuda <arch>`: where the code runs
  std::string deviceArch;               ///< e.g. sm_90; empty for the CPU
  std::vector<ManifestSymbol> symbols;
  std::vector<ManifestValue> args;     ///< in entry-argument order
  std::vector<ManifestValue> outputs;  ///< in result-block order
  /// `update` lines, after the outputs in the result block: `kind` and `name`
  /// name the mutated arg (a weight or an input); `arg` is its index in args.
  std::vector<ManifestValue> updates;
  std::vector<std::string> ops;     ///< ops called through the dispatcher (`op` lines)
  std::vector<std::string> plugins; ///< plugins it was compiled with (`plugin` lines)
  std::vector<size_t> updateArgs;
};

/// Parses manifest text (format in kiln/model_format.h). Throws kiln::Error
/// (INVALID_ARGUMENT) naming the offending line for anything malformed.
Manifest parseManifest(const std::string &text);

/// "[s0, 4]" / "[?, 3]" in the manifest's own spelling.
std::string dimsToString(const Manifest &m, const std::vector<ManifestDim> &dims);

} // namespace kiln

#endif // KILN_LOADER_MANIFEST_H
