// kiln runtime — the facade for defining, implementing and calling ops:
// KILN_LIBRARY / KILN_LIBRARY_IMPL / KILN_LIBRARY_FRAGMENT, typed kernels,
// typed calls, fallthrough, fallbacks, fake functions, autograd formulas.
#ifndef KILN_LIBRARY_H
#define KILN_LIBRARY_H

#include "kiln/dispatcher.h"
#include "kiln/ivalue.h"
#include "kiln/opcheck.h"
#include "kiln/schema.h"
#include "kiln/tensor.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace kiln {

// ---------------------------------------------------------------------------
// Unboxing arguments and boxing results for typed kernels.
// ---------------------------------------------------------------------------
namespace detail {

template <typename T> struct Unbox;
template <> struct Unbox<Tensor> {
  static Tensor get(const IValue &v) { return v.isNone() ? Tensor() : v.toTensor(); }
};
template <> struct Unbox<int64_t> { static int64_t get(const IValue &v) { return v.toInt(); } };
template <> struct Unbox<double> { static double get(const IValue &v) { return v.toDouble(); } };
template <> struct Unbox<bool> { static bool get(const IValue &v) { return v.toBool(); } };
template <> struct Unbox<std::string> {
  static std::string get(const IValue &v) { return v.toString(); }
};
template <> struct Unbox<std::vector<int64_t>> {
  static std::vector<int64_t> get(const IValue &v) {
    if (v.isInt()) return {v.toInt()};
    return v.toIntList();
  }
};
template <> struct Unbox<std::vector<double>> {
  static std::vector<double> get(const IValue &v) { return v.toDoubleList(); }
};
template <> struct Unbox<std::vector<Tensor>> {
  static std::vector<Tensor> get(const IValue &v) { return v.toTensorList(); }
};
template <> struct Unbox<IValue> { static IValue get(const IValue &v) { return v; } };
template <> struct Unbox<DType> { static DType get(const IValue &v) { return (DType)v.toInt(); } };
template <typename T> struct Unbox<std::optional<T>> {
  static std::optional<T> get(const IValue &v) {
    if (v.isNone()) return std::nullopt;
    return Unbox<T>::get(v);
  }
};

template <typename T> struct Box {
  static void put(Stack &s, T v) { s.emplace_back(IValue(std::move(v))); }
};
template <> struct Box<DType> {
  static void put(Stack &s, DType v) { s.emplace_back(IValue((int64_t)v)); }
};
template <typename... Ts> struct Box<std::tuple<Ts...>> {
  static void put(Stack &s, std::tuple<Ts...> t) {
    std::apply([&](auto &&...e) { (Box<std::decay_t<decltype(e)>>::put(s, std::move(e)), ...); },
               std::move(t));
  }
};

template <typename F> struct FnTraits : FnTraits<decltype(&F::operator())> {};
template <typename R, typename... A> struct FnTraits<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<std::decay_t<A>...>;
  static constexpr size_t N = sizeof...(A);
};
template <typename R, typename... A> struct FnTraits<R(A...)> : FnTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FnTraits<R (C::*)(A...) const> : FnTraits<R (*)(A...)> {};
template <typename C, typename R, typename... A>
struct FnTraits<R (C::*)(A...)> : FnTraits<R (*)(A...)> {};

template <typename F, size_t... I>
void callUnboxed(F &f, Stack &stack, std::index_sequence<I...>) {
  using Tr = FnTraits<std::decay_t<F>>;
  using Args = typename Tr::Args;
  if (stack.size() != Tr::N)
    throw Error("kiln: typed kernel takes " + std::to_string(Tr::N) + " arguments, got " +
                std::to_string(stack.size()));
  if constexpr (std::is_void_v<typename Tr::Ret>) {
    f(Unbox<std::tuple_element_t<I, Args>>::get(stack[I])...);
    stack.clear();
  } else {
    auto r = f(Unbox<std::tuple_element_t<I, Args>>::get(stack[I])...);
    stack.clear();
    Box<std::decay_t<decltype(r)>>::put(stack, std::move(r));
  }
}

template <typename T> struct IsKernelFunction : std::is_same<std::decay_t<T>, KernelFunction> {};
template <typename F>
constexpr bool kIsBoxed =
    std::is_invocable_v<F &, const OperatorHandle &, DispatchKeySet, Stack &>;

} // namespace detail

/// Wraps a kernel: a KernelFunction as is; a boxed callable
/// `void(const OperatorHandle&, DispatchKeySet, Stack&)`; or a typed function
/// or non-generic lambda such as `Tensor f(const Tensor&, double)`.
/// Typed parameters: Tensor (an undefined Tensor for None), int64_t, double
/// (also for Scalar), bool, std::string, std::vector<int64_t|double|Tensor>,
/// DType, IValue, std::optional of those. Results: Tensor, a std::tuple,
/// std::vector<Tensor>, a scalar, or void.
template <typename F> KernelFunction makeKernel(F &&f, std::string debug = {}) {
  using D = std::decay_t<F>;
  if constexpr (detail::IsKernelFunction<D>::value) {
    KernelFunction k = std::forward<F>(f);
    if (k.debug.empty()) k.debug = debug;
    return k;
  } else if constexpr (detail::kIsBoxed<D>) {
    return KernelFunction{BoxedKernel(std::forward<F>(f)), false, std::move(debug)};
  } else {
    D fn = std::forward<F>(f);
    KernelFunction k;
    k.debug = std::move(debug);
    k.fn = [fn](const OperatorHandle &, DispatchKeySet, Stack &s) mutable {
      detail::callUnboxed(fn, s, std::make_index_sequence<detail::FnTraits<D>::N>{});
    };
    return k;
  }
}

// ---------------------------------------------------------------------------
// Typed calls.
// ---------------------------------------------------------------------------
namespace detail {
template <typename R> struct UnboxResult {
  static R get(Stack &s) {
    if (s.size() != 1)
      throw Error("kiln: expected 1 result, the op returned " + std::to_string(s.size()));
    return Unbox<R>::get(s[0]);
  }
};
template <> struct UnboxResult<void> { static void get(Stack &) {} };
template <> struct UnboxResult<Stack> { static Stack get(Stack &s) { return std::move(s); } };
template <typename... Ts> struct UnboxResult<std::tuple<Ts...>> {
  template <size_t... I> static std::tuple<Ts...> get(Stack &s, std::index_sequence<I...>) {
    return std::tuple<Ts...>(Unbox<Ts>::get(s[I])...);
  }
  static std::tuple<Ts...> get(Stack &s) {
    if (s.size() != sizeof...(Ts))
      throw Error("kiln: expected " + std::to_string(sizeof...(Ts)) + " results, the op returned " +
                  std::to_string(s.size()));
    return get(s, std::index_sequence_for<Ts...>{});
  }
};
} // namespace detail

/// Calls `op` with C++ arguments (boxed into IValues; trailing defaults are
/// filled in) and unboxes the result as R (Tensor, std::tuple<...>,
/// std::vector<Tensor>, Stack for all results, void, a scalar).
template <typename R = Tensor, typename... A> R call(const OperatorHandle &op, A &&...args) {
  Stack s;
  s.reserve(sizeof...(A));
  (s.emplace_back(IValue(std::forward<A>(args))), ...);
  op.callBoxed(s);
  return detail::UnboxResult<R>::get(s);
}
template <typename R = Tensor, typename... A> R call(const std::string &op, A &&...args) {
  return call<R>(Dispatcher::get().findOpOrThrow(op), std::forward<A>(args)...);
}

// ---------------------------------------------------------------------------
// Libraries.
// ---------------------------------------------------------------------------

/// A set of registrations that lives as long as the object (static
/// registrars keep theirs for the life of the library that holds them).
/// Methods throw kiln::Error on conflicts.
class Library {
public:
  enum Kind { DEF, IMPL, FRAGMENT };
  /// `ns` "_" in an IMPL library means every namespace (for fallbacks).
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char *file, int line);
  ~Library();
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;

  /// Defines an op from its schema; the namespace may be left out.
  Library &def(const std::string &schema);
  /// Defines an op and registers `f` for CompositeImplicitAutograd (it then
  /// serves every key, including Meta: write it from other ops).
  template <typename F> Library &def(const std::string &schema, F &&f) {
    def(schema);
    FunctionSchema s = parseSchema(schema, ns_);
    return implAt(s.qualifiedName(), DispatchKey::CompositeImplicitAutograd,
                  makeKernel(std::forward<F>(f), where()));
  }
  /// Registers a kernel for the library's key (IMPL), or for
  /// CompositeImplicitAutograd in a DEF/FRAGMENT library.
  template <typename F> Library &impl(const std::string &name, F &&f) {
    DispatchKey k = key_ ? *key_ : DispatchKey::CompositeImplicitAutograd;
    return implAt(qualify(name), k, makeKernel(std::forward<F>(f), where()));
  }
  /// Registers a kernel for an explicit key.
  template <typename F> Library &impl(const std::string &name, DispatchKey key, F &&f) {
    return implAt(qualify(name), key, makeKernel(std::forward<F>(f), where()));
  }
  /// Registers the fake (shape) function: it runs on Meta tensors, must not
  /// read their data, and returns Meta tensors of the right sizes/dtypes
  /// (Tensor::empty(sizes, dtype, Device{DeviceType::Meta})).
  template <typename F> Library &impl_fake(const std::string &name, F &&f) {
    return implAt(qualify(name), DispatchKey::Meta, makeKernel(std::forward<F>(f), where()));
  }
  /// Registers the backward formula of an op: `bw(ctx, gradOutputs)` returns
  /// one gradient per argument (undefined Tensor where there is none). Also
  /// installs the Autograd kernel that marks results as requiring grad and
  /// records the call on an active autograd::Tape.
  Library &register_autograd(const std::string &name, BackwardFn bw);
  /// Registers the batching rule of an op (torch.library.register_vmap):
  /// `rule(info, inDims, args)` computes the op for a whole batch and says
  /// where the batch is in each result. kiln::vmap, the compiled code of a
  /// model batched with --vmap and opcheck use it; without one an op is run
  /// once per sample.
  Library &register_vmap(const std::string &name, VmapFn rule);
  /// A kernel for every op at the library's key (IMPL libraries only).
  template <typename F> Library &fallback(F &&f) {
    if (kind_ != IMPL || !key_) throw Error("kiln: fallback() needs a KILN_LIBRARY_IMPL block" + at());
    undo_.push_back(Dispatcher::get().registerFallback(*key_, makeKernel(std::forward<F>(f), where())));
    return *this;
  }

  const std::string &ns() const { return ns_; }
  /// Drops every registration made through this library.
  void reset();

private:
  Library &implAt(const std::string &qualified, DispatchKey key, KernelFunction k);
  std::string qualify(const std::string &name) const;
  std::string where() const;
  std::string at() const { return " (" + where() + ")"; }
  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string file_;
  int line_;
  std::vector<Dispatcher::Undo> undo_;
};

namespace detail {
/// The object a KILN_LIBRARY* macro defines: builds a Library at static
/// initialisation, reporting (never throwing) errors.
class StaticLibrary {
public:
  StaticLibrary(Library::Kind kind, const char *ns, std::optional<DispatchKey> key,
                void (*init)(Library &), const char *file, int line);
  ~StaticLibrary();
private:
  std::unique_ptr<Library> lib_;
};
} // namespace detail

#define KILN_CONCAT_(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_(a, b)

#define KILN_LIBRARY_IMPL_HELPER_(kind, ns, key, m, uid)                                        \
  static void KILN_CONCAT(kiln_library_init_##ns##_, uid)(::kiln::Library &);                 \
  static const ::kiln::detail::StaticLibrary KILN_CONCAT(kiln_library_static_##ns##_, uid)(     \
      ::kiln::Library::kind, #ns, key, &KILN_CONCAT(kiln_library_init_##ns##_, uid), __FILE__,  \
      __LINE__);                                                                                \
  void KILN_CONCAT(kiln_library_init_##ns##_, uid)(::kiln::Library & m)

/// Defines the ops of namespace `ns` (once per namespace in the process).
#define KILN_LIBRARY(ns, m) KILN_LIBRARY_IMPL_HELPER_(DEF, ns, std::nullopt, m, __COUNTER__)
/// Adds definitions to namespace `ns` (any number of times).
#define KILN_LIBRARY_FRAGMENT(ns, m)                                                            \
  KILN_LIBRARY_IMPL_HELPER_(FRAGMENT, ns, std::nullopt, m, __COUNTER__)
/// Registers kernels of namespace `ns` (or `_` for fallbacks) for dispatch key `k`.
#define KILN_LIBRARY_IMPL(ns, k, m)                                                             \
  KILN_LIBRARY_IMPL_HELPER_(IMPL, ns, ::kiln::DispatchKey::k, m, __COUNTER__)
/// Registers the same kernels of namespace `ns` for dispatch keys CPU and Meta:
/// kernels that, given Meta tensors, only compute their results' shapes.
#define KILN_LIBRARY_IMPL_CPU_AND_META(ns, m)                                                   \
  KILN_LIBRARY_IMPL_CPU_AND_META_HELPER_(ns, m, KILN_CONCAT(kiln_cpu_meta_init_##ns##_, __LINE__))
#define KILN_LIBRARY_IMPL_CPU_AND_META_HELPER_(ns, m, init)                                     \
  static void init(::kiln::Library &);                                                          \
  KILN_LIBRARY_IMPL(ns, CPU, kiln_library_) { init(kiln_library_); }                            \
  KILN_LIBRARY_IMPL(ns, Meta, kiln_library_) { init(kiln_library_); }                           \
  static void init(::kiln::Library & m)

// ---------------------------------------------------------------------------
// Batching (vmap).
// ---------------------------------------------------------------------------

/// How kiln::vmap batches a call: with the op's batching rule when it has
/// one (else the loop), or always by running the op once per sample.
enum class VmapMode { Rule, Loop };

/// Runs `op` over a batch, as torch.func.vmap runs one op: `inDims` has one
/// entry per argument of `args` (the batch dim of a batched tensor argument,
/// nullopt for an argument every sample shares); at least one tensor is
/// batched and all agree on the batch size. Every result comes back with the
/// batch at dim 0 (a result the rule leaves unbatched is expanded along it).
/// Throws kiln::Error naming the op on bad in_dims or a rule whose results do
/// not fit (wrong count, out_dims, batch size).
Stack vmap(const OperatorHandle &op, const InDims &inDims, Stack args,
           VmapMode mode = VmapMode::Rule);

/// `t` with dim `from` moved to `to` (a view).
Tensor moveDim(const Tensor &t, int64_t from, int64_t to);
/// Sample `i` of `t` along dim `dim` (a view with that dim removed).
Tensor selectDim(const Tensor &t, int64_t dim, int64_t i);

// ---------------------------------------------------------------------------
// Eager autograd.
// ---------------------------------------------------------------------------
namespace autograd {
/// While a Tape is alive on a thread, calls of ops with a backward formula
/// whose inputs require grad are recorded on it; gradient() then runs the
/// formulas in reverse.
class Tape {
public:
  Tape();
  ~Tape();
  Tape(const Tape &) = delete;
  Tape &operator=(const Tape &) = delete;
  /// d(sum(outputs[i] * gradOutputs[i])) / d(inputs[j]) for each input
  /// (undefined Tensor where an input does not influence the outputs).
  std::vector<Tensor> gradient(const std::vector<Tensor> &outputs,
                               const std::vector<Tensor> &gradOutputs,
                               const std::vector<Tensor> &inputs);
  /// Number of recorded calls.
  size_t size() const;
  static Tape *current();
  struct Node;
  void record(Node n);
private:
  std::vector<std::shared_ptr<Node>> nodes_;
  Tape *prev_;
};
} // namespace autograd

} // namespace kiln

#endif // KILN_LIBRARY_H
