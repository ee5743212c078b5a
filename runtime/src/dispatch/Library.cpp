// kiln runtime — Library (def/impl/fallback/register_autograd), static
// registrars, and the eager autograd tape.
#include "kiln/library.h"

#include <map>
#include <tuple>

namespace kiln {

namespace detail {
void noteLibraryCreated(Library *lib);
void noteLibraryDestroyed(Library *lib);
} // namespace detail

static const char *kindName(Library::Kind k) {
  return k == Library::DEF ? "KILN_LIBRARY" : k == Library::IMPL ? "KILN_LIBRARY_IMPL"
                                                                  : "KILN_LIBRARY_FRAGMENT";
}

Library::Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char *file,
                 int line)
    : kind_(kind), ns_(std::move(ns)), key_(key), file_(file ? file : "?"), line_(line) {
  if (ns_ == "_" && kind_ != IMPL)
    throw Error(std::string("kiln: namespace '_' is only for KILN_LIBRARY_IMPL fallbacks") + at());
  if (kind_ == IMPL && !key_) throw Error("kiln: an IMPL library needs a dispatch key" + at());
  if (kind_ == DEF) undo_.push_back(Dispatcher::get().claimNamespace(ns_, where()));
  detail::noteLibraryCreated(this);
}

Library::~Library() {
  reset();
  detail::noteLibraryDestroyed(this);
}

void Library::reset() {
  while (!undo_.empty()) {
    Dispatcher::Undo u = std::move(undo_.back());
    undo_.pop_back();
    u();
  }
}

std::string Library::where() const { return file_ + ":" + std::to_string(line_); }

std::string Library::qualify(const std::string &name) const {
  std::string q = name.find("::") == std::string::npos ? ns_ + "::" + name : name;
  std::string ns, n, ov;
  if (!splitQualifiedName(q, ns, n, ov)) throw Error("kiln: bad op name '" + name + "'" + at());
  if (ns_ != "_" && ns != ns_)
    throw Error("kiln: " + std::string(kindName(kind_)) + "(" + ns_ + ") cannot register '" + q +
                "' of another namespace" + at());
  return q;
}

Library &Library::def(const std::string &schema) {
  if (kind_ == IMPL) throw Error("kiln: m.def() is not allowed in KILN_LIBRARY_IMPL" + at());
  FunctionSchema s;
  try {
    s = parseSchema(schema, ns_);
  } catch (const SchemaParseError &e) {
    throw Error(std::string(e.what()) + "\n  (in m.def at " + where() + ")");
  }
  if (s.ns != ns_)
    throw Error("kiln: " + std::string(kindName(kind_)) + "(" + ns_ + ") cannot define '" +
                s.qualifiedName() + "' of another namespace" + at());
  undo_.push_back(Dispatcher::get().registerDef(std::move(s), where()));
  return *this;
}

Library &Library::implAt(const std::string &qualified, DispatchKey key, KernelFunction k) {
  undo_.push_back(Dispatcher::get().registerImpl(qualified, key, std::move(k)));
  return *this;
}

namespace {
bool anyRequiresGrad(const Stack &s) {
  for (const IValue &v : s) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().requiresGrad()) return true;
    if (v.isTensorList())
      for (auto &t : v.toTensorList())
        if (t.requiresGrad()) return true;
  }
  return false;
}
} // namespace

bool sameView(const Tensor &a, const Tensor &b) {
  return a.defined() && b.defined() && a.storage() == b.storage() && a.offset() == b.offset() &&
         a.sizes() == b.sizes() && a.strides() == b.strides() && a.dtype() == b.dtype();
}

struct autograd::Tape::Node {
  OperatorHandle op;
  Stack inputs, outputs;
};

Library &Library::register_autograd(const std::string &name, BackwardFn bw) {
  std::string q = qualify(name);
  undo_.push_back(Dispatcher::get().registerBackward(q, std::move(bw), where()));
  KernelFunction k;
  k.debug = "autograd formula (" + where() + ")";
  k.fn = [](const OperatorHandle &op, DispatchKeySet ks, Stack &s) {
    bool grad = GradMode::isEnabled() && anyRequiresGrad(s);
    Stack inputs;
    if (grad) inputs = s;
    {
      AutoGradMode off(false);
      op.redispatchBoxed(ks.withoutAutograd(), s);
    }
    if (!grad) return;
    for (IValue &v : s)
      if (v.isTensor() && v.toTensor().defined() && isFloatingPoint(v.toTensor().dtype())) {
        // The tape tells tensors apart by their view of storage: a result that
        // is exactly an input's view (reshape to the same shape) gets its own copy.
        for (const IValue &in : inputs)
          if (in.isTensor() && sameView(in.toTensor(), v.toTensor())) {
            v = IValue(v.toTensor().clone());
            break;
          }
        v.toTensor().setRequiresGrad(true);
      }
    if (autograd::Tape *t = autograd::Tape::current())
      t->record(autograd::Tape::Node{op, std::move(inputs), s});
  };
  return implAt(q, DispatchKey::Autograd, std::move(k));
}

Library &Library::register_vmap(const std::string &name, VmapFn rule) {
  if (!rule) throw Error("kiln: register_vmap('" + name + "') needs a rule" + at());
  undo_.push_back(Dispatcher::get().registerVmap(qualify(name), std::move(rule), where()));
  return *this;
}

namespace detail {
StaticLibrary::StaticLibrary(Library::Kind kind, const char *ns, std::optional<DispatchKey> key,
                             void (*init)(Library &), const char *file, int line) {
  try {
    lib_ = std::make_unique<Library>(kind, ns, key, file, line);
    init(*lib_);
  } catch (const std::exception &e) {
    if (lib_) lib_->reset(); // all or nothing per block
    Dispatcher::get().reportStaticError(e.what());
  }
}
StaticLibrary::~StaticLibrary() = default;
} // namespace detail

// ---------------------------------------------------------------------------
// Eager autograd tape
// ---------------------------------------------------------------------------
namespace autograd {
static thread_local Tape *tTape = nullptr;

Tape::Tape() : prev_(tTape) { tTape = this; }
Tape::~Tape() { tTape = prev_; }
Tape *Tape::current() { return tTape; }
size_t Tape::size() const { return nodes_.size(); }
void Tape::record(Node n) { nodes_.push_back(std::make_shared<Node>(std::move(n))); }

namespace {
// Tensors are values; a tensor's identity on the tape is its view of storage.
using Key = std::tuple<const void *, int64_t, std::vector<int64_t>, std::vector<int64_t>, int>;
Key keyOf(const Tensor &t) {
  return Key(t.storage().get(), t.offset(), t.sizes(), t.strides(), (int)t.dtype());
}
} // namespace

std::vector<Tensor> Tape::gradient(const std::vector<Tensor> &outputs,
                                   const std::vector<Tensor> &gradOutputs,
                                   const std::vector<Tensor> &inputs) {
  if (outputs.size() != gradOutputs.size())
    throw Error("kiln: Tape::gradient needs one gradient per output");
  AutoGradMode off(false);
  std::map<Key, Tensor> grads;
  auto accumulate = [&](const Tensor &t, const Tensor &g) {
    if (!g.defined()) return;
    if (g.sizes() != t.sizes())
      throw Error("kiln: a backward formula returned a gradient of shape " + g.shapeString() +
                  " for an input of shape " + t.shapeString());
    auto it = grads.find(keyOf(t));
    if (it == grads.end()) grads.emplace(keyOf(t), g);
    else it->second = call<Tensor>("aten::add.Tensor", it->second, g);
  };
  for (size_t i = 0; i < outputs.size(); ++i) accumulate(outputs[i], gradOutputs[i]);
  for (size_t n = nodes_.size(); n-- > 0;) {
    Node &node = *nodes_[n];
    std::vector<Tensor> gout;
    bool any = false;
    for (const IValue &o : node.outputs) {
      if (!o.isTensor()) { gout.emplace_back(); continue; }
      auto it = grads.find(keyOf(o.toTensor()));
      if (it != grads.end()) { gout.push_back(it->second); any = true; }
      else gout.push_back(Tensor::zeros(o.toTensor().sizes(), o.toTensor().dtype()));
    }
    if (!any) continue;
    BackwardFn bw = node.op.backward();
    if (!bw) continue;
    AutogradContext ctx{node.inputs, node.outputs};
    std::vector<Tensor> gin = bw(ctx, gout);
    for (size_t i = 0; i < gin.size() && i < node.inputs.size(); ++i)
      if (node.inputs[i].isTensor() && node.inputs[i].toTensor().requiresGrad())
        accumulate(node.inputs[i].toTensor(), gin[i]);
  }
  std::vector<Tensor> r;
  for (const Tensor &t : inputs) {
    auto it = grads.find(keyOf(t));
    r.push_back(it == grads.end() ? Tensor() : it->second);
  }
  return r;
}
} // namespace autograd

} // namespace kiln
