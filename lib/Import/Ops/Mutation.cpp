//===- Ops/Mutation.cpp - functionalisation: aliases, in-place ops, subgraphs ===//
//
// The default export IR keeps in-place ops (`relu_`, `add_`, `copy_`) and views
// that alias their input. kiln's aten dialect has value semantics only: each
// tensor name is bound to a TensorVar (see ImporterImpl.h); an in-place op is
// imported as its out-of-place form whose result becomes the new value of the
// mutated tensor, written back through any view chain into the base, and views
// of a mutated base are recomputed when next read. Also here: ops that are
// aliases or no-ops on values (detach, dropout in eval, assertions) and the
// higher-order ops whose subgraph is inlined.
//
//===----------------------------------------------------------------------===//
#include "../ImporterImpl.h"

#include "Autograd/IR/AutogradDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln::importer {

unsigned GraphImporter::newVar(Value v) {
  TensorVar t;
  t.value = v;
  t.root = vars.size();
  vars.push_back(std::move(t));
  return vars.size() - 1;
}

Value GraphImporter::readVar(unsigned var) {
  if (vars[var].base < 0)
    return vars[var].value;
  unsigned rootVersion = vars[vars[var].root].version;
  if (vars[var].seen == rootVersion)
    return vars[var].value;
  Value base = readVar(vars[var].base);
  Value v = vars[var].view(base);
  vars[var].value = v;
  vars[var].seen = rootVersion;
  return v;
}

void GraphImporter::writeVar(unsigned var, Value v) {
  if (vars[var].base < 0) {
    vars[var].value = v;
    ++vars[var].version;
    return;
  }
  unsigned base = vars[var].base;
  Value newBase = vars[var].scatter(readVar(base), v);
  writeVar(base, newBase);
  vars[var].value = v;
  vars[var].seen = vars[vars[var].root].version;
}

Value GraphImporter::bindView(StringRef name, unsigned base, ViewFn view, ScatterFn scatter) {
  Value v = view(readVar(base));
  TensorVar t;
  t.value = v;
  t.base = base;
  t.root = vars[base].root;
  t.seen = vars[t.root].version;
  t.view = std::move(view);
  t.scatter = std::move(scatter);
  vars.push_back(std::move(t));
  varOf[name] = vars.size() - 1;
  return v;
}

std::string GraphImporter::functionalTarget(StringRef target) {
  StringRef rest = target;
  if (!rest.consume_front("torch.ops."))
    return "";
  auto [ns, nameOverload] = rest.split('.');
  auto [name, overload] = nameOverload.split('.');
  std::string functional;
  if (name.starts_with("__") && name.ends_with("__")) {
    // __iand__ -> __and__
    if (!name.starts_with("__i") || name.size() <= 5)
      return "";
    functional = ("__" + name.drop_front(3)).str();
  } else if (name.size() > 1 && name.ends_with("_") && !name.ends_with("__")) {
    functional = name.drop_back().str();
  } else {
    return "";
  }
  return ("torch.ops." + ns + "." + functional + (overload.empty() ? "" : ".") + overload).str();
}

std::string GraphImporter::functionalOf(StringRef target) {
  std::string functional = functionalTarget(target);
  if (functional.empty() || handlers.count(functional) || isRuntimeOp(functional))
    return functional;
  StringRef f = functional;
  if (f.consume_back(".Tensor")) {
    std::string plain = (f + ".default").str();
    if (handlers.count(plain) || isRuntimeOp(plain))
      return plain;
  }
  return functional;
}

std::string GraphImporter::viewTarget(StringRef target) {
  StringRef rest = target;
  if (!rest.consume_front("torch.ops."))
    return "";
  auto [ns, nameOverload] = rest.split('.');
  auto [name, overload] = nameOverload.split('.');
  if (!name.consume_back("_copy") || name.empty())
    return "";
  return ("torch.ops." + ns + "." + name + (overload.empty() ? "" : ".") + overload).str();
}

FailureOr<bool> GraphImporter::importInPlace(const Object &node, Location loc, StringRef target) {
  std::string functional = functionalOf(target);
  StringRef opName = StringRef(target).drop_front(strlen("torch.ops."));
  auto self = varOfArg(node, "self", loc);
  if (failed(self))
    return failure();
  SmallVector<std::string> outs = outputNames(node);
  if (outs.size() != 1)
    return ((void)fail(loc, "in-place op '" + opName + "' with " + std::to_string(outs.size()) +
                                " tensor results is not supported"),
            failure());
  Type selfType = readVar(*self).getType();
  auto it = handlers.find(functional);
  if (it != handlers.end()) {
    if (failed(it->second(node, loc)))
      return failure();
  } else {
    FailureOr<bool> viaRuntime = importAsRuntimeCall(node, loc, functional);
    if (failed(viaRuntime) || !*viaRuntime)
      return failure();
  }
  for (int v = *self; v >= 0; v = vars[v].base)
    if (vars[v].base >= 0 && !vars[v].scatter)
      return ((void)fail(loc, "in-place '" + opName +
                                  "' writes through a view kiln cannot write back into its base "
                                  "(expand, unfold or as_strided)"),
              failure());
  auto freshIt = varOf.find(outs[0]);
  if (freshIt == varOf.end())
    return ((void)fail(loc, "in-place '" + opName + "' binds no result"), failure());
  unsigned fresh = freshIt->second;
  // An in-place view (unsqueeze_, transpose_, ...) only renames: its result
  // already is a view of self.
  if (vars[fresh].base >= 0)
    return true;
  Value v = readVar(fresh);
  auto vTy = cast<RankedTensorType>(v.getType()), sTy = cast<RankedTensorType>(selfType);
  if (vTy.getElementType() != sTy.getElementType())
    return ((void)fail(loc, "in-place '" + opName + "' computes " +
                                llvm::formatv("{0}", vTy.getElementType()).str() +
                                " but writes into a tensor of " +
                                llvm::formatv("{0}", sTy.getElementType()).str()),
            failure());
  if (failed(verifyCompatibleShape(vTy.getShape(), sTy.getShape())))
    return ((void)fail(loc, "in-place '" + opName + "' computes a result of shape " +
                                llvm::formatv("{0}", vTy).str() +
                                " that does not fit the tensor it writes into, " +
                                llvm::formatv("{0}", sTy).str()),
            failure());
  if (vTy != sTy)
    v = tensor::CastOp::create(b, loc, sTy, v);
  writeVar(*self, v);
  varOf[outs[0]] = *self;
  return true;
}

FailureOr<SmallVector<unsigned>> GraphImporter::inlineGraph(const Object &graph,
                                                            ArrayRef<SubgraphArg> args,
                                                            Location loc) {
  const Array *inputs = graph.getArray("inputs");
  const Array *outputs = graph.getArray("outputs");
  if (!inputs || !outputs || inputs->size() != args.size())
    return ((void)fail(loc, "subgraph inputs do not match the arguments of its call"), failure());
  // The subgraph has its own names: swap in a scope holding only its inputs.
  llvm::StringMap<unsigned> outerVars = std::move(varOf);
  llvm::StringMap<Value> outerValues = std::move(values);
  const Object *outerTensorValues = tensorValues;
  varOf.clear();
  values.clear();
  tensorValues = graph.getObject("tensor_values");
  auto restore = llvm::make_scope_exit([&] {
    varOf = std::move(outerVars);
    values = std::move(outerValues);
    tensorValues = outerTensorValues;
  });
  for (auto [in, arg] : llvm::zip(*inputs, args)) {
    const Object *o = in.getAsObject();
    const Object *t = o ? o->getObject("as_tensor") : nullptr;
    const Object *s = o ? o->getObject("as_sym_int") : nullptr;
    std::optional<StringRef> symName = s ? s->getString("as_name") : std::nullopt;
    if (t && !arg.sym)
      varOf[t->getString("name").value_or("")] = arg.var;
    else if (symName && arg.sym)
      values[*symName] = arg.sym;
    else
      return ((void)fail(loc, "subgraph input of a non-tensor, non-symbolic-int kind (or one that does not "
                              "match its call's argument) is not supported"),
              failure());
  }
  bool ok = true;
  if (const Array *nodes = graph.getArray("nodes"))
    for (const json::Value &v : *nodes)
      if (const Object *n = v.getAsObject())
        importNode(*n, ok);
  if (!ok)
    return failure();
  SmallVector<unsigned> results;
  for (const json::Value &out : *outputs) {
    const Object *o = out.getAsObject();
    const Object *t = o ? o->getObject("as_tensor") : nullptr;
    auto it = t ? varOf.find(t->getString("name").value_or("")) : varOf.end();
    if (it == varOf.end())
      return ((void)fail(loc, "subgraph output is not a tensor it computes"), failure());
    results.push_back(it->second);
  }
  return results;
}

void registerMutationHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;

  // Ops whose result is their input itself (an alias of the same storage).
  auto alias = [&g](const Object &n, Location loc, StringRef arg) -> LogicalResult {
    KILN_TRY(var, g.varOfArg(n, arg, loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    if (outs.size() != 1)
      return g.fail(loc, "expected one tensor result");
    g.varOf[outs[0]] = *var;
    return success();
  };
  for (const char *t : {"torch.ops.aten.alias.default", "torch.ops.aten.detach_.default"})
    h[t] = [alias](const Object &n, Location loc) { return alias(n, loc, "self"); };
  // detach: a view of its input (a write through it changes the input)
  // through which no gradient flows (kiln-compile --grad); detach_copy is a
  // new tensor. autograd-differentiate removes the markers before lowering.
  h["torch.ops.aten.detach.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(var, g.varOfArg(n, "self", loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    if (outs.size() != 1)
      return g.fail(loc, "expected one tensor result");
    g.bindView(
        outs[0], *var,
        [&g, loc](Value base) -> Value { return autograd::StopGradientOp::create(g.b, loc, base); },
        [](Value, Value view) { return view; });
    return success();
  };
  h["torch.ops.aten.detach_copy.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    if (outs.size() != 1)
      return g.fail(loc, "expected one tensor result");
    g.varOf[outs[0]] = g.newVar(autograd::StopGradientOp::create(g.b, loc, *x));
    return success();
  };
  // Ops whose result is a new tensor equal to the input (no aliasing).
  auto copyOf = [&g](const Object &n, Location loc, StringRef arg) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, arg, loc));
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.empty() || outs[0].empty())
      return g.fail(loc, "the node names no tensor output");
    if (outs.size() != 1)
      return g.fail(loc, "expected one tensor result");
    g.varOf[outs[0]] = g.newVar(*x);
    return success();
  };
  for (const char *t : {"torch.ops.aten.clone.default", "torch.ops.aten.lift_fresh_copy.default",
                        "torch.ops.aten.alias_copy.default",
                        "torch.ops.aten.lift_fresh.default"})
    h[t] = [copyOf](const Object &n, Location loc) { return copyOf(n, loc, "self"); };

  // Feature and alpha dropout in inference return their input; in training
  // they have no compiled form (plain dropout: Ops/Random.cpp).
  auto dropout = [&g, alias](const Object &n, Location loc, StringRef name) -> LogicalResult {
    KILN_TRY(train, g.boolArg(n, "train", std::nullopt, loc));
    if (*train)
      return g.fail(loc, "aten." + name + " with train=True is not supported: kiln compiles "
                         "dropout, native_dropout and bernoulli in training mode");
    return alias(n, loc, name.ends_with("_") ? "self" : "input");
  };
  for (const char *name : {"feature_dropout", "alpha_dropout",
                           "feature_alpha_dropout"}) {
    std::string nm = name;
    h["torch.ops.aten." + nm + ".default"] = [dropout, nm](const Object &n, Location loc) {
      return dropout(n, loc, nm);
    };
    // The in-place forms return `self`, also in eval.
    h["torch.ops.aten." + nm + "_.default"] = [dropout, nm](const Object &n, Location loc) {
      return dropout(n, loc, nm + "_");
    };
  }
  // Checks export records for its own tracing; the runtime checks inputs
  // against the symbols' ranges before a run.
  // (_assert_tensor_metadata is checked against the value's type in Elementwise.cpp.)
  for (const char *t : {"torch.ops.aten._assert_scalar.default",
                        "torch.ops.aten._assert_async.msg", "torch.ops.aten._assert_async.default",
                        "torch.ops.aten.sym_constrain_range.default",
                        "torch.ops.aten.sym_constrain_range_for_size.default",
                        "torch.ops.aten._functional_sym_constrain_range.default",
                        "torch.ops.aten._functional_sym_constrain_range_for_size.default",
                        "torch.ops.aten._functional_assert_scalar.default",
                        "torch.ops.aten._functional_assert_async.msg"})
    h[t] = [](const Object &, Location) { return success(); };

  // Higher-order ops that wrap a subgraph: its nodes are imported in place.
  auto inlineHop = [&g](const Object &n, Location loc, size_t graphArg,
                        StringRef what) -> LogicalResult {
    const Array *inputs = n.getArray("inputs");
    if (!inputs || inputs->size() <= graphArg)
      return g.fail(loc, what + " has no subgraph argument");
    const Object *a = (*inputs)[graphArg].getAsObject();
    const Object *arg = a ? a->getObject("arg") : nullptr;
    const Object *gr = arg ? arg->getObject("as_graph") : nullptr;
    const Object *graph = gr ? gr->getObject("graph") : nullptr;
    if (!graph)
      return g.fail(loc, what + " has no subgraph argument");
    // Tensors and symbolic sizes (a dynamic dim read outside the region) are
    // passed in.
    SmallVector<GraphImporter::SubgraphArg> args;
    for (size_t i = graphArg + 1; i < inputs->size(); ++i) {
      const Object *in = (*inputs)[i].getAsObject();
      const Object *ia = in ? in->getObject("arg") : nullptr;
      const Object *t = ia ? ia->getObject("as_tensor") : nullptr;
      if (ia && (ia->get("as_sym_int") || ia->get("as_int"))) {
        FailureOr<Value> v = g.symIntValue(*ia, (what + " argument " + std::to_string(i)).str(), loc);
        if (failed(v))
          return failure();
        args.push_back({0, *v});
        continue;
      }
      auto it = t ? g.varOf.find(t->getString("name").value_or("")) : g.varOf.end();
      if (it == g.varOf.end())
        return g.fail(loc, what + ": argument " + std::to_string(i) +
                               " is neither a tensor nor a symbolic int (only those are supported)");
      args.push_back({it->second, Value()});
    }
    auto results = g.inlineGraph(*graph, args, loc);
    if (failed(results))
      return failure();
    SmallVector<std::string> outs = g.outputNames(n);
    if (outs.size() != results->size())
      return g.fail(loc, what + ": the subgraph returns " + std::to_string(results->size()) +
                             " tensors, the call binds " + std::to_string(outs.size()));
    for (auto [name, var] : llvm::zip(outs, *results))
      if (!name.empty())
        g.varOf[name] = var;
    return success();
  };
  // wrap_with_set_grad_enabled(enabled, graph, *args): grad mode does not
  // change values; the results of a no_grad region carry no gradient.
  h["torch.ops.higher_order.wrap_with_set_grad_enabled"] = [&g, inlineHop](const Object &n,
                                                                           Location loc) -> LogicalResult {
    if (failed(inlineHop(n, loc, 1, "wrap_with_set_grad_enabled")))
      return failure();
    const Array *inputs = n.getArray("inputs");
    const Object *a = inputs && !inputs->empty() ? (*inputs)[0].getAsObject() : nullptr;
    const Object *arg = a ? a->getObject("arg") : nullptr;
    std::optional<bool> enabled = arg ? arg->getBoolean("as_bool") : std::nullopt;
    if (enabled.value_or(true))
      return success();
    for (const std::string &name : g.outputNames(n)) {
      auto it = name.empty() ? g.varOf.end() : g.varOf.find(name);
      if (it == g.varOf.end())
        continue;
      Value v = g.readVar(it->second);
      if (isa<RankedTensorType>(v.getType()))
        it->second = g.newVar(autograd::StopGradientOp::create(g.b, loc, v));
    }
    return success();
  };
  // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, *args):
  // only a disabled region is value-preserving as recorded.
  h["torch.ops.higher_order.wrap_with_autocast"] = [&g, inlineHop](const Object &n,
                                                                   Location loc) -> LogicalResult {
    const Array *inputs = n.getArray("inputs");
    const Object *a = inputs && inputs->size() > 2 ? (*inputs)[2].getAsObject() : nullptr;
    const Object *arg = a ? a->getObject("arg") : nullptr;
    std::optional<bool> enabled = arg ? arg->getBoolean("as_bool") : std::nullopt;
    if (!enabled || *enabled)
      return g.fail(loc, "an enabled autocast region (torch.autocast) is not supported; export "
                         "it with ep.run_decompositions() so its casts are explicit ops");
    return inlineHop(n, loc, 4, "wrap_with_autocast");
  };
}

} // namespace kiln::importer
