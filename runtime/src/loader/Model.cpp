// kiln runtime loader — dlopen a model, bind weights, validate inputs, call the packed entry.
#include "Model.h"

#include "DerivedWeights.h"
#include "kiln/error.h"
#include "Plugins.h"
#include "Pt2Weights.h"
#include "WeightBlob.h"
#include "../cpu/Threads.h"
#include "../cpu/BufferCache.h"
#include "../cpu/Library.h"
#include "../gpu/Runtime.h"
#include "kiln/rt_call.h"
#include "kiln/abi/cpu_memory.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <algorithm>
#include <map>
#include <unordered_set>
#include <mutex>
#include <sys/stat.h>

// Provided by the dispatcher once it exists; weak so the loader links without it.
extern "C" __attribute__((weak)) const char *kiln_rt_last_error(void);

namespace kiln {

namespace {

std::string quoteValue(const char *what, size_t i, const ManifestValue &v) {
  return std::string(what) + " " + std::to_string(i) + " (\"" + v.name + "\")";
}

std::string rangeString(const ManifestSymbol &s) {
  return "[" + std::to_string(s.min) + ", " + (s.max < 0 ? std::string("inf)") : std::to_string(s.max) + "]");
}

} // namespace

std::unique_ptr<Model> Model::load(const std::string &path, const ModelOptions &options) {
  for (const std::string &plugin : options.plugins) {
    std::string err;
    if (!loadPlugin(plugin, err))
      throw Error(KILN_STATUS_FAILED_PRECONDITION,
                  "loading model '" + path + "': " + (err.empty() ? "plugin '" + plugin + "' failed" : err));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw Error(KILN_STATUS_NOT_FOUND, "model file '" + path + "' does not exist");
  if (!S_ISREG(st.st_mode))
    throw Error(KILN_STATUS_INVALID_ARGUMENT, "model file '" + path + "' is not a regular file");
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".pt2") == 0)
    throw Error(KILN_STATUS_UNIMPLEMENTED,
                "'" + path + "' is a .pt2 archive; kiln_model_load takes a compiled model .so "
                "(compile it with kiln-compile)");

  std::unique_ptr<Model> m(new Model());
  m->path_ = path;
  // A bare file name would make dlopen search the library path: anchor it.
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  // A GPU model's host code calls the runtime's mgpu* functions, a CPU model its
  // kiln_cpu_* library calls: make sure
  // they resolve even when this library itself was loaded RTLD_LOCAL.
  Dl_info self;
  if (::dladdr(reinterpret_cast<void *>(&kiln_abi_version), &self) && self.dli_fname)
    ::dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  // Its constructors load its GPU kernels: collect how that went.
  std::string moduleLoadError;
  {
    gpu::ModuleLoadScope scope;
    m->handle_ = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    moduleLoadError = scope.error();
  }
  if (!m->handle_) {
    const char *why = ::dlerror();
    throw Error(KILN_STATUS_INVALID_ARGUMENT, "cannot load model '" + path +
                                                  "' as a shared library: " + (why ? why : "unknown error"));
  }
  auto *manifestText = static_cast<const char *>(::dlsym(m->handle_, KILN_SYM_MANIFEST));
  if (!manifestText)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, "'" + path + "' is not a kiln model: it does not export " +
                                                  KILN_SYM_MANIFEST);
  m->entry_ = reinterpret_cast<kiln_model_entry_fn>(::dlsym(m->handle_, KILN_SYM_ENTRY));
  if (!m->entry_)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "model '" + path + "' does not export " + KILN_SYM_ENTRY);
  size_t manifestCap = dynamicSymbolSize(manifestText);
  size_t manifestLen = manifestCap ? ::strnlen(manifestText, manifestCap) : std::strlen(manifestText);
  if (manifestCap && manifestLen == manifestCap)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "model '" + path + "': " + KILN_SYM_MANIFEST + " is not NUL-terminated");
  try {
    m->manifest_ = parseManifest(std::string(manifestText, manifestLen));
  } catch (const Error &e) {
    throw Error(e.code(), "model '" + path + "': " + e.what());
  }

  // Ops it calls through the dispatcher must be defined now, not mid-run.
  for (const std::string &op : m->manifest_.ops) {
    if (opDefined(op))
      continue;
    std::string msg = "model '" + path + "' calls the op '" + op +
                      "' through the runtime's dispatcher, and no loaded library defines it";
    if (!m->manifest_.plugins.empty()) {
      msg += "; it was compiled with --plugin";
      for (const std::string &p : m->manifest_.plugins) msg += " " + p;
      msg += ": load the same plugin (kiln-run --plugin, kiln_model_options_t.plugin_paths)";
    } else {
      msg += " (load the plugin that defines it: kiln-run --plugin, kiln_model_options_t.plugin_paths)";
    }
    throw Error(KILN_STATUS_FAILED_PRECONDITION, msg);
  }

  m->blob_ = findWeightBlob(m->handle_, path, p, m->manifest_);
  if (m->manifest_.device == DeviceType::CPU) {
    m->pool_ = cpu::threadPool(options.threads > 0 ? options.threads : cpu::defaultThreads());
    cpu::checkBufferCacheSetting();
  }
  m->seed_ = resolveSeed(options.seed);
  for (size_t i = 0; i < m->manifest_.args.size(); ++i) {
    if (m->manifest_.args[i].kind == ValueKind::Rng)
      m->rngArg_ = (int)i;
    else if (m->manifest_.args[i].kind == ValueKind::Derived)
      m->derivedArgs_.push_back(i);
    else
      (m->manifest_.args[i].kind == ValueKind::Input ? m->inputArgs_ : m->paramArgs_).push_back(i);
  }
  m->bindWeights(options, m->blob_.data, m->blob_.size);
  // Weights the program updates get a private, writable copy (the embedded
  // blob is read-only and shared by every load of the .so); the caller's own
  // weights receive their updates, as PyTorch's in-place semantics would.
  for (size_t ai : m->manifest_.updateArgs)
    if (m->manifest_.args[ai].isWeight() && !m->callerWeights_) m->weights_[ai] = m->weights_[ai].clone();
  if (m->manifest_.device == DeviceType::CUDA || m->manifest_.device == DeviceType::HIP)
    m->prepareGPU(moduleLoadError);
  return m;
}

void Model::prepareGPU(const std::string &moduleLoadError) {
  std::string why;
  bool hip = manifest_.device == DeviceType::HIP;
  if (!gpu::available(manifest_.device, &why))
    throw Error(KILN_STATUS_DEVICE_ERROR, "model '" + path_ + "' runs on " +
                                              (hip ? "an AMD GPU (" : "a CUDA GPU (") + manifest_.deviceArch +
                                              "), but " + why);
  // Whether the GPU runs code of the manifest's architecture: the backend knows its vendor's rules.
  bool unknownArch = false;
  std::string mismatch = gpu::backend(manifest_.device).archMismatch(manifest_.deviceArch, unknownArch);
  if (!mismatch.empty())
    throw Error(unknownArch ? KILN_STATUS_INVALID_ARGUMENT : KILN_STATUS_DEVICE_ERROR,
                "model '" + path_ + "'" + mismatch);
  if (!moduleLoadError.empty())
    throw Error(KILN_STATUS_DEVICE_ERROR, "model '" + path_ + "': " + moduleLoadError);
  // Upload what is on the host (a caller's device weights stay where they are).
  std::vector<size_t> bound;
  for (size_t ai : paramArgs_)
    if (weights_[ai].device().type == DeviceType::CPU) bound.push_back(ai);
  for (size_t ai : derivedArgs_) bound.push_back(ai);
  std::vector<Tensor> host;
  for (size_t ai : bound) host.push_back(weights_[ai]);
  const gpu::Backend &b = gpu::backend(manifest_.device);
  std::vector<Tensor> device = gpu::uploadAll(b, host, gpu::threadStream(b));
  for (size_t i = 0; i < bound.size(); ++i) weights_[bound[i]] = device[i];
  // Static shapes: one graph serves every run.
  bool isStatic = true;
  for (const ManifestValue &v : manifest_.args)
    for (const ManifestDim &d : v.dims) isStatic &= d.isStatic();
  for (const ManifestValue &v : manifest_.outputs)
    for (const ManifestDim &d : v.dims) isStatic &= d.isStatic();
  // A graph would replay one run's generator state: random models launch. A
  // model that writes state back into its inputs or weights runs kernel by
  // kernel too: the writes go to the caller's tensors, which a graph cannot name.
  if (isStatic && rngArg_ < 0 && manifest_.updates.empty()) graphs_ = std::make_shared<GraphCache>();
}

int64_t resolveSeed(int64_t seed) {
  if (seed >= 0) return seed;
  const char *env = std::getenv("KILN_SEED");
  if (!env || !*env) return kDefaultSeed;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(env, &end, 10);
  if (*end || errno || v < 0)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                std::string("the environment variable KILN_SEED expects a seed from 0 to 2^63-1, got '") + env + "'");
  return (int64_t)v;
}

void Model::bindWeights(const ModelOptions &options, const void *blob, size_t blobSize) {
  weights_.resize(manifest_.args.size());
  if (!options.weights.empty()) {
    bindCallerWeights(options);
    return;
  }
  std::unique_ptr<Pt2Weights> archive;
  if (manifest_.externalWeights && !paramArgs_.empty()) {
    if (options.weightsPath.empty())
      throw Error(KILN_STATUS_FAILED_PRECONDITION,
                  "model '" + path_ + "' was compiled with external weights: give the .pt2 to "
                  "read them from (weights_path / --weights)");
    archive.reset(new Pt2Weights(options.weightsPath));
  }
  for (size_t ai : paramArgs_) {
    const ManifestValue &v = manifest_.args[ai];
    std::vector<int64_t> sizes;
    for (const ManifestDim &d : v.dims) sizes.push_back(d.size);
    if (!archive) {
      if (blobSize && ((uint64_t)v.offset > blobSize || (uint64_t)v.nbytes > blobSize - v.offset))
        throw Error(KILN_STATUS_INVALID_ARGUMENT,
                    "model '" + path_ + "': weight '" + v.name + "' at offset " +
                        std::to_string(v.offset) + " + " + std::to_string(v.nbytes) +
                        " bytes runs past the end of " + KILN_SYM_WEIGHTS + " (" +
                        std::to_string(blobSize) + " bytes)");
      void *data = v.nbytes ? const_cast<char *>(static_cast<const char *>(blob) + v.offset) : nullptr;
      weights_[ai] = Tensor::fromBlob(data, sizes, v.dtype);
      continue;
    }
    Tensor t = archive->read(v.name);  // NOT_FOUND names the archive and the weight
    if (t.dtype() != v.dtype || t.sizes() != sizes)
      throw Error(KILN_STATUS_INVALID_ARGUMENT,
                  "weights file '" + options.weightsPath + "': '" + v.name + "' is " +
                      dtypeName(t.dtype()) + " " + t.shapeString() + ", but model '" + path_ +
                      "' expects " + dtypeName(v.dtype) + " " + shapeToString(sizes));
    weights_[ai] = t;
  }
  deriveAndLayOut();
}

Model::~Model() {
  graphs_.reset();
  weights_.clear();
  // Copies of the weights the CPU library calls made (keyed by address).
  cpu::forgetWeights();
  // The buffers the model freed and the cache kept.
  cpu::trimBufferCache();
  if (handle_) ::dlclose(handle_);
}

std::vector<int64_t> Model::validateInputs(const std::vector<Tensor> &inputs) const {
  if (inputs.size() != inputArgs_.size())
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "model '" + manifest_.name + "' expects " + std::to_string(inputArgs_.size()) +
                    " input" + (inputArgs_.size() == 1 ? "" : "s") + ", got " +
                    std::to_string(inputs.size()));
  std::vector<int64_t> bound(manifest_.symbols.size(), -1);
  std::vector<std::pair<size_t, size_t>> boundAt(manifest_.symbols.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ManifestValue &v = input(i);
    const Tensor &t = inputs[i];
    std::string who = quoteValue("input", i, v);
    if (!t.defined())
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": tensor is undefined");
    if (t.device().type != DeviceType::CPU && t.device().type != manifest_.device)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": tensor is on device " +
                                                    deviceTypeName(t.device().type) + ", expected " +
                                                    (manifest_.device == DeviceType::CPU
                                                         ? std::string("cpu")
                                                         : std::string("cpu or ") + deviceTypeName(manifest_.device)));
    if (t.dtype() != v.dtype)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + ": dtype is " + dtypeName(t.dtype()) +
                                                    ", expected " + dtypeName(v.dtype));
    if ((size_t)t.dim() != v.dims.size())
      throw Error(KILN_STATUS_INVALID_ARGUMENT,
                  who + ": rank is " + std::to_string(t.dim()) + " (shape " + t.shapeString() +
                      "), expected " + std::to_string(v.dims.size()) + " " +
                      dimsToString(manifest_, v.dims));
    for (size_t d = 0; d < v.dims.size(); ++d) {
      int64_t n = t.size((int64_t)d);
      const ManifestDim &md = v.dims[d];
      std::string dimIs = who + ": dim " + std::to_string(d) + " is " + std::to_string(n);
      if (md.isStatic()) {
        if (n != md.size)
          throw Error(KILN_STATUS_INVALID_ARGUMENT,
                      dimIs + ", expected " + std::to_string(md.size) + " (shape " +
                          t.shapeString() + ", expected " + dimsToString(manifest_, v.dims) + ")");
        continue;
      }
      if (md.symbol < 0) continue;  // `?`: any size
      const ManifestSymbol &s = manifest_.symbols[md.symbol];
      if (n < s.min || (s.max >= 0 && n > s.max))
        throw Error(KILN_STATUS_OUT_OF_RANGE,
                    dimIs + ", outside the range " + rangeString(s) + " of symbol " + s.name);
      if (bound[md.symbol] < 0) {
        bound[md.symbol] = n;
        boundAt[md.symbol] = {i, d};
      } else if (bound[md.symbol] != n) {
        auto [pi, pd] = boundAt[md.symbol];
        throw Error(KILN_STATUS_INVALID_ARGUMENT,
                    dimIs + ", but symbol " + s.name + " is already " +
                        std::to_string(bound[md.symbol]) + " from " +
                        quoteValue("input", pi, input(pi)) + " dim " + std::to_string(pd));
      }
    }
  }
  return bound;
}

namespace {

// One memref descriptor in 8-byte words: allocated, aligned, offset, sizes, strides.
void appendDescriptor(std::vector<int64_t> &words, const Tensor &t) {
  auto ptr = reinterpret_cast<int64_t>(t.rawData());
  words.push_back(ptr);
  words.push_back(ptr);
  words.push_back(0);
  for (int64_t s : t.sizes()) words.push_back(s);
  for (int64_t s : t.strides()) words.push_back(s);
}

} // namespace

/// A CUDA graph of one call of a static-shape model, with the buffers it
/// reads and writes at fixed addresses. Replays are serialised by the mutex
/// and, across streams, by `done` (recorded after each replay's last copy).
struct Model::GraphCache {
  std::mutex mutex;
  bool tried = false;             ///< a capture was attempted
  std::string disabledBecause;    ///< why graphs are off for this model
  std::unique_ptr<gpu::Graph> graph;
  std::vector<Tensor> inputs;     ///< the graph reads the inputs here (undefined: in place)
  std::vector<void *> inPlace;    ///< a static input's address the graph reads, else null
  int recaptures = 0;             ///< graphs recorded again for a static input's new address
  std::vector<Tensor> outputs;    ///< and writes the outputs here
  std::vector<std::shared_ptr<Storage>> pool;  ///< its intermediate buffers
  std::unique_ptr<gpu::Event> done;
  const gpu::Backend *backend = nullptr;
  ~GraphCache() {
    // A replay queued on a caller's stream may still use the pool.
    if (graph) try { gpu::synchronizeDevice(*backend); } catch (...) {}
  }
};

namespace {

/// How often a model's graph is recorded again for static inputs that moved
/// before the model stops using graphs.
constexpr int kMaxRecaptures = 8;

} // namespace

std::vector<int64_t> Model::callEntry(const std::vector<const Tensor *> &args,
                                      std::vector<int64_t> &argAllocations) const {
  // Every argument's descriptor in one block (a model passes each of its
  // weights on every call: a few hundred arguments, so one allocation here
  // rather than one per argument, and no tree of allocations to look up).
  size_t words = 0;
  for (const Tensor *t : args) words += 3 + 2 * t->sizes().size();
  std::vector<int64_t> descs;
  descs.reserve(words);  // never reallocated below: packed points into it
  std::vector<void *> packed(1 + args.size());
  argAllocations.clear();
  argAllocations.reserve(args.size());
  for (size_t a = 0; a < args.size(); ++a) {
    const size_t at = descs.size();
    appendDescriptor(descs, *args[a]);
    packed[1 + a] = descs.data() + at;
    if (descs[at]) argAllocations.push_back(descs[at]);
  }
  std::sort(argAllocations.begin(), argAllocations.end());
  size_t resultWords = 0;
  for (const ManifestValue &o : manifest_.outputs) resultWords += 3 + 2 * o.dims.size();
  for (const ManifestValue &u : manifest_.updates) resultWords += 3 + 2 * u.dims.size();
  std::vector<int64_t> result(resultWords ? resultWords : 1, 0);
  packed[0] = result.data();
  cpu::clearError();
  // A run that fails part-way returns at once with null results and leaves
  // the buffers it had allocated: they are freed here.
  cpu::RunAllocations allocations;
  try {
    entry_(packed.data());
  } catch (const Error &e) {
    // An allocation that failed (kiln_cpu_alloc, the GPU allocator) unwound
    // the compiled code: free what the run had allocated, then report it.
    if (allocations.live()) allocations.freeLeftovers({});
    throw Error(e.code(), "model '" + manifest_.name + "': " + e.what());
  } catch (...) {
    if (allocations.live()) allocations.freeLeftovers({});
    throw;
  }
  std::string why = cpu::takeError(); // a CPU library call (oneDNN) that failed
  const char *rtError = kiln_rt_last_error ? kiln_rt_last_error() : nullptr;
  bool failed = !why.empty() || (rtError && *rtError &&
                                 std::all_of(result.begin(), result.end(), [](int64_t w) { return w == 0; }));
  if (failed && allocations.live()) {
    std::unordered_set<void *> results;
    for (int64_t w : result)
      results.insert(reinterpret_cast<void *>(w));
    allocations.freeLeftovers(results);
  }
  if (!why.empty())
    throw Error(KILN_STATUS_INTERNAL, "model '" + manifest_.name + "': " + why);
  return result;
}

void Model::captureGraph(const std::vector<gpu::PoolEvent> &events, void *stream, const std::vector<Tensor> &callInputs,
                         const unsigned char *staticInputs) const {
  GraphCache &g = *graphs_;
  g.tried = true;
  const gpu::Backend &b = gpu::backend(manifest_.device);
  try {
    // The graph's own memory: blocks freed early in the call serve later
    // allocations of the same call.
    gpu::PoolPlan plan = gpu::planPool(events);
    std::vector<std::shared_ptr<Storage>> blocks;
    for (size_t n : plan.blockBytes) blocks.push_back(gpu::allocateStorage(b, n, stream));
    std::vector<Tensor> args(manifest_.args.size()), inputs;
    std::vector<void *> inPlace(inputArgs_.size(), nullptr);
    for (size_t ai : paramArgs_) args[ai] = weights_[ai];
    for (size_t ai : derivedArgs_) args[ai] = weights_[ai];
    for (size_t i = 0; i < inputArgs_.size(); ++i) {
      const Tensor &t = callInputs[i];
      if (staticInputs && staticInputs[i] && t.device().type == manifest_.device && t.isContiguous()) {
        // The caller keeps this input at one address: the graph reads it there.
        inPlace[i] = t.rawData();
        inputs.emplace_back();
        args[inputArgs_[i]] = t;
        continue;
      }
      std::vector<int64_t> sizes;
      for (const ManifestDim &d : input(i).dims) sizes.push_back(d.size);
      inputs.push_back(gpu::emptyDevice(b, sizes, input(i).dtype, stream));
      args[inputArgs_[i]] = inputs.back();
    }
    gpu::PoolScope pool(blocks, std::move(plan));
    std::vector<int64_t> result;
    std::vector<int64_t> argAllocations;
    std::vector<const Tensor *> argp;
    for (const Tensor &t : args) argp.push_back(&t);
    auto graph = std::make_unique<gpu::Graph>(b, stream, [&] {
      gpu::LaunchScope scope(b, stream);
      result = callEntry(argp, argAllocations);
      if (scope.failed()) throw Error(KILN_STATUS_DEVICE_ERROR, scope.error());
    });
    if (pool.failed()) {
      g.disabledBecause = "the model allocated differently while it was captured";
      return;
    }
    std::vector<Tensor> outputs;
    size_t w = 0;
    for (const ManifestValue &o : manifest_.outputs) {
      size_t rank = o.dims.size();
      void *aligned = reinterpret_cast<void *>(result[w + 1]);
      std::vector<int64_t> sizes(result.begin() + w + 3, result.begin() + w + 3 + rank);
      std::vector<int64_t> strides(result.begin() + w + 3 + rank, result.begin() + w + 3 + 2 * rank);
      int64_t offset = result[w + 2];
      w += 3 + 2 * rank;
      auto block = std::find_if(blocks.begin(), blocks.end(),
                                [&](const std::shared_ptr<Storage> &b) { return b->data() == aligned; });
      if (block == blocks.end()) {
        g.disabledBecause = "an output is not a buffer the model allocates";
        return;
      }
      Tensor out = Tensor::view(*block, offset, sizes, strides, o.dtype);
      if (!out.isContiguous()) {
        g.disabledBecause = "an output is strided";
        return;
      }
      outputs.push_back(out);
    }
    g.graph = std::move(graph);
    g.inputs = std::move(inputs);
    g.inPlace = std::move(inPlace);
    g.outputs = std::move(outputs);
    g.pool = std::move(blocks);
    g.done = std::make_unique<gpu::Event>(b);
    g.backend = &b;
  } catch (const std::exception &e) {
    g.disabledBecause = std::string("capture failed: ") + e.what();
  }
}

int Model::threads() const { return pool_ ? pool_->threads() : 0; }

Tensor Model::updateTarget(size_t ui, const std::vector<Tensor> &inputs) const {
  size_t ai = manifest_.updateArgs[ui];
  if (manifest_.args[ai].kind != ValueKind::Input)
    return weights_[ai];
  return inputs[std::find(inputArgs_.begin(), inputArgs_.end(), ai) - inputArgs_.begin()];
}

Tensor Model::readParam(size_t i) const {
  std::lock_guard<std::mutex> lock(stateMutex_);
  const Tensor &t = paramTensor(i);
  if (t.device().type == DeviceType::CPU)
    return t.contiguous().clone();
  // A GPU model keeps its weights on the device: copy on this thread's
  // stream, which orders the copy after the runs this thread queued.
  const gpu::Backend &b = gpu::backend(t.device().type);
  return gpu::toHost(b, t, gpu::threadStream(b));
}

std::vector<Tensor> Model::run(const std::vector<Tensor> &inputs, const RunOptions &options) const {
  std::vector<int64_t> bound = validateInputs(inputs);
  bool onGPU = manifest_.device == DeviceType::CUDA || manifest_.device == DeviceType::HIP;
  const gpu::Backend *b = onGPU ? &gpu::backend(manifest_.device) : nullptr;
  void *stream = onGPU ? (options.stream ? options.stream : gpu::threadStream(*b)) : nullptr;
  auto finish = [&](std::vector<Tensor> outs) {
    if (!options.stream) {
      try {
        gpu::synchronize(*b, stream);
      } catch (const Error &e) {
        throw Error(e.code(), "model '" + manifest_.name + "' failed on the GPU: " + e.what());
      }
    }
    if (options.outputDevice == DeviceType::CPU)
      for (Tensor &t : outs) t = gpu::toHost(*b, t, stream);
    return outs;
  };

  // A static-shape GPU model replays its graph: copy the inputs in, launch,
  // copy the outputs out.
  std::unique_lock<std::mutex> graphLock;
  if (onGPU && options.cudaGraphs && graphs_) {
    graphLock = std::unique_lock<std::mutex>(graphs_->mutex);
    GraphCache &g = *graphs_;
    // Whether every input the graph reads in place is still at that address.
    auto staticInputsStayed = [&] {
      for (size_t i = 0; i < g.inPlace.size(); ++i)
        if (g.inPlace[i] && (inputs[i].rawData() != g.inPlace[i] || !inputs[i].isContiguous() ||
                             inputs[i].device().type == DeviceType::CPU))
          return false;
      return true;
    };
    if (g.graph && !staticInputsStayed()) {
      // A static input moved: record the graph again (after the replays in
      // flight, which still read the old buffers), or stop after a few moves.
      gpu::synchronizeDevice(*g.backend);
      g.graph.reset();
      g.inputs.clear();
      g.outputs.clear();
      g.pool.clear();
      g.done.reset();
      g.tried = ++g.recaptures > kMaxRecaptures;
      if (g.tried) g.disabledBecause = "static inputs kept changing address";
    }
    if (g.graph) {
      g.done->waitOn(stream);
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!g.inPlace[i]) gpu::copyInto(*b, g.inputs[i], inputs[i], stream);
      g.graph->launch(stream);
      std::vector<Tensor> outs;
      for (const Tensor &o : g.outputs) outs.push_back(gpu::cloneOnDevice(*b, o, stream));
      g.done->record(stream);
      graphLock.unlock();
      return finish(std::move(outs));
    }
    if (g.tried) graphLock.unlock();  // graphs are off for this model: run as usual
  }

  // Every argument as a contiguous tensor on the model's device (inputs
  // copied only if strided or on the host of a GPU model); the weights are
  // passed as the model holds them, not copied into `args`.
  std::vector<Tensor> args(manifest_.args.size());
  std::vector<const Tensor *> argp(args.size());
  for (size_t ai = 0; ai < args.size(); ++ai) argp[ai] = &args[ai];
  for (size_t ai : paramArgs_) argp[ai] = &weights_[ai];
  for (size_t ai : derivedArgs_) argp[ai] = &weights_[ai];
  if (rngArg_ >= 0 || options.rngStateUsed) {
    // [seed, offset]: the caller's, or this model's seed and its next offset.
    int64_t state[2] = {seed_, 0};
    if (options.rngState) {
      if (options.rngState[0] < 0 || options.rngState[1] < 0)
        throw Error(KILN_STATUS_INVALID_ARGUMENT, "model '" + manifest_.name + "': generator state [" +
                                                      std::to_string(options.rngState[0]) + ", " +
                                                      std::to_string(options.rngState[1]) + "] is negative");
      state[0] = options.rngState[0];
      state[1] = options.rngState[1];
    } else if (rngArg_ >= 0) {
      state[1] = rngOffset_.fetch_add(1, std::memory_order_relaxed);
    }
    if (options.rngStateUsed) std::copy(state, state + 2, options.rngStateUsed);
    if (rngArg_ >= 0) {
      Tensor t = Tensor::empty({2}, DType::Int64);
      std::copy(state, state + 2, t.data<int64_t>());
      args[rngArg_] = onGPU ? gpu::toDevice(*b, t, stream) : t;
    }
  }
  for (size_t i = 0; i < inputArgs_.size(); ++i) {
    const Tensor &t = inputs[i];
    if (!onGPU || t.device().type == DeviceType::CPU)
      args[inputArgs_[i]] = onGPU ? gpu::toDevice(*b, t, stream) : t.contiguous();
    else if (!t.isContiguous())
      throw Error(KILN_STATUS_INVALID_ARGUMENT, quoteValue("input", i, input(i)) +
                                                    ": a device tensor must be contiguous");
    else
      args[inputArgs_[i]] = t;
  }

  std::vector<int64_t> argAllocations;
  if (!onGPU) {
    // A model that mutates state runs one call at a time (see Model).
    std::unique_lock<std::mutex> lock(stateMutex_, std::defer_lock);
    if (!manifest_.updates.empty()) lock.lock();
    // On the model's arena: its parallel loops (kiln_cpu_parallel_for) and
    // the eager kernels it calls use its thread count.
    std::vector<int64_t> result;
    pool_->run([&] { result = callEntry(argp, argAllocations); });
    std::vector<Tensor> updates;
    std::vector<Tensor> outs = collectOutputs(result, bound, argAllocations, nullptr, "", &updates);
    // Write the new state: into the model's copy of a weight, or into the
    // caller's input tensor (PyTorch's in-place semantics).
    for (size_t ui = 0; ui < updates.size(); ++ui) {
      if (!updates[ui].defined()) continue;
      updateTarget(ui, inputs).copyFrom(updates[ui]);
    }
    return outs;
  }
  std::string deviceError;
  std::vector<int64_t> result;
  std::vector<gpu::PoolEvent> allocations;
  // A model that mutates state runs one call at a time, as on the CPU.
  std::unique_lock<std::mutex> stateLock(stateMutex_, std::defer_lock);
  if (!manifest_.updates.empty()) stateLock.lock();
  {
    gpu::AllocationRecorder recorder;
    gpu::LaunchScope scope(*b, stream);
    result = callEntry(argp, argAllocations);
    deviceError = scope.error();
    allocations = recorder.events();
  }
  std::vector<Tensor> updates;
  std::vector<Tensor> outs = collectOutputs(result, bound, argAllocations, stream, deviceError, &updates);
  // The new state goes into the caller's input (on the device in stream
  // order, or back to the host) or the model's device copy of a weight.
  for (size_t ui = 0; ui < updates.size(); ++ui) {
    if (!updates[ui].defined()) continue;
    Tensor target = updateTarget(ui, inputs);
    if (target.device().type == DeviceType::CPU)
      target.copyFrom(gpu::toHost(*b, updates[ui], stream));
    else
      gpu::copyInto(*b, target, updates[ui], stream);
  }
  // The first successful run of a static-shape model captures its graph for
  // the next runs (capturing queues no work).
  if (graphLock.owns_lock()) captureGraph(allocations, stream, inputs, options.staticInputs);
  if (graphLock.owns_lock()) graphLock.unlock();
  return finish(std::move(outs));
}

std::vector<Tensor> Model::collectOutputs(const std::vector<int64_t> &result, const std::vector<int64_t> &bound,
                                          const std::vector<int64_t> &argAllocations, void *stream,
                                          const std::string &deviceError,
                                          std::vector<Tensor> *updates) const {
  bool onGPU = manifest_.device == DeviceType::CUDA || manifest_.device == DeviceType::HIP;
  const gpu::Backend *b = onGPU ? &gpu::backend(manifest_.device) : nullptr;
  // Take ownership of every fresh buffer first, so nothing leaks if a check below fails.
  struct Raw {
    void *allocated, *aligned;
    int64_t offset;
    std::vector<int64_t> sizes, strides;
  };
  std::vector<Raw> raws;
  std::map<void *, std::shared_ptr<Storage>> owned;
  size_t w = 0;
  std::vector<const ManifestValue *> values;
  for (const ManifestValue &o : manifest_.outputs) values.push_back(&o);
  for (const ManifestValue &u : manifest_.updates) values.push_back(&u);
  for (const ManifestValue *vp : values) {
    const ManifestValue &o = *vp;
    Raw r;
    size_t rank = o.dims.size();
    r.allocated = reinterpret_cast<void *>(result[w]);
    r.aligned = reinterpret_cast<void *>(result[w + 1]);
    r.offset = result[w + 2];
    r.sizes.assign(result.begin() + w + 3, result.begin() + w + 3 + rank);
    r.strides.assign(result.begin() + w + 3 + rank, result.begin() + w + 3 + 2 * rank);
    w += 3 + 2 * rank;
    if (r.allocated && !std::binary_search(argAllocations.begin(), argAllocations.end(),
                                            reinterpret_cast<int64_t>(r.allocated)) &&
        !owned.count(r.allocated))
      owned[r.allocated] = onGPU ? gpu::adoptStorage(*b, r.allocated, 0)
                                 : std::make_shared<Storage>(r.allocated, 0, Device{}, [](void *p) { kiln_cpu_free(p); });
    raws.push_back(std::move(r));
  }
  if (!deviceError.empty())
    throw Error(KILN_STATUS_DEVICE_ERROR, "model '" + manifest_.name + "' failed on the GPU: " + deviceError);

  std::vector<Tensor> outs;
  std::map<void *, bool> handedOut;
  // New state values: checked against the shape of what they update, and
  // copied out first when they alias an argument (a later write could change it).
  for (size_t ui = 0; updates && ui < manifest_.updates.size(); ++ui) {
    const Raw &r = raws[manifest_.outputs.size() + ui];
    const ManifestValue &u = manifest_.updates[ui];
    const ManifestValue &target = manifest_.args[manifest_.updateArgs[ui]];
    std::string who = "model '" + manifest_.name + "': the new value of " + valueKindName(u.kind) +
                      " '" + u.name + "'";
    int64_t numel = 1;
    for (size_t d = 0; d < r.sizes.size(); ++d) {
      const ManifestDim &md = target.dims[d];
      int64_t n = r.sizes[d];
      if (n < 0 || (md.isStatic() && n != md.size) ||
          (md.symbol >= 0 && bound[md.symbol] >= 0 && n != bound[md.symbol]))
        throw Error(KILN_STATUS_INTERNAL,
                    who + " has shape " + shapeToString(r.sizes) + ", expected " +
                        dimsToString(manifest_, target.dims));
      numel *= n;
    }
    if (numel == 0) {
      updates->push_back(Tensor());
      continue;
    }
    if (!r.aligned)
      throw Error(KILN_STATUS_INTERNAL, who + ": the model entry failed (returned no buffer)");
    auto it = owned.find(r.allocated);
    Device where = onGPU ? Device{manifest_.device, 0} : Device{};
    std::shared_ptr<Storage> storage =
        it != owned.end() ? it->second : std::make_shared<Storage>(r.aligned, 0, where, nullptr);
    int64_t elemOffset = (static_cast<char *>(r.aligned) - static_cast<char *>(storage->data())) /
                             (int64_t)dtypeSize(u.dtype) + r.offset;
    Tensor view = Tensor::view(storage, elemOffset, r.sizes, r.strides, u.dtype);
    if (onGPU && !view.isContiguous())
      throw Error(KILN_STATUS_INTERNAL, who + " is strided on the device");
    if (it != owned.end())
      updates->push_back(view);
    else  // it aliases an argument: copied before the argument is overwritten
      updates->push_back(onGPU ? gpu::cloneOnDevice(*b, view, stream) : view.clone());
  }
  for (size_t oi = 0; oi < manifest_.outputs.size(); ++oi) {
    const Raw &r = raws[oi];
    const ManifestValue &o = manifest_.outputs[oi];
    std::string who = "model '" + manifest_.name + "': " + quoteValue("output", oi, o);
    int64_t numel = 1;
    for (size_t d = 0; d < r.sizes.size(); ++d) {
      int64_t n = r.sizes[d];
      const ManifestDim &md = o.dims[d];
      bool bad = n < 0 || (md.isStatic() && n != md.size) ||
                 (md.symbol >= 0 && bound[md.symbol] >= 0 && n != bound[md.symbol]);
      if (bad && !r.aligned) {
        // A failed runtime call inside the model returns null, zero-sized results.
        const char *why = kiln_rt_last_error ? kiln_rt_last_error() : nullptr;
        throw Error(KILN_STATUS_INTERNAL,
                    who + ": the model entry failed (returned no buffer)" +
                        (why && *why ? std::string(": ") + why : std::string()));
      }
      if (bad)
        throw Error(KILN_STATUS_INTERNAL, who + ": the model returned shape " +
                                              shapeToString(r.sizes) + ", expected " +
                                              dimsToString(manifest_, o.dims));
      numel *= n;
    }
    if (numel == 0) {
      outs.push_back(onGPU ? gpu::emptyDevice(*b, r.sizes, o.dtype, stream) : Tensor::empty(r.sizes, o.dtype));
      continue;
    }
    if (!r.aligned) {
      const char *why = kiln_rt_last_error ? kiln_rt_last_error() : nullptr;
      throw Error(KILN_STATUS_INTERNAL,
                  who + ": the model entry failed (returned no buffer)" +
                      (why && *why ? std::string(": ") + why : std::string()));
    }
    // View the result in place: aligned + offset elements, with its strides.
    auto it = owned.find(r.allocated);
    std::shared_ptr<Storage> storage =
        it != owned.end() ? it->second
                          : std::make_shared<Storage>(r.aligned, 0, onGPU ? Device{manifest_.device, 0} : Device{},
                                                      nullptr);
    int64_t elemOffset =
        (static_cast<char *>(r.aligned) - static_cast<char *>(storage->data())) /
            (int64_t)dtypeSize(o.dtype) + r.offset;
    Tensor view = Tensor::view(storage, elemOffset, r.sizes, r.strides, o.dtype);
    // Copy when the buffer is an argument's, already given to another output, or strided.
    bool mustCopy = it == owned.end() || handedOut.count(r.allocated) || !view.isContiguous();
    handedOut[r.allocated] = true;
    if (!mustCopy) {
      outs.push_back(view);
    } else if (!onGPU) {
      outs.push_back(view.clone());
    } else {
      if (!view.isContiguous())
        throw Error(KILN_STATUS_INTERNAL, who + ": the model returned a strided device buffer");
      outs.push_back(gpu::cloneOnDevice(*b, view, stream));
    }
  }
  return outs;
}

} // namespace kiln
