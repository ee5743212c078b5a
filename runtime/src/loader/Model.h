// kiln runtime loader — a compiled model .so loaded, bound to its weights and runnable.
#ifndef KILN_LOADER_MODEL_H
#define KILN_LOADER_MODEL_H

#include "Manifest.h"
#include "WeightBlob.h"
#include "../gpu/PoolPlan.h"
#include "kiln/model_format.h"
#include "kiln/tensor.h"

#include <atomic>
#include <map>
#include <memory>

namespace kiln::cpu {
class ThreadPool;
}
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

struct ModelOptions {
  std::string weightsPath;           ///< .pt2 for external weights; empty: none
  std::vector<std::string> plugins;  ///< loaded before the model
  int threads = 0;                   ///< a CPU model's thread count; 0: cpu::defaultThreads()
  /// The seed of the model's random-number generator; -1: KILN_SEED, else kDefaultSeed.
  int64_t seed = -1;
  /// Weights the caller holds, by state-dict name, for a model compiled with
  /// external weights (instead of weightsPath): bound in place (host tensors,
  /// or device tensors of a GPU model's device), never copied except where the
  /// model derives or lays out a tensor from them at load. Empty: none.
  std::vector<std::pair<std::string, Tensor>> weights;
};

/// The generator seed of a model loaded with no seed and no KILN_SEED (PyTorch's default).
inline constexpr int64_t kDefaultSeed = 67280421310721;
/// The seed `options` ask for (-1: KILN_SEED, else kDefaultSeed); throws
/// kiln::Error (INVALID_ARGUMENT) for a malformed KILN_SEED.
int64_t resolveSeed(int64_t seed);

/// How one run treats devices (CUDA models; a CPU model ignores these).
struct RunOptions {
  void *stream = nullptr;  ///< the caller's CUstream; null: this thread's, waited for
  DeviceType outputDevice = DeviceType::CPU;  ///< where the outputs are handed back
  bool cudaGraphs = true;  ///< replay a graph (CUDA or HIP) of the model when its shapes are static
  /// A model with random ops: the generator state [seed, offset] to run with
  /// (null: the model's seed and its next offset, advanced atomically).
  const int64_t *rngState = nullptr;
  /// If not null, receives the [seed, offset] the run used (so a later run,
  /// of this model or another, can replay its random numbers).
  int64_t *rngStateUsed = nullptr;
  /// Null, or one flag per input: nonzero for an input whose address stays
  /// the same from run to run, which a graph reads in place (kiln_run_options_t).
  const unsigned char *staticInputs = nullptr;
};

/// A loaded model. Immutable after load(): run() may be called from many
/// threads. A model that mutates weights (buffer updates) owns a private copy
/// of them and serialises its runs; one that mutates inputs writes their new
/// values into the caller's tensors after a successful run.
class Model {
public:
  /// Loads plugins, dlopens `path` (RTLD_NOW | RTLD_LOCAL), parses the manifest and
  /// binds the weights. Throws kiln::Error naming the file and what is wrong.
  static std::unique_ptr<Model> load(const std::string &path, const ModelOptions &options = {});
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const std::string &path() const { return path_; }
  const Manifest &manifest() const { return manifest_; }
  size_t numInputs() const { return inputArgs_.size(); }
  size_t numOutputs() const { return manifest_.outputs.size(); }
  size_t numParams() const { return paramArgs_.size(); }
  const ManifestValue &input(size_t i) const { return manifest_.args[inputArgs_.at(i)]; }
  const ManifestValue &output(size_t i) const { return manifest_.outputs.at(i); }
  const ManifestValue &param(size_t i) const { return manifest_.args[paramArgs_.at(i)]; }
  /// The bound data of weight `i` (a view of the embedded blob, or read from the .pt2).
  const Tensor &paramTensor(size_t i) const { return weights_[paramArgs_.at(i)]; }
  /// A host copy of weight i as it is now (after the updates of earlier runs;
  /// a GPU model's weights are copied from the device).
  Tensor readParam(size_t i) const;

  /// Checks count, device, dtype, rank and every dim of `inputs` (static sizes,
  /// symbol ranges, one value per symbol). Throws kiln::Error; touches no data.
  /// Returns the value bound to each manifest symbol (-1 if unbound).
  std::vector<int64_t> validateInputs(const std::vector<Tensor> &inputs) const;
  /// Validates, runs the entry and returns freshly owned contiguous outputs.
  std::vector<Tensor> run(const std::vector<Tensor> &inputs, const RunOptions &options = {}) const;
  /// Whether the program draws random numbers (an `arg rng` line).
  bool isRandom() const { return rngArg_ >= 0; }
  int64_t seed() const { return seed_; }
  /// Where the model's code runs (its manifest's `device` line).
  DeviceType device() const { return manifest_.device; }
  /// The threads a CPU model's calls run on (0 for a GPU model).
  int threads() const;

private:
  Model() = default;
  void bindWeights(const ModelOptions &options, const void *blob, size_t blobSize);
  /// bindWeights for weights the caller holds (ModelOptions::weights).
  void bindCallerWeights(const ModelOptions &options);
  /// Computes the derived args and the laid-out copies of weights, on the
  /// host (a device weight they read is copied to the host first).
  void deriveAndLayOut();
  /// For a GPU (CUDA or HIP) model: checks the GPU and the kernels' load, uploads the weights.
  void prepareGPU(const std::string &moduleLoadError);
  /// Calls the entry on `args` (one per manifest argument); returns the
  /// result block and sets `argAllocations` to the arguments' allocations,
  /// sorted.
  std::vector<int64_t> callEntry(const std::vector<const Tensor *> &args, std::vector<int64_t> &argAllocations) const;
  /// Captures the graph of one call that allocates and frees as `events`
  /// (graphs_ locked).
  void captureGraph(const std::vector<gpu::PoolEvent> &events, void *stream, const std::vector<Tensor> &inputs,
                    const unsigned char *staticInputs) const;
  struct GraphCache;
  /// The tensor the `ui`-th state update writes: the caller's input or the
  /// model's copy of a weight.
  Tensor updateTarget(size_t ui, const std::vector<Tensor> &inputs) const;
  /// Outputs of one entry call from its result block.
  std::vector<Tensor> collectOutputs(const std::vector<int64_t> &result, const std::vector<int64_t> &bound,
                                     const std::vector<int64_t> &argAllocations, void *stream,
                                     const std::string &deviceError,
                                     std::vector<Tensor> *updates) const;

  std::string path_;
  void *handle_ = nullptr;
  WeightBlob blob_;  ///< where the weights the model does not copy live (held until the model goes)
  kiln_model_entry_fn entry_ = nullptr;
  Manifest manifest_;
  std::vector<size_t> inputArgs_, paramArgs_;  ///< indices into manifest_.args
  /// Derived args (`derive` lines): computed at load, passed like weights,
  /// not listed among the params of the C API.
  std::vector<size_t> derivedArgs_;
  int rngArg_ = -1;                            ///< the generator state's arg, if any
  int64_t seed_ = kDefaultSeed;
  mutable std::atomic<int64_t> rngOffset_{0};  ///< the next run's offset
  std::vector<Tensor> weights_;                ///< per manifest arg; undefined for inputs
  bool callerWeights_ = false;                 ///< weights_ are the caller's tensors (ModelOptions::weights)
  std::shared_ptr<GraphCache> graphs_;         ///< static-shape GPU models only
  std::shared_ptr<cpu::ThreadPool> pool_;      ///< CPU models: the arena their calls run in
  /// Held for a whole run of a model whose manifest has `update` lines.
  mutable std::mutex stateMutex_;
};

} // namespace kiln

#endif // KILN_LOADER_MODEL_H
