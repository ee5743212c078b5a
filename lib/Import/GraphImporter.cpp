//===- GraphImporter.cpp - torch.export graphs to the aten dialect --------===//
//
// Walks graph_module.graph of models/model.json: inputs become arguments of
// @forward (typed from tensor_values, symbolic sizes dynamic), each node
// becomes one aten op located at its Python source line, outputs become the
// return. Op handlers read arguments by schema name and fill ATen's defaults.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"
#include "JsonItems.h"
#include "ATen/IR/AttrNames.h"

#include "Autograd/IR/AutogradDialect.h"
#include "kiln/Import/RuntimeOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <limits>

using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;
namespace json = llvm::json;

namespace kiln::importer {


/// torch serde ScalarType codes -> element types.
Type elementTypeFor(MLIRContext *ctx, int64_t code) {
  Builder b(ctx);
  switch (code) {
  case 1: return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 2: return b.getIntegerType(8);
  case 3: return b.getIntegerType(16);
  case 4: return b.getIntegerType(32);
  case 5: return b.getIntegerType(64);
  case 6: return b.getF16Type();
  case 7: return b.getF32Type();
  case 8: return b.getF64Type();
  case 12: return b.getI1Type();
  case 13: return b.getBF16Type();
  default: return {};
  }
}

/// "Symbol('s77', positive=True, integer=True)" -> "s77"; plain names pass.
std::string symbolName(StringRef expr) {
  static llvm::Regex re("^Symbol\\('([A-Za-z_][A-Za-z0-9_]*)'");
  SmallVector<StringRef> m;
  if (re.match(expr, &m))
    return m[1].str();
  if (!expr.empty() && llvm::all_of(expr, [](char c) { return isalnum(c) || c == '_'; }))
    return expr.str();
  return "";
}

/// "file:line" of a node location, or "".
std::string locationString(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    loc = n.getChildLoc();
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return (f.getFilename().str() + ":" + std::to_string(f.getLine()));
  return "";
}


/// Ops/Sequence.cpp: diff, adaptive_avg_pool1d, lstm/gru/rnn_tanh/rnn_relu.input and their cells.
void registerSequenceHandlers(GraphImporter &g);
/// Ops/Random.cpp: rand, randn, randint, bernoulli, dropout in training.
void registerRandomHandlers(GraphImporter &g);
/// Ops/Pads.cpp: constant (static or symbolic amounts), reflection, replication and circular pads.
void registerPadHandlers(GraphImporter &g);

void GraphImporter::registerHandlers() {
  registerElementwiseHandlers(*this);
  registerCreationHandlers(*this);
  registerLinearHandlers(*this);
  registerConvolutionHandlers(*this);
  registerNormalizationHandlers(*this);
  registerPoolingHandlers(*this);
  registerResamplingHandlers(*this);
  registerReductionHandlers(*this);
  registerAttentionHandlers(*this);
  registerShapeHandlers(*this);
  registerSplitJoinHandlers(*this);
  registerSymIntHandlers(*this);
  registerMutationHandlers(*this);
  registerIndexingHandlers(*this);
  registerPadHandlers(*this);
  registerSequenceHandlers(*this);
  registerRandomHandlers(*this);
}

/// torch.ops.<ns>.<name>.<overload> -> <ns>::<name>.<overload> ("" if not an op target).
static std::string qualifiedOpName(StringRef target) {
  if (!target.consume_front("torch.ops."))
    return "";
  auto [ns, nameOverload] = target.split('.');
  return (ns + "::" + nameOverload).str();
}

bool GraphImporter::isRuntimeOp(StringRef target) {
  std::string q = qualifiedOpName(target);
  return !q.empty() && lookupRuntimeOp(q).has_value();
}

FailureOr<bool> GraphImporter::importAsRuntimeCall(const Object &node, Location loc,
                                                  StringRef target) {
  std::string qualified = qualifiedOpName(target);
  if (qualified.empty())
    return false;
  std::optional<RuntimeOpInfo> info = lookupRuntimeOp(qualified);
  if (!info)
    return false;
  if (!info->allReturnsTensors)
    return ((void)fail(loc, "runtime op '" + qualified + "' returns non-tensors"), failure());
  SmallVector<Value> operands;
  SmallVector<Attribute> args;
  bool tensorLists = false;
  for (const RuntimeArgInfo &a : info->arguments) {
    const Object *arg = argOf(node, a.name);
    if (!arg || arg->get("as_none")) {
      if (!arg && !a.defaultValue)
        return ((void)fail(loc, "call of '" + qualified + "' has no argument '" + a.name + "'"),
                failure());
      RuntimeDefault d = arg ? RuntimeDefault() : *a.defaultValue;
      switch (d.kind) {
      case RuntimeDefault::None: args.push_back(b.getUnitAttr()); break;
      case RuntimeDefault::Int: args.push_back(b.getI64IntegerAttr(d.i)); break;
      case RuntimeDefault::Bool: args.push_back(b.getBoolAttr(d.i)); break;
      case RuntimeDefault::Float: args.push_back(b.getF64FloatAttr(d.f)); break;
      case RuntimeDefault::IntList: args.push_back(b.getDenseI64ArrayAttr(d.ints)); break;
      case RuntimeDefault::FloatList: args.push_back(b.getDenseF64ArrayAttr(d.floats)); break;
      case RuntimeDefault::String: args.push_back(b.getStringAttr(d.s)); break;
      }
      continue;
    }
    if (a.isTensor) {
      auto t = tensorArg(node, a.name, loc);
      if (failed(t))
        return failure();
      operands.push_back(*t);
      args.push_back(TypeAttr::get(t->getType()));
    } else if (auto v = arg->getInteger("as_int")) {
      args.push_back(b.getI64IntegerAttr(*v));
    } else if (auto v = arg->getNumber("as_float")) {
      args.push_back(b.getF64FloatAttr(*v));
    } else if (auto v = arg->getBoolean("as_bool")) {
      args.push_back(b.getBoolAttr(*v));
    } else if (auto v = arg->getString("as_string")) {
      args.push_back(b.getStringAttr(*v));
    } else if (arg->getArray("as_ints")) {
      auto v = intsArg(node, a.name, std::nullopt, loc);
      if (failed(v))
        return failure();
      args.push_back(b.getDenseI64ArrayAttr(*v));
    } else if (const Array *fs = arg->getArray("as_floats")) {
      SmallVector<double> v;
      for (const json::Value &x : *fs)
        v.push_back(x.getAsNumber().value_or(0));
      args.push_back(b.getDenseF64ArrayAttr(v));
    } else if (arg->getArray("as_tensors")) { // Tensor[]: one operand per element
      auto ts = tensorListArg(*this, node, a.name, loc);
      if (failed(ts))
        return failure();
      SmallVector<Attribute> types;
      for (Value t : *ts) {
        operands.push_back(t);
        types.push_back(TypeAttr::get(t.getType()));
      }
      args.push_back(b.getArrayAttr(types));
      tensorLists = true;
    } else {
      return ((void)fail(loc, "argument '" + a.name + "' of '" + qualified +
                                  "' has a kind kiln cannot pass to the runtime yet"),
              failure());
    }
  }
  auto types = resultTypes(node, loc);
  if (failed(types))
    return failure();
  auto op = aten::CallRuntimeOp::create(b, loc, *types, operands,
                                        b.getStringAttr(info->qualifiedName),
                                        b.getArrayAttr(args));
  // What the autograd rules need to know, so they never ask the runtime
  // (neither the backward nor the batched call takes tensor lists yet).
  if (std::string bw = runtimeBackwardCallee(*info); !bw.empty() && !tensorLists)
    op->setAttr(attrs::kRuntimeBackward, b.getStringAttr(bw));
  if (std::string vm = runtimeVmapCallee(*info); !vm.empty() && !tensorLists)
    op->setAttr(attrs::kRuntimeVmap, b.getStringAttr(vm));
  if (failed(bindResults(node, op)))
    return failure();
  return true;
}

/// The strided layout a weight's tensor_meta gives (dtype, sizes, strides,
/// storage_offset), or none where it gives no static one (then the member's
/// bytes are taken as the tensor's); none with `why` set where it gives one
/// that no tensor has.
static std::optional<StridedLayout> storageLayout(const Object *meta, std::string &why) {
  if (!meta)
    return std::nullopt;
  // torch serde ScalarType codes -> bytes per element (complex: both parts).
  static const std::map<int64_t, uint64_t> elemBytes = {{1, 1}, {2, 1},  {3, 2},   {4, 4},  {5, 8},
                                                        {6, 2}, {7, 4},  {8, 8},   {9, 4},  {10, 8},
                                                        {11, 16}, {12, 1}, {13, 2}};
  auto code = meta->getInteger("dtype");
  auto eb = code ? elemBytes.find(*code) : elemBytes.end();
  if (eb == elemBytes.end())
    return std::nullopt;
  StridedLayout l;
  l.elemBytes = eb->second;
  auto ints = [&](StringRef key, std::vector<int64_t> &out) {
    const Array *a = meta->getArray(key);
    if (!a)
      return false;
    for (const json::Value &v : *a) {
      const Object *o = v.getAsObject();
      std::optional<int64_t> i = o ? o->getInteger("as_int") : std::nullopt;
      if (!i || *i < 0)
        return false;
      out.push_back(*i);
    }
    return true;
  };
  if (!ints("sizes", l.sizes))
    return std::nullopt;
  if (!meta->get("strides")) {
    l.strides.assign(l.sizes.size(), 0);
    int64_t s = 1;
    for (size_t d = l.sizes.size(); d-- > 0;) {
      l.strides[d] = s;
      if (__builtin_mul_overflow(s, l.sizes[d], &s)) {
        why = "its sizes' product overflows 64 bits";
        return std::nullopt;
      }
    }
  } else if (!ints("strides", l.strides) || l.strides.size() != l.sizes.size()) {
    return std::nullopt;
  }
  if (const Object *so = meta->getObject("storage_offset"))
    l.storageOffset = so->getInteger("as_int").value_or(0);
  if (!l.measure()) {
    why = "its view (storage offset " + std::to_string(l.storageOffset) +
          ") starts before its storage or counts past 64 bits";
    return std::nullopt;
  }
  return l;
}

LogicalResult GraphImporter::readWeights(StringRef configMember, StringRef dataDir, WeightMap &out) {
  if (!archive.hasMember(configMember))
    return success();
  auto cfg = archive.readJSON(configMember);
  if (!cfg)
    return fail(llvm::toString(cfg.takeError()));
  const Object *root = cfg->getAsObject();
  const Object *entries = root ? root->getObject("config") : nullptr;
  if (!entries)
    return fail("'" + configMember + "' in '" + archive.path() + "' has no \"config\" object");
  // The bytes are read when written out, through one archive handle of the
  // readers' own (this importer's is gone by then), opened on the first read.
  auto shared = std::make_shared<std::unique_ptr<Pt2Archive>>();
  std::string path = archive.path();
  for (const auto &kv : *entries) {
    const Object *e = kv.second.getAsObject();
    std::optional<StringRef> pathName = e ? e->getString("path_name") : std::nullopt;
    if (!pathName)
      return fail("weight '" + kv.first.str() + "' has no path_name in " + configMember);
    if (e->getBoolean("use_pickle").value_or(false))
      return fail("weight '" + kv.first.str() +
                  "' is stored pickled; kiln never unpickles archive data");
    std::string member = (dataDir + *pathName).str();
    auto size = archive.size(member);
    if (!size)
      return fail(llvm::toString(size.takeError()));
    WeightData::Reader read = [shared, path, member](std::vector<char> &bytes, std::string &error) {
      if (!*shared) {
        auto opened = Pt2Archive::open(path);
        if (!opened) {
          error = llvm::toString(opened.takeError());
          return false;
        }
        *shared = std::move(*opened);
      }
      if (llvm::Error e = (*shared)->readInto(member, bytes)) {
        error = llvm::toString(std::move(e));
        return false;
      }
      return true;
    };
    // The member is the tensor's storage: a channels-last or transposed
    // parameter, or a view at an offset into a larger tensor, is gathered
    // into row-major order (kiln's values are row-major) when it is read.
    std::string why;
    std::optional<StridedLayout> layout = storageLayout(e->getObject("tensor_meta"), why);
    if (!why.empty())
      return fail("weight '" + kv.first.str() + "' in " + configMember + ": " + why);
    uint64_t bytes = *size;
    // (A row-major weight is taken as it is, and a member too short for its
    // view is left to the size check against the weight's type, which says
    // what it needs.)
    if (layout && !layout->isRowMajor() && layout->extentBytes <= *size) {
      bytes = layout->numel * layout->elemBytes;
      read = [read, l = *layout](std::vector<char> &out, std::string &error) {
        std::vector<char> storage;
        return read(storage, error) && gatherStrided(storage, l, out, error);
      };
    }
    out[kv.first.str()] = WeightData(bytes, std::move(read));
    const json::Value *meta = e->get("tensor_meta");
    weightStorage.emplace(kv.first.str(),
                          std::make_pair((dataDir + *pathName).str(), meta ? *meta : json::Value(nullptr)));
  }
  return success();
}

void GraphImporter::importNode(const Object &node, bool &ok) {
  Location loc = nodeLocation(node);
  if (failed(checkNodeShape(node, loc))) {
    ok = false;
    return;
  }
  StringRef target = node.getString("target").value_or("");
  StringRef opName = target;
  opName.consume_front("torch.ops.");
  NodeDecision decision{node.getString("name").value_or("").str(), opName.str(),
                        locationString(loc), NodeDecision::Compiled, ""};
  // Composite ops: the decomposition table shared with the eager runtime
  // comes first, so both run the same decomposition.
  if (hasCompositeRule(target.str()) && importComposite(node, loc, decision, ok))
    return;
  auto it = handlers.find(target);
  if (it != handlers.end()) {
    decision.why = "lowered by kiln";
    // Explaining (or going on after an error, to report every unknown op)
    // only classifies nodes: no IR, so no errors from missing operands.
    if (!explainOnly && ok && failed(it->second(node, loc)))
      ok = false;
    decisions.push_back(decision);
    return;
  }
  // `<view>_copy` ops (view_copy, permute_copy, split_copy, ...): the view,
  // as a tensor of its own.
  std::string view = viewTarget(target);
  if (!view.empty() && handlers.count(view)) {
    decision.why = "lowered by kiln (a copy of its view)";
    if (!explainOnly && ok) {
      if (failed(handlers[view](node, loc))) {
        ok = false;
      } else {
        for (const std::string &name : outputNames(node)) {
          auto it = name.empty() ? varOf.end() : varOf.find(name);
          if (it != varOf.end())
            it->second = newVar(readVar(it->second));
        }
      }
    }
    decisions.push_back(decision);
    return;
  }
  std::string functional = functionalOf(target);
  if (!functional.empty() && (handlers.count(functional) || isRuntimeOp(functional))) {
    decision.kind = handlers.count(functional) ? NodeDecision::Compiled : NodeDecision::Runtime;
    decision.why = "in place: its out-of-place form, written back into 'self'";
    if (!explainOnly && ok && failed(importInPlace(node, loc, target)))
      ok = false;
    decisions.push_back(decision);
    return;
  }
  FailureOr<bool> viaRuntime = explainOnly || !ok ? FailureOr<bool>(isRuntimeOp(target))
                                                  : importAsRuntimeCall(node, loc, target);
  if (succeeded(viaRuntime) && *viaRuntime) {
    decision.kind = NodeDecision::Runtime;
    decision.why = "no kiln lowering; runs the runtime dispatcher's kernel";
  } else if (failed(viaRuntime)) {
    ok = false;
  } else {
    decision.kind = NodeDecision::Unsupported;
    decision.why = "neither kiln nor a loaded plugin defines this op";
    if (!explainOnly) {
      bool isAten = opName.starts_with("aten.");
      emitError(loc) << "unsupported operator '" << opName << "' (node '" << decision.node
                     << "')" << nodeDtypes(node)
                     << ": kiln has no conversion or decomposition for it"
                     << " and no loaded plugin defines it; "
                     << (isAten ? "what works today: export in Core ATen IR "
                                  "(ep.run_decompositions()) where PyTorch decomposes it, or "
                                  "define it in a plugin (--plugin LIB.so, docs/custom-ops.md)"
                                : "load the plugin that defines it (--plugin LIB.so, "
                                  "docs/custom-ops.md)")
                     << "; 'kiln-compile --explain' shows how each node is handled and "
                        "docs/op-coverage.md what kiln supports";
      ok = false;
    }
  }
  decisions.push_back(decision);
}

/// Whether `graph` or a subgraph of one of its nodes (a higher-order op's
/// body) holds a complex value or an FFT (whose values may all be real: an
/// inverse real FFT of a real tensor).
static bool holdsComplex(const Object &graph) {
  for (const auto &kv : itemsOf(graph.getObject("tensor_values"))) {
    const Object *m = kv.second.getAsObject();
    std::optional<int64_t> code = m ? m->getInteger("dtype") : std::nullopt;
    if (code && *code >= 9 && *code <= 11) // complex32, complex64, complex128
      return true;
  }
  if (const Array *nodes = graph.getArray("nodes"))
    for (const json::Value &n : *nodes) {
      const Object *node = n.getAsObject();
      StringRef target = node ? node->getString("target").value_or("") : "";
      if (target.starts_with("torch.ops.aten.fft_") || target.starts_with("torch.ops.aten._fft_"))
        return true;
      if (const Array *ins = node ? node->getArray("inputs") : nullptr)
        for (const json::Value &in : *ins) {
          const Object *a = in.getAsObject() ? in.getAsObject()->getObject("arg") : nullptr;
          const Object *sg = a ? a->getObject("as_graph") : nullptr;
          const Object *sub = sg ? sg->getObject("graph") : nullptr;
          if (sub && holdsComplex(*sub))
            return true;
        }
    }
  return false;
}

LogicalResult GraphImporter::lowerComplexValues(Object &graph) {
  if (!holdsComplex(graph))
    return success();
  std::string err;
  std::optional<std::string> lowered = lowerComplexGraph(jsonText(graph), err);
  if (!err.empty())
    return fail(err);
  if (!lowered)
    return success();
  auto parsed = json::parse(*lowered);
  if (!parsed || !parsed->getAsObject()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return fail("the complex lowering of models/model.json returned a malformed graph");
  }
  graph = std::move(*parsed->getAsObject());
  return success();
}

FailureOr<ImportedProgram> GraphImporter::run() {
  auto rootOr = archive.readJSON("models/model.json");
  if (!rootOr)
    return ((void)fail(llvm::toString(rootOr.takeError())), failure());
  const Object *root = rootOr->getAsObject();
  if (!root)
    return ((void)fail("models/model.json in '" + archive.path() + "' is not a JSON object"), failure());

  // Schema version gate.
  const Object *ver = root->getObject("schema_version");
  std::optional<int64_t> major = ver ? ver->getInteger("major") : std::nullopt;
  if (!major)
    return ((void)fail("models/model.json has no schema_version"), failure());
  if (*major < kMinSchemaMajor || *major > kMaxSchemaMajor)
    return ((void)fail("unsupported export schema version " + std::to_string(*major) + "." +
                 std::to_string(ver->getInteger("minor").value_or(0)) +
                 " (kiln reads major version " + std::to_string(kMaxSchemaMajor) + ")"),
            failure());

  Object *gm = rootOr->getAsObject()->getObject("graph_module");
  Object *graph = gm ? gm->getObject("graph") : nullptr;
  const Object *sig = gm ? gm->getObject("signature") : nullptr;
  if (!graph || !sig)
    return ((void)fail("models/model.json has no graph_module.graph or signature"), failure());
  // Complex values become real pairs first, by the runtime's rewrite (the
  // eager interpreter runs the same one).
  if (failed(lowerComplexValues(*graph)))
    return failure();
  tensorValues = graph->getObject("tensor_values");

  // Symbolic dims and their ranges.
  if (const Object *rc = root->getObject("range_constraints")) {
    for (const auto &kv : *rc) {
      const Object *r = kv.second.getAsObject();
      std::string sym = symbolName(kv.first);
      if (!r || sym.empty())
        continue;
      int64_t lo = r->getInteger("min_val").value_or(0);
      // Unbounded ranges are written as huge numbers or missing.
      int64_t hi = r->getInteger("max_val").value_or(-1);
      if (r->getNumber("max_val") && !r->getInteger("max_val"))
        hi = -1;
      symbols[sym] = {lo, hi};
    }
  }

  ImportedProgram prog;
  if (failed(readWeights("data/weights/model_weights_config.json", "data/weights/",
                         prog.weights)) ||
      failed(readWeights("data/constants/model_constants_config.json", "data/constants/",
                         prog.weights)))
    return failure();

  prog.module = ModuleOp::create(archiveLoc);
  ModuleOp module = *prog.module;
  b.setInsertionPointToEnd(module.getBody());

  // Signature: one argument per input spec.
  struct Arg {
    std::string kind, valueName, stateName;
  };
  std::vector<Arg> args;
  // Tied parameters (one tensor under several names, as T5's shared
  // embedding): torch.export gives each name a placeholder over the same
  // stored tensor. They become one argument, under the first name, so the
  // program reads one weight and --grad gives it the sum of every use's
  // gradient, as PyTorch's parameter does. placeholder -> the kept one's.
  std::vector<std::pair<std::string, std::string>> tied;
  const Array *inSpecs = sig->getArray("input_specs");
  for (const json::Value &v : itemsOf(inSpecs)) {
    const Object *spec = v.getAsObject();
    if (!spec || spec->empty())
      continue;
    auto [kind, body] = *spec->begin();
    const Object *o = body.getAsObject();
    const Object *arg = o ? o->getObject("arg") : nullptr;
    if (kind == "user_input") {
      const Object *t = arg ? arg->getObject("as_tensor") : nullptr;
      if (!t)
        return ((void)fail("user input of a non-tensor kind is not supported yet"), failure());
      std::string n = t->getString("name").value_or("").str();
      args.push_back({"input", n, n});
    } else if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant") {
      std::string n = arg ? arg->getString("name").value_or("").str() : "";
      StringRef key = kind == "parameter" ? "parameter_name"
                      : kind == "buffer"  ? "buffer_name"
                                          : "tensor_constant_name";
      std::string state = o ? o->getString(key).value_or("").str() : "";
      if (!prog.weights.count(state))
        return ((void)fail("no data for " + kind.str() + " '" + state + "' in the archive"), failure());
      if (kind == "parameter") {
        auto storage = weightStorage.find(state);
        auto same = llvm::find_if(args, [&](const Arg &a) {
          auto other = weightStorage.find(a.stateName);
          return a.kind == "param" && storage != weightStorage.end() &&
                 other != weightStorage.end() && other->second.first == storage->second.first &&
                 other->second.second == storage->second.second;
        });
        if (same != args.end()) {
          tied.push_back({n, same->valueName});
          prog.weights.erase(state);
          continue;
        }
      }
      args.push_back({kind == "parameter" ? "param" : kind == "buffer" ? "buffer" : "constant",
                      n, state});
    } else {
      return ((void)fail("input kind '" + kind.str() + "' in the graph signature is not supported yet"),
              failure());
    }
  }

  SmallVector<Type> argTypes;
  for (const Arg &a : args) {
    auto ty = tensorType(a.valueName, archiveLoc);
    if (failed(ty))
      return failure();
    argTypes.push_back(*ty);
  }

  // Outputs: user outputs, and (Core ATen IR) the new values of buffers,
  // parameters and user inputs the program mutates.
  struct Update {
    std::string kind, stateName, valueName;
    Value value;
  };
  SmallVector<std::string> outNames;
  std::vector<Update> updates;
  const Array *outSpecs = sig->getArray("output_specs");
  for (const json::Value &v : itemsOf(outSpecs)) {
    const Object *spec = v.getAsObject();
    if (!spec || spec->empty())
      continue;
    auto [kind, body] = *spec->begin();
    if (kind == "token")
      continue;
    const Object *o = body.getAsObject();
    const Object *arg = o ? o->getObject("arg") : nullptr;
    // User outputs wrap the tensor (as_tensor); mutation specs name it directly.
    const Object *t = arg ? arg->getObject("as_tensor") : nullptr;
    if (!t && arg && arg->getString("name"))
      t = arg;
    std::string name = t ? t->getString("name").value_or("").str() : "";
    if (kind == "buffer_mutation" || kind == "parameter_mutation" ||
        kind == "user_input_mutation") {
      StringRef key = kind == "buffer_mutation"      ? "buffer_name"
                      : kind == "parameter_mutation" ? "parameter_name"
                                                     : "user_input_name";
      std::string state = o ? o->getString(key).value_or("").str() : "";
      if (!t || state.empty())
        return ((void)fail("output spec '" + kind.str() + "' names no tensor or target"),
                failure());
      updates.push_back({kind == "buffer_mutation"      ? "buffer"
                         : kind == "parameter_mutation" ? "param"
                                                        : "input",
                         state, name, Value()});
      continue;
    }
    if (kind != "user_output" && kind != "loss_output")
      return ((void)fail("output kind '" + kind.str() + "' in the graph signature is not supported yet"),
              failure());
    if (!t)
      return ((void)fail("a non-tensor user output is not supported yet"), failure());
    outNames.push_back(name);
  }
  SmallVector<Type> resTypes;
  for (const std::string &n : outNames) {
    auto ty = tensorType(n, archiveLoc);
    if (failed(ty))
      return failure();
    resTypes.push_back(*ty);
  }

  auto func = func::FuncOp::create(b, archiveLoc, "forward",
                                   b.getFunctionType(argTypes, resTypes));
  Block *entry = func.addEntryBlock();
  SmallVector<unsigned> argVars;
  auto dimsOf = [&](StringRef valueName) {
    SmallVector<Attribute> dims;
    // tensorType() checked this value's metadata already.
    const Object *meta = tensorMeta(valueName);
    const Array *sizes = meta ? meta->getArray("sizes") : nullptr;
    for (const json::Value &s : itemsOf(sizes)) {
      const Object *o = s.getAsObject();
      if (auto iv = o ? o->getInteger("as_int") : std::nullopt) {
        dims.push_back(b.getI64IntegerAttr(*iv));
      } else {
        const Object *e = o ? o->getObject("as_expr") : nullptr;
        std::string sym = e ? symbolName(e->getString("expr_str").value_or("")) : "";
        dims.push_back(b.getStringAttr(sym.empty() ? "?" : sym));
      }
    }
    return b.getArrayAttr(dims);
  };
  for (auto [i, a] : llvm::enumerate(args)) {
    argVars.push_back(newVar(entry->getArgument(i)));
    varOf[a.valueName] = argVars.back();
    for (auto &[alias, kept] : tied)
      if (kept == a.valueName)
        varOf[alias] = argVars.back();
    func.setArgAttr(i, kiln::attrs::kKind, b.getStringAttr(a.kind));
    func.setArgAttr(i, kiln::attrs::kName, b.getStringAttr(a.stateName));
    // Per-dim size or symbol name, for the runtime's input checks.
    func.setArgAttr(i, kiln::attrs::kDims, dimsOf(a.valueName));
    // Inputs and weights are read-only to the generated code.
    func.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
  }
  for (auto [i, n] : llvm::enumerate(outNames)) {
    func.setResultAttr(i, kiln::attrs::kName, b.getStringAttr(n));
    // Sizes and symbols of the output (what a --grad cotangent must match).
    func.setResultAttr(i, kiln::attrs::kDims, dimsOf(n));
  }
  SmallVector<NamedAttribute> symAttrs;
  for (auto &kv : symbols)
    symAttrs.push_back(b.getNamedAttr(
        kv.first(), b.getDenseI64ArrayAttr({kv.second.first, kv.second.second})));
  module->setAttr(kiln::attrs::kSymbols, b.getDictionaryAttr(symAttrs));

  // Nodes.
  registerHandlers();
  b.setInsertionPointToEnd(entry);
  bool ok = true;
  const Array *nodes = graph->getArray("nodes");
  for (const json::Value &v : itemsOf(nodes))
    if (const Object *node = v.getAsObject())
      importNode(*node, ok);
  prog.decisions = std::move(decisions);
  if (explainOnly)
    return prog;
  if (!ok)
    return failure();

  SmallVector<Value> results;
  for (auto [i, n] : llvm::enumerate(outNames)) {
    auto it = varOf.find(n);
    if (it == varOf.end())
      return ((void)fail("graph output '" + n + "' is not produced by any node"), failure());
    results.push_back(readVar(it->second));
    // An output whose metadata a handler corrected takes its corrected type.
    if (expandedTensorValues.getObject(n)) {
      auto ty = tensorType(n, archiveLoc);
      if (failed(ty))
        return failure();
      resTypes[i] = *ty;
      func.setFunctionType(b.getFunctionType(argTypes, resTypes));
      func.setResultAttr(i, kiln::attrs::kDims, dimsOf(n));
    }
  }
  // Core ATen IR names the new state values in its output specs; the default
  // IR writes into inputs and buffers in place, which import recorded as
  // writes to their vars.
  for (Update &u : updates) {
    auto it = varOf.find(u.valueName);
    if (it == varOf.end())
      return ((void)fail("mutated " + u.kind + " '" + u.stateName +
                         "' names no value of the graph"),
              failure());
    u.value = readVar(it->second);
  }
  for (auto [i, a] : llvm::enumerate(args)) {
    if (vars[argVars[i]].version == 0)
      continue;
    bool listed = llvm::any_of(updates, [&](const Update &u) {
      return u.stateName == a.stateName && (u.kind == "input") == (a.kind == "input");
    });
    if (!listed)
      updates.push_back({a.kind, a.stateName, a.valueName, readVar(argVars[i])});
  }
  // Updates follow the user outputs, each marked with what it updates.
  for (Update &u : updates) {
    auto target = llvm::find_if(args, [&](const Arg &a) {
      return a.stateName == u.stateName && (a.kind == "input") == (u.kind == "input");
    });
    if (target == args.end())
      return ((void)fail("mutated " + u.kind + " '" + u.stateName +
                         "' is not an input of the graph"),
              failure());
    Type argTy = argTypes[target - args.begin()];
    if (cast<RankedTensorType>(u.value.getType()).getElementType() !=
        cast<RankedTensorType>(argTy).getElementType())
      return ((void)fail("the new value of " + u.kind + " '" + u.stateName +
                         "' has another dtype than the " + u.kind),
              failure());
    if (u.value.getType() != argTy)
      u.value = tensor::CastOp::create(b, archiveLoc, argTy, u.value);
    unsigned idx = func.getNumResults();
    NamedAttribute attrs[] = {b.getNamedAttr(kiln::attrs::kUpdate, b.getStringAttr(target->kind)),
                              b.getNamedAttr(kiln::attrs::kName, b.getStringAttr(u.stateName))};
    func.insertResult(idx, argTy, b.getDictionaryAttr(attrs));
    results.push_back(u.value);
  }
  func::ReturnOp::create(b, archiveLoc, results);
  return prog;
}

} // namespace kiln::importer

namespace kiln {
using importer::GraphImporter;

FailureOr<ImportedProgram> importPt2(MLIRContext &ctx, StringRef path, bool explainOnly) {
  ctx.loadDialect<aten::ATenDialect, autograd::AutogradDialect, func::FuncDialect, math::MathDialect>();
  auto archive = Pt2Archive::open(path);
  if (!archive) {
    emitError(FileLineColLoc::get(&ctx, path, 0, 0)) << llvm::toString(archive.takeError());
    return failure();
  }
  GraphImporter importer(ctx, **archive, explainOnly);
  return importer.run();
}

} // namespace kiln
