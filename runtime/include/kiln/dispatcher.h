// kiln runtime — dispatch keys, kernels, operator handles and the dispatcher.
// Users normally include kiln/library.h, which includes this.
#ifndef KILN_DISPATCHER_H
#define KILN_DISPATCHER_H

#include "kiln/ivalue.h"
#include "kiln/schema.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Every dispatch key, defined here and nowhere else. Runtime keys come
/// first, highest priority first: autograd keys above backend keys, and
/// among backends the later-added ones (Meta) above CPU, as in PyTorch.
/// Alias keys follow; they are never the key of a call: a kernel
/// registered for one fills the runtime keys it stands for (see
/// docs/custom-ops.md, "How a kernel is chosen").
#define KILN_FOR_EACH_DISPATCH_KEY(_)                                                          \
  /* runtime keys, highest priority first */                                                   \
  _(AutogradMeta) _(AutogradHIP) _(AutogradCUDA) _(AutogradCPU)                                \
  _(Meta) _(HIP) _(CUDA) _(CPU)                                                                \
  /* alias keys */                                                                             \
  _(Autograd) _(CompositeImplicitAutograd) _(CompositeExplicitAutograd)

enum class DispatchKey : uint8_t {
#define KILN_DK_ENUM(k) k,
  KILN_FOR_EACH_DISPATCH_KEY(KILN_DK_ENUM)
#undef KILN_DK_ENUM
  NumKeys
};
constexpr int kNumDispatchKeys = (int)DispatchKey::NumKeys;
/// Runtime keys are those before the first alias key.
constexpr int kNumRuntimeKeys = (int)DispatchKey::Autograd;

const char *dispatchKeyName(DispatchKey k);
/// Parses "CPU", "AutogradCPU", ...; false if unknown.
bool parseDispatchKey(const std::string &name, DispatchKey &out);
inline bool isAliasKey(DispatchKey k) { return (int)k >= kNumRuntimeKeys; }
bool isAutogradKey(DispatchKey k);  ///< Autograd{CPU,CUDA,HIP,Meta} and the Autograd alias
bool isBackendKey(DispatchKey k);   ///< CPU, CUDA, HIP, Meta
/// The backend key of a device (CPU -> CPU, cuda -> CUDA, ...).
DispatchKey backendKeyFor(DeviceType d);
/// AutogradCPU for CPU, ...
DispatchKey autogradKeyFor(DispatchKey backend);
/// CPU for AutogradCPU, ...; the key itself for a backend key.
DispatchKey backendOf(DispatchKey k);

/// A set of runtime keys; the call goes to the highest-priority one whose
/// kernel is not a fallthrough.
class DispatchKeySet {
public:
  DispatchKeySet() = default;
  explicit DispatchKeySet(DispatchKey k) { add(k); }
  DispatchKeySet &add(DispatchKey k) { bits_ |= 1u << (int)k; return *this; }
  DispatchKeySet &remove(DispatchKey k) { bits_ &= ~(1u << (int)k); return *this; }
  bool has(DispatchKey k) const { return bits_ & (1u << (int)k); }
  bool empty() const { return bits_ == 0; }
  /// Without any autograd key.
  DispatchKeySet withoutAutograd() const;
  /// Keys after (lower priority than) `k`.
  DispatchKeySet after(DispatchKey k) const;
  /// Highest-priority key; NumKeys if empty.
  DispatchKey highest() const;
  std::string str() const;
  uint32_t bits() const { return bits_; }

private:
  uint32_t bits_ = 0;
};

class OperatorHandle;
/// The boxed calling convention: arguments in schema order on `stack`;
/// the kernel replaces them with the results.
using BoxedKernel = std::function<void(const OperatorHandle &, DispatchKeySet, Stack &)>;

/// A kernel as the dispatch table holds it.
struct KernelFunction {
  BoxedKernel fn;
  bool isFallthrough = false;
  std::string debug; ///< where it was registered (file:line)
  bool valid() const { return isFallthrough || (bool)fn; }
};

/// A kernel that passes the call on to the next key in the call's key set.
KernelFunction fallthrough();

/// What the backward formula of an op sees: the call's arguments (schema
/// order, defaults filled in) and its results.
struct AutogradContext {
  Stack inputs;
  Stack outputs;
  const Tensor &input(size_t i) const { return inputs.at(i).toTensor(); }
  const Tensor &output(size_t i) const { return outputs.at(i).toTensor(); }
};
/// Backward formula: gradients of the op's outputs in, one gradient per
/// argument out (an undefined Tensor for arguments with no gradient; the
/// vector may be shorter than the argument list).
using BackwardFn =
    std::function<std::vector<Tensor>(const AutogradContext &, const std::vector<Tensor> &)>;

/// What a batching rule is told besides its arguments (torch.library's VmapInfo).
struct VmapInfo {
  int64_t batchSize = 0;
};
/// One entry per argument of a call: the dim of a batched tensor argument
/// that is the batch, or nullopt for an argument every sample shares.
using InDims = std::vector<std::optional<int64_t>>;
/// What a batching rule returns: the op's results over the whole batch, and
/// for each, the dim that is the batch (nullopt: the same for every sample).
struct VmapResult {
  Stack outputs;
  std::vector<std::optional<int64_t>> outDims;
};
/// A batching rule (torch.library.register_vmap): called with the batch
/// size, the in_dims and the batched arguments (schema order, defaults filled
/// in), it computes the op for every sample at once.
using VmapFn = std::function<VmapResult(const VmapInfo &, const InDims &, const Stack &)>;

namespace detail { struct OperatorEntry; }

/// A cheap handle to one operator (stays valid for the life of the process).
class OperatorHandle {
public:
  OperatorHandle() = default;
  explicit OperatorHandle(detail::OperatorEntry *e) : e_(e) {}
  bool valid() const { return e_ != nullptr; }
  /// "ns::name.overload"
  const std::string &name() const;
  bool hasSchema() const;
  /// Throws if the op has been implemented but never defined.
  const FunctionSchema &schema() const;

  /// Normalises the arguments (defaults, count, types), picks the key from
  /// the tensors' devices and requires-grad flags, and runs the kernel.
  void callBoxed(Stack &stack) const;
  /// Runs the kernel for the highest non-fallthrough key of `ks`
  /// (what an autograd kernel uses to reach the backend).
  void redispatchBoxed(DispatchKeySet ks, Stack &stack) const;
  /// The key set a call with these (normalised) arguments would use.
  DispatchKeySet keySetFor(const Stack &stack) const;

  /// The kernel the table holds for a runtime key (after alias and
  /// fallback resolution); invalid if none.
  KernelFunction tableEntry(DispatchKey k) const;
  /// True if a kernel was registered directly for `k` (runtime or alias).
  bool hasKernelFor(DispatchKey k) const;
  /// Keys (runtime and alias) with a registered kernel, in priority order.
  std::vector<DispatchKey> registeredKeys() const;
  /// The registered backward formula, or null.
  BackwardFn backward() const;
  /// The registered batching rule, or null.
  VmapFn vmapRule() const;
  /// Registered fake function exists (a Meta kernel, or a composite one).
  bool hasFake() const;
  /// The dispatch table as text, one line per runtime key.
  std::string dumpTable() const;

  bool operator==(const OperatorHandle &o) const { return e_ == o.e_; }

private:
  detail::OperatorEntry *e_ = nullptr;
};

/// Thread-local switch for autograd (like torch.no_grad when disabled).
struct GradMode {
  static bool isEnabled();
  static void setEnabled(bool);
};
/// RAII: sets GradMode for a scope.
class AutoGradMode {
public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::isEnabled()) { GradMode::setEnabled(enabled); }
  ~AutoGradMode() { GradMode::setEnabled(prev_); }
private:
  bool prev_;
};

/// The process-wide operator registry.
class Dispatcher {
public:
  static Dispatcher &get();

  /// "ns::name", "ns::name.overload" or "ns::name.default"; invalid handle
  /// if the op has no schema.
  OperatorHandle findOp(const std::string &qualifiedName) const;
  /// Like findOp, but throws an Error naming the op if it is not defined.
  OperatorHandle findOpOrThrow(const std::string &qualifiedName) const;
  /// The entry for a name whether or not it is defined yet (impl before def).
  OperatorHandle findOrCreate(const std::string &qualifiedName);
  /// Every defined op, sorted.
  std::vector<std::string> ops() const;

  /// Calls an op by name (boxed).
  void call(const std::string &qualifiedName, Stack &stack) const {
    findOpOrThrow(qualifiedName).callBoxed(stack);
  }

  // ---- registration (what kiln::Library uses; each returns an undo action) ----
  using Undo = std::function<void()>;
  Undo registerDef(FunctionSchema schema, const std::string &debug);
  Undo registerImpl(const std::string &qualifiedName, DispatchKey key, KernelFunction k);
  Undo registerFallback(DispatchKey key, KernelFunction k);
  Undo registerBackward(const std::string &qualifiedName, BackwardFn fn, const std::string &debug);
  Undo registerVmap(const std::string &qualifiedName, VmapFn fn, const std::string &debug);
  /// A DEF library claims a namespace; a second claim is an error.
  Undo claimNamespace(const std::string &ns, const std::string &debug);

  /// Loads a plugin shared library (dlopen RTLD_NOW|RTLD_GLOBAL); its static
  /// KILN_LIBRARY blocks register its ops. On any error (no such file, a
  /// missing symbol, a conflicting registration) nothing it registered
  /// stays, `err` says why and the result is false.
  bool loadPlugin(const std::string &path, std::string &err);

  /// Called by static registrars when a registration throws (exceptions must
  /// not leave a static initializer): collected by loadPlugin while one is in
  /// progress, printed to stderr otherwise, and kept for registrationErrors().
  void reportStaticError(const std::string &msg);
  std::vector<std::string> registrationErrors() const;

  struct Impl;
private:
  Dispatcher();
  Impl *impl_;
};

/// Calls an op by name through the dispatcher (boxed).
inline Stack callBoxed(const std::string &op, Stack args) {
  Dispatcher::get().call(op, args);
  return args;
}

/// Loads a plugin; see Dispatcher::loadPlugin.
bool loadPlugin(const std::string &path, std::string &err);

} // namespace kiln

#endif // KILN_DISPATCHER_H
