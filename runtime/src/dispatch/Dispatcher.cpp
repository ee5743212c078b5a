// kiln runtime — the operator registry, dispatch tables, boxed calls and plugin loading.
#include "kiln/dispatcher.h"
#include "kiln/library.h"

#include "Float16Fallback.h"

#include <algorithm>
#include <dlfcn.h>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <sys/stat.h>

namespace kiln {

// ---------------------------------------------------------------------------
// Dispatch keys
// ---------------------------------------------------------------------------
static const char *const kKeyNames[] = {
#define KILN_DK_NAME(k) #k,
    KILN_FOR_EACH_DISPATCH_KEY(KILN_DK_NAME)
#undef KILN_DK_NAME
};

const char *dispatchKeyName(DispatchKey k) {
  return (int)k < kNumDispatchKeys ? kKeyNames[(int)k] : "Undefined";
}
bool parseDispatchKey(const std::string &name, DispatchKey &out) {
  for (int i = 0; i < kNumDispatchKeys; ++i)
    if (name == kKeyNames[i]) {
      out = (DispatchKey)i;
      return true;
    }
  return false;
}
bool isAutogradKey(DispatchKey k) {
  switch (k) {
  case DispatchKey::AutogradCPU: case DispatchKey::AutogradCUDA: case DispatchKey::AutogradHIP:
  case DispatchKey::AutogradMeta: case DispatchKey::Autograd: return true;
  default: return false;
  }
}
bool isBackendKey(DispatchKey k) {
  return k == DispatchKey::CPU || k == DispatchKey::CUDA || k == DispatchKey::HIP ||
         k == DispatchKey::Meta;
}
DispatchKey backendKeyFor(DeviceType d) {
  switch (d) {
  case DeviceType::CPU: return DispatchKey::CPU;
  case DeviceType::CUDA: return DispatchKey::CUDA;
  case DeviceType::HIP: return DispatchKey::HIP;
  case DeviceType::Meta: return DispatchKey::Meta;
  }
  return DispatchKey::CPU;
}
DispatchKey autogradKeyFor(DispatchKey b) {
  switch (b) {
  case DispatchKey::CUDA: return DispatchKey::AutogradCUDA;
  case DispatchKey::HIP: return DispatchKey::AutogradHIP;
  case DispatchKey::Meta: return DispatchKey::AutogradMeta;
  default: return DispatchKey::AutogradCPU;
  }
}
DispatchKey backendOf(DispatchKey k) {
  switch (k) {
  case DispatchKey::AutogradCPU: return DispatchKey::CPU;
  case DispatchKey::AutogradCUDA: return DispatchKey::CUDA;
  case DispatchKey::AutogradHIP: return DispatchKey::HIP;
  case DispatchKey::AutogradMeta: return DispatchKey::Meta;
  default: return k;
  }
}

DispatchKeySet DispatchKeySet::withoutAutograd() const {
  DispatchKeySet r = *this;
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (isAutogradKey((DispatchKey)i)) r.remove((DispatchKey)i);
  return r;
}
DispatchKeySet DispatchKeySet::after(DispatchKey k) const {
  DispatchKeySet r = *this;
  for (int i = 0; i <= (int)k; ++i) r.remove((DispatchKey)i);
  return r;
}
DispatchKey DispatchKeySet::highest() const {
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (has((DispatchKey)i)) return (DispatchKey)i;
  return DispatchKey::NumKeys;
}
std::string DispatchKeySet::str() const {
  std::string s;
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (has((DispatchKey)i)) s += (s.empty() ? "" : ", ") + std::string(kKeyNames[i]);
  return "{" + s + "}";
}

KernelFunction fallthrough() {
  KernelFunction k;
  k.isFallthrough = true;
  k.debug = "fallthrough";
  return k;
}

static thread_local bool tGradEnabled = true;
bool GradMode::isEnabled() { return tGradEnabled; }
void GradMode::setEnabled(bool e) { tGradEnabled = e; }

// ---------------------------------------------------------------------------
// Registry state
// ---------------------------------------------------------------------------
namespace detail {
template <typename T> using Stacked = std::list<std::pair<uint64_t, T>>; // front is active

struct OperatorEntry {
  std::string name;
  std::optional<FunctionSchema> schema;
  uint64_t schemaId = 0;
  std::string defDebug;
  std::array<Stacked<KernelFunction>, kNumDispatchKeys> kernels;
  Stacked<BackwardFn> backwards;
  Stacked<VmapFn> vmaps;
  /// Shared pointers: a call copies the pointer under the registry lock and
  /// runs the kernel outside it, while a plugin may replace the entry.
  std::array<std::shared_ptr<const KernelFunction>, kNumRuntimeKeys> table;
};
} // namespace detail

namespace {
/// The registry lock: registration (static initialisers, plugins loaded at any
/// time) takes it exclusively; calls and lookups take it shared, only to read
/// a table entry, so calls from many threads never wait on each other.
std::shared_mutex &registryMu() {
  static std::shared_mutex *mu = new std::shared_mutex(); // never destroyed, like the dispatcher
  return *mu;
}
using ReadLock = std::shared_lock<std::shared_mutex>;
using WriteLock = std::unique_lock<std::shared_mutex>;
} // namespace

namespace {
struct PluginLoad {
  std::vector<std::string> errors;
  std::vector<Library *> libs;
};
thread_local PluginLoad *tCurrentLoad = nullptr;

/// "ns::name.default" and "ns::name" name the same op.
std::string canonicalName(const std::string &q) {
  std::string ns, name, ov;
  if (!splitQualifiedName(q, ns, name, ov)) return q;
  return ns + "::" + name + (ov.empty() ? "" : "." + ov);
}
} // namespace

struct Dispatcher::Impl {
  std::map<std::string, std::unique_ptr<detail::OperatorEntry>> ops;
  std::array<detail::Stacked<KernelFunction>, kNumRuntimeKeys> fallbacks;
  std::map<std::string, std::pair<uint64_t, std::string>> namespaces;
  std::vector<std::string> staticErrors;
  std::map<std::string, void *> plugins;
  std::mutex pluginMu;
  uint64_t nextId = 1;

  detail::OperatorEntry *getOrCreate(const std::string &q) {
    std::string n = canonicalName(q);
    auto &p = ops[n];
    if (!p) {
      p = std::make_unique<detail::OperatorEntry>();
      p->name = n;
      recompute(*p);
    }
    return p.get();
  }

  void recompute(detail::OperatorEntry &e) {
    auto first = [&](DispatchKey k) -> const KernelFunction * {
      auto &l = e.kernels[(int)k];
      return l.empty() ? nullptr : &l.front().second;
    };
    for (int i = 0; i < kNumRuntimeKeys; ++i) {
      DispatchKey k = (DispatchKey)i;
      const KernelFunction *kf = first(k);
      if (!kf) {
        if (isAutogradKey(k)) {
          DispatchKey b = backendOf(k);
          if ((kf = first(DispatchKey::Autograd))) {
          } else if (first(DispatchKey::CompositeImplicitAutograd) && !first(b) &&
                     !first(DispatchKey::CompositeExplicitAutograd)) {
            kf = first(DispatchKey::CompositeImplicitAutograd);
          }
        } else {
          if (!(kf = first(DispatchKey::CompositeExplicitAutograd)))
            kf = first(DispatchKey::CompositeImplicitAutograd);
        }
      }
      if (!kf && !fallbacks[i].empty()) kf = &fallbacks[i].front().second;
      e.table[i] = kf ? std::make_shared<const KernelFunction>(*kf) : nullptr;
    }
  }
  void recomputeAll() {
    for (auto &p : ops) recompute(*p.second);
  }
};

Dispatcher &Dispatcher::get() {
  static Dispatcher *d = new Dispatcher(); // never destroyed: plugins may outlive static teardown
  return *d;
}

Dispatcher::Dispatcher() : impl_(new Impl) {
  // Ops with no autograd kernel pass autograd keys through to the backend.
  for (int i = 0; i < kNumRuntimeKeys; ++i)
    if (isAutogradKey((DispatchKey)i)) impl_->fallbacks[i].emplace_back(0, fallthrough());
}

OperatorHandle Dispatcher::findOp(const std::string &q) const {
  ReadLock g(registryMu());
  auto it = impl_->ops.find(canonicalName(q));
  if (it == impl_->ops.end() || !it->second->schema) return OperatorHandle();
  return OperatorHandle(it->second.get());
}

OperatorHandle Dispatcher::findOpOrThrow(const std::string &q) const {
  OperatorHandle h = findOp(q);
  if (h.valid()) return h;
  std::string msg = "kiln: unknown op '" + q + "'";
  std::string ns, name, ov;
  if (splitQualifiedName(q, ns, name, ov)) {
    std::string similar;
    ReadLock g(registryMu());
    for (auto &p : impl_->ops)
      if (p.second->schema && p.second->schema->ns == ns && p.second->schema->name == name)
        similar += (similar.empty() ? "" : ", ") + p.first;
    if (!similar.empty()) msg += " (overloads that exist: " + similar + ")";
    else if (!impl_->namespaces.count(ns) && ns != "aten")
      msg += " (no library defines namespace '" + ns + "': is its plugin loaded?)";
  }
  throw Error(msg);
}

OperatorHandle Dispatcher::findOrCreate(const std::string &q) {
  WriteLock g(registryMu());
  return OperatorHandle(impl_->getOrCreate(q));
}

std::vector<std::string> Dispatcher::ops() const {
  ReadLock g(registryMu());
  std::vector<std::string> r;
  for (auto &p : impl_->ops)
    if (p.second->schema) r.push_back(p.first);
  return r;
}

Dispatcher::Undo Dispatcher::claimNamespace(const std::string &ns, const std::string &debug) {
  WriteLock g(registryMu());
  auto it = impl_->namespaces.find(ns);
  if (it != impl_->namespaces.end())
    throw Error("kiln: namespace '" + ns + "' is already defined by a KILN_LIBRARY block (at " +
                it->second.second + "); a second one is at " + debug +
                ": use KILN_LIBRARY_FRAGMENT to add ops to it");
  uint64_t id = impl_->nextId++;
  impl_->namespaces[ns] = {id, debug};
  return [this, ns, id] {
    WriteLock g(registryMu());
    auto it = impl_->namespaces.find(ns);
    if (it != impl_->namespaces.end() && it->second.first == id) impl_->namespaces.erase(it);
  };
}

Dispatcher::Undo Dispatcher::registerDef(FunctionSchema schema, const std::string &debug) {
  WriteLock g(registryMu());
  detail::OperatorEntry *e = impl_->getOrCreate(schema.qualifiedName());
  if (e->schema)
    throw Error("kiln: op '" + e->name + "' is defined twice: first at " + e->defDebug +
                ", again at " + debug);
  e->schema = std::move(schema);
  e->defDebug = debug;
  uint64_t id = e->schemaId = impl_->nextId++;
  return [this, e, id] {
    WriteLock g(registryMu());
    if (e->schemaId == id) {
      e->schema.reset();
      e->schemaId = 0;
      e->defDebug.clear();
    }
  };
}

Dispatcher::Undo Dispatcher::registerImpl(const std::string &q, DispatchKey key, KernelFunction k) {
  WriteLock g(registryMu());
  if (!k.valid()) throw Error("kiln: empty kernel registered for '" + q + "'");
  detail::OperatorEntry *e = impl_->getOrCreate(q);
  uint64_t id = impl_->nextId++;
  e->kernels[(int)key].emplace_front(id, std::move(k));
  impl_->recompute(*e);
  return [this, e, key, id] {
    WriteLock g(registryMu());
    e->kernels[(int)key].remove_if([&](auto &p) { return p.first == id; });
    impl_->recompute(*e);
  };
}

Dispatcher::Undo Dispatcher::registerFallback(DispatchKey key, KernelFunction k) {
  WriteLock g(registryMu());
  std::vector<int> slots;
  if (key == DispatchKey::Autograd) {
    for (int i = 0; i < kNumRuntimeKeys; ++i)
      if (isAutogradKey((DispatchKey)i)) slots.push_back(i);
  } else if (isAliasKey(key)) {
    throw Error(std::string("kiln: a fallback cannot be registered for alias key ") +
                dispatchKeyName(key));
  } else {
    slots.push_back((int)key);
  }
  uint64_t id = impl_->nextId++;
  for (int s : slots) impl_->fallbacks[s].emplace_front(id, k);
  impl_->recomputeAll();
  return [this, slots, id] {
    WriteLock g(registryMu());
    for (int s : slots) impl_->fallbacks[s].remove_if([&](auto &p) { return p.first == id; });
    impl_->recomputeAll();
  };
}

Dispatcher::Undo Dispatcher::registerBackward(const std::string &q, BackwardFn fn,
                                              const std::string &debug) {
  WriteLock g(registryMu());
  detail::OperatorEntry *e = impl_->getOrCreate(q);
  if (!e->backwards.empty())
    throw Error("kiln: op '" + e->name + "' already has a backward formula; another at " + debug);
  uint64_t id = impl_->nextId++;
  e->backwards.emplace_front(id, std::move(fn));
  return [this, e, id] {
    WriteLock g(registryMu());
    e->backwards.remove_if([&](auto &p) { return p.first == id; });
  };
}

Dispatcher::Undo Dispatcher::registerVmap(const std::string &q, VmapFn fn,
                                          const std::string &debug) {
  WriteLock g(registryMu());
  detail::OperatorEntry *e = impl_->getOrCreate(q);
  if (!e->vmaps.empty())
    throw Error("kiln: op '" + e->name + "' already has a batching rule; another at " + debug);
  uint64_t id = impl_->nextId++;
  e->vmaps.emplace_front(id, std::move(fn));
  return [this, e, id] {
    WriteLock g(registryMu());
    e->vmaps.remove_if([&](auto &p) { return p.first == id; });
  };
}

void Dispatcher::reportStaticError(const std::string &msg) {
  {
    WriteLock g(registryMu());
    impl_->staticErrors.push_back(msg);
  }
  if (tCurrentLoad) tCurrentLoad->errors.push_back(msg);
  else std::cerr << "kiln: registration error: " << msg << "\n";
}

std::vector<std::string> Dispatcher::registrationErrors() const {
  ReadLock g(registryMu());
  return impl_->staticErrors;
}

namespace detail {
void noteLibraryCreated(Library *lib) {
  if (tCurrentLoad) tCurrentLoad->libs.push_back(lib);
}
void noteLibraryDestroyed(Library *lib) {
  if (tCurrentLoad) {
    auto &v = tCurrentLoad->libs;
    v.erase(std::remove(v.begin(), v.end(), lib), v.end());
  }
}
} // namespace detail

bool Dispatcher::loadPlugin(const std::string &path, std::string &err) {
  std::lock_guard<std::mutex> g(impl_->pluginMu);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    err = "kiln: cannot load plugin '" + path + "': no such file";
    return false;
  }
  if (impl_->plugins.count(path)) return true;
  // A bare file name would make dlopen search the library path: anchor it.
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  PluginLoad load;
  PluginLoad *prev = tCurrentLoad;
  tCurrentLoad = &load;
  ::dlerror();
  void *h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
  tCurrentLoad = prev;
  if (!h) {
    const char *e = ::dlerror();
    err = "kiln: cannot load plugin '" + path + "': " + (e ? e : "dlopen failed");
    return false;
  }
  if (!load.errors.empty()) {
    // All or nothing: drop whatever the plugin managed to register.
    for (Library *lib : load.libs) lib->reset();
    ::dlclose(h);
    err = "kiln: plugin '" + path + "' failed to register its ops: ";
    for (size_t i = 0; i < load.errors.size(); ++i) err += (i ? "; " : "") + load.errors[i];
    return false;
  }
  impl_->plugins[path] = h;
  return true;
}

bool loadPlugin(const std::string &path, std::string &err) {
  return Dispatcher::get().loadPlugin(path, err);
}

bool opDefined(const std::string &qualifiedName) {
  return Dispatcher::get().findOp(qualifiedName).valid();
}

// ---------------------------------------------------------------------------
// Operator handles and calls
// ---------------------------------------------------------------------------
const std::string &OperatorHandle::name() const { return e_->name; }
bool OperatorHandle::hasSchema() const {
  ReadLock g(registryMu());
  return e_ && e_->schema.has_value();
}
const FunctionSchema &OperatorHandle::schema() const {
  if (!hasSchema()) throw Error("kiln: op '" + e_->name + "' has kernels but no schema (no m.def)");
  return *e_->schema;
}

namespace {
bool typeAccepts(const SchemaType &t, IValue &v) {
  using K = SchemaType::Kind;
  if (t.kind == K::Optional) return v.isNone() || typeAccepts(*t.elem, v);
  switch (t.kind) {
  case K::Tensor: return v.isTensor();
  case K::Int: case K::SymInt: case K::ScalarType: case K::Layout: case K::MemoryFormat:
    if (v.isDouble() && (double)(int64_t)v.toDouble() == v.toDouble()) v = IValue((int64_t)v.toDouble());
    return v.isInt() || v.isBool() || (t.kind == K::MemoryFormat && v.isString());
  case K::Float:
    if (v.isInt()) v = IValue((double)v.toInt());
    return v.isDouble();
  case K::Bool: return v.isBool() || v.isInt();
  case K::Str: return v.isString();
  case K::Scalar: return v.isScalar();
  case K::List: {
    K ek = t.elem->stripOptional().kind;
    if (ek == K::Tensor) return v.isTensorList() || v.isList();
    if (ek == K::Int || ek == K::SymInt) {
      if (v.isInt() && t.fixedSize >= 0) v = IValue(std::vector<int64_t>(t.fixedSize, v.toInt()));
      if (v.isList()) {
        std::vector<int64_t> xs;
        for (auto &x : v.toList()) xs.push_back(x.toInt());
        v = IValue(xs);
      }
      return v.isIntList();
    }
    if (ek == K::Float) {
      if (v.isIntList()) v = IValue(v.toDoubleList());
      return v.isDoubleList();
    }
    if (ek == K::Bool) return v.isBoolList() || v.isIntList();
    return true;
  }
  default: return true;
  }
}

void normalize(const FunctionSchema &s, Stack &stack) {
  if (s.varArgs) return;
  size_t n = s.arguments.size();
  if (stack.size() > n)
    throw Error("kiln: " + s.qualifiedName() + " takes " + std::to_string(n) + " arguments, got " +
                std::to_string(stack.size()) + "; schema: " + s.str());
  for (size_t i = stack.size(); i < n; ++i) {
    const Argument &a = s.arguments[i];
    if (!a.defaultValue)
      throw Error("kiln: " + s.qualifiedName() + ": missing argument '" + a.name +
                  "' (no default); schema: " + s.str());
    stack.push_back(*a.defaultValue);
  }
  for (size_t i = 0; i < n; ++i)
    if (!typeAccepts(*s.arguments[i].type, stack[i]))
      throw Error("kiln: " + s.qualifiedName() + ": argument '" + s.arguments[i].name +
                  "' must be " + s.arguments[i].type->str() + ", got " + stack[i].repr() +
                  "; schema: " + s.str());
}

void addTensorKeys(const Tensor &t, DispatchKeySet &ks, bool grad) {
  if (!t.defined()) return;
  DispatchKey b = backendKeyFor(t.device().type);
  ks.add(b);
  if (grad && t.requiresGrad()) ks.add(autogradKeyFor(b));
}
} // namespace

DispatchKeySet OperatorHandle::keySetFor(const Stack &stack) const {
  DispatchKeySet ks;
  bool grad = GradMode::isEnabled();
  for (const IValue &v : stack) {
    if (v.isTensor()) addTensorKeys(v.toTensor(), ks, grad);
    else if (v.isTensorList()) for (auto &t : v.toTensorList()) addTensorKeys(t, ks, grad);
    else if (v.isList())
      for (auto &x : v.toList())
        if (x.isTensor()) addTensorKeys(x.toTensor(), ks, grad);
  }
  if (ks.empty()) ks.add(DispatchKey::CPU);
  return ks;
}

void OperatorHandle::callBoxed(Stack &stack) const {
  normalize(schema(), stack);
  redispatchBoxed(keySetFor(stack), stack);
}

void OperatorHandle::redispatchBoxed(DispatchKeySet ks, Stack &stack) const {
  DispatchKeySet callKeys = ks;
  for (;;) {
    DispatchKey k = ks.highest();
    if (k == DispatchKey::NumKeys) break;
    std::shared_ptr<const KernelFunction> entry;
    {
      ReadLock g(registryMu());
      entry = e_->table[(int)k];
    }
    static const KernelFunction kNone;
    const KernelFunction &kf = entry ? *entry : kNone;
    if (kf.isFallthrough) {
      ks.remove(k);
      continue;
    }
    if (!kf.fn) {
      std::string have;
      for (DispatchKey r : registeredKeys()) have += (have.empty() ? "" : ", ") + std::string(dispatchKeyName(r));
      throw Error("kiln: op '" + e_->name + "' has no kernel for dispatch key " + dispatchKeyName(k) +
                  " (the call's keys: " + callKeys.str() + "); " +
                  (have.empty() ? std::string("it has no kernels at all")
                                : "it has kernels for: " + have));
    }
    if (k == DispatchKey::CPU && holdsFloat16(stack)) {
      // A CPU kernel without 16-bit loops runs the call in float32 (Float16Fallback.h).
      Stack args = stack;
      try {
        kf.fn(*this, ks, stack);
      } catch (const UnsupportedDTypeError &e) {
        if (!isFloat16(e.dtype) ||
            !runInFloat32(schema(), args, stack, [&](Stack &s) { kf.fn(*this, ks, s); }))
          throw;
      }
      return;
    }
    kf.fn(*this, ks, stack);
    return;
  }
  throw Error("kiln: op '" + e_->name + "': every key of the call " + callKeys.str() +
              " fell through; no kernel ran");
}

KernelFunction OperatorHandle::tableEntry(DispatchKey k) const {
  if (isAliasKey(k)) return {};
  ReadLock g(registryMu());
  const auto &entry = e_->table[(int)k];
  return entry ? *entry : KernelFunction{};
}
bool OperatorHandle::hasKernelFor(DispatchKey k) const {
  ReadLock g(registryMu());
  return !e_->kernels[(int)k].empty();
}
std::vector<DispatchKey> OperatorHandle::registeredKeys() const {
  ReadLock g(registryMu());
  std::vector<DispatchKey> r;
  for (int i = 0; i < kNumDispatchKeys; ++i)
    if (!e_->kernels[i].empty()) r.push_back((DispatchKey)i);
  return r;
}
BackwardFn OperatorHandle::backward() const {
  ReadLock g(registryMu());
  return e_->backwards.empty() ? BackwardFn() : e_->backwards.front().second;
}
VmapFn OperatorHandle::vmapRule() const {
  ReadLock g(registryMu());
  return e_->vmaps.empty() ? VmapFn() : e_->vmaps.front().second;
}
bool OperatorHandle::hasFake() const {
  return hasKernelFor(DispatchKey::Meta) || hasKernelFor(DispatchKey::CompositeExplicitAutograd) ||
         hasKernelFor(DispatchKey::CompositeImplicitAutograd);
}
std::string OperatorHandle::dumpTable() const {
  std::ostringstream os;
  for (int i = 0; i < kNumRuntimeKeys; ++i) {
    KernelFunction k = tableEntry((DispatchKey)i);
    os << kKeyNames[i] << ": "
       << (k.isFallthrough ? "fallthrough" : k.fn ? (k.debug.empty() ? "kernel" : k.debug) : "-")
       << "\n";
  }
  return os.str();
}

} // namespace kiln
