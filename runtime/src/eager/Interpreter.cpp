// kiln runtime — eager interpreter for .pt2 programs: each graph node runs
// through the dispatcher, in order, on the CPU.
#include "kiln/eager.h"
#include "kiln/decompose.h"
#include "kiln/library.h"

#include "../decomp/Complex.h"
#include "../kernels/cpu/Philox.h"
#include "../loader/Pt2Weights.h"
#include "../loader/SerdeChecks.h"
#include "Aliases.h"
#include "ScalarNodes.h"

#include "../loader/Json.h"

#include <atomic>
#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace kiln {
/// The generator seed of a model (loader/Model.cpp): KILN_SEED, else PyTorch's default seed.
int64_t resolveSeed(int64_t seed);
} // namespace kiln

namespace kiln::eager {

using json = nlohmann::json;

namespace {

/// Where an argument's value comes from when the node runs.
struct ArgSource {
  enum Kind { Constant, Ref, RefList, OptRefList, SymIntList } kind = Constant;
  IValue constant;
  std::string ref;                 ///< Ref
  std::vector<std::string> refs;   ///< RefList / OptRefList ("" = None) / SymIntList ("" = constant)
  std::vector<int64_t> ints;       ///< SymIntList constants
  bool sym = false;                ///< Ref: a SymInt/SymFloat node output, not a tensor
  int wrapFloat = 0;               ///< a sym Ref given for a Tensor argument: wrapped as a
                                   ///< 0-dim tensor (floats as 7 = float32 or 8 = float64)
};

struct Node {
  std::string name, target, where;
  enum Kind { Op, GetItem, SymSize, SymNumel, SymStride, SymStorageOffset, Scalar } kind = Op;
  OperatorHandle op;
  std::vector<ArgSource> args;     ///< schema order (Op) or positional
  std::vector<std::string> outputs;///< one per result; "" if unused
  bool outputIsList = false;       ///< a single as_tensors output
  int64_t stream = -1;             ///< a random op: its place among the program's random ops
  bool inplace = false;            ///< an in-place op (name ending in '_') on a named tensor
};

/// Whether node `n` draws random numbers, as the compiler's importer counts them: rand, randn,
/// randint (and their _like forms), bernoulli, and dropout in training with 0 < p < 1 (p and train
/// constants; a computed one counts as drawing).
bool drawsRandom(const Node &n) {
  static const char *const always[] = {"aten::rand", "aten::randn", "aten::rand_like", "aten::randn_like",
                                       "aten::randint", "aten::randint_like", "aten::bernoulli"};
  std::string name = n.op.name();
  name = name.substr(0, name.find('.')); // the op, whatever its overload
  for (const char *a : always)
    if (name == a) return true;
  if (name != "aten::native_dropout" && name != "aten::dropout" && name != "aten::dropout_") return false;
  const FunctionSchema &s = n.op.schema();
  int p = s.argumentIndex("p"), train = s.argumentIndex("train");
  const ArgSource *ps = p >= 0 ? &n.args[p] : nullptr, *ts = train >= 0 ? &n.args[train] : nullptr;
  if (ts && ts->kind == ArgSource::Constant && ts->constant.isBool() && !ts->constant.toBool()) return false;
  if (ps && ps->kind == ArgSource::Constant && (ps->constant.isDouble() || ps->constant.isInt())) {
    double v = ps->constant.isDouble() ? ps->constant.toDouble() : (double)ps->constant.toInt();
    if (v == 0 || v == 1) return false;
  }
  return true;
}

/// "File "x.py", line 83, in forward\n    code" -> the first two lines, trimmed.
std::string whereOf(const json &node) {
  auto md = node.find("metadata");
  if (md == node.end() || !md->is_object() || !md->contains("stack_trace") ||
      !(*md)["stack_trace"].is_string())
    return "";
  std::string st = (*md)["stack_trace"].get<std::string>();
  size_t first = st.find('\n');
  if (first == std::string::npos) return st;
  size_t second = st.find('\n', first + 1);
  std::string code = st.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  size_t b = code.find_first_not_of(' ');
  return st.substr(0, first) + ": " + (b == std::string::npos ? code : code.substr(b));
}

std::string symbolOf(const std::string &expr) {
  size_t b = expr.find("Symbol('");
  if (b == std::string::npos) return "";
  b += 8;
  return expr.substr(b, expr.find('\'', b) - b);
}

/// A serialized float: a number, or the strings torch.export writes for
/// the non-finite values ("Infinity", "-Infinity", "NaN").
double floatOf(const json &v) {
  if (v.is_string()) {
    const std::string &t = v.get_ref<const std::string &>();
    if (t == "Infinity" || t == "inf") return std::numeric_limits<double>::infinity();
    if (t == "-Infinity" || t == "-inf") return -std::numeric_limits<double>::infinity();
    if (t == "NaN" || t == "nan") return std::numeric_limits<double>::quiet_NaN();
    throw Error("kiln: unexpected float value '" + t + "'");
  }
  return v.get<double>();
}

ArgSource parseArg(const json &arg, const std::string &ctx) {
  ArgSource s;
  if (!arg.is_object() || arg.size() != 1) throw Error("kiln: " + ctx + ": malformed argument");
  const std::string &kind = arg.begin().key();
  const json &v = arg.begin().value();
  auto symName = [](const json &x) -> std::pair<std::string, int64_t> {
    if (x.contains("as_name")) return {x.at("as_name").get<std::string>(), 0};
    if (x.contains("as_int")) return {"", x.at("as_int").get<int64_t>()};
    throw Error("kiln: unsupported symbolic int " + x.dump());
  };
  if (kind == "as_none") {
    s.constant = IValue();
  } else if (kind == "as_tensor") {
    s.kind = ArgSource::Ref;
    s.ref = v.at("name").get<std::string>();
  } else if (kind == "as_tensors") {
    s.kind = ArgSource::RefList;
    for (auto &t : v) s.refs.push_back(t.at("name").get<std::string>());
  } else if (kind == "as_optional_tensors") {
    s.kind = ArgSource::OptRefList;
    for (auto &t : v) s.refs.push_back(t.contains("as_tensor") ? t.at("as_tensor").at("name").get<std::string>() : "");
  } else if (kind == "as_int") {
    s.constant = IValue(v.get<int64_t>());
  } else if (kind == "as_float") {
    s.constant = IValue(floatOf(v));
  } else if (kind == "as_bool") {
    s.constant = IValue(v.get<bool>());
  } else if (kind == "as_string") {
    s.constant = IValue(v.get<std::string>());
  } else if (kind == "as_ints") {
    s.constant = IValue(v.get<std::vector<int64_t>>());
  } else if (kind == "as_floats") {
    std::vector<double> fs;
    for (auto &x : v) fs.push_back(floatOf(x));
    s.constant = IValue(fs);
  } else if (kind == "as_bools") {
    s.constant = IValue(v.get<std::vector<bool>>());
  } else if (kind == "as_sym_bool") { // a SymBool: a name a comparison node binds, or a constant
    if (v.contains("as_bool")) s.constant = IValue(v.at("as_bool").get<bool>());
    else { s.kind = ArgSource::Ref; s.ref = v.at("as_name").get<std::string>(); }
  } else if (kind == "as_sym_int" || kind == "as_sym_float") {
    if (kind == "as_sym_float" && v.contains("as_float")) {
      s.constant = IValue(floatOf(v.at("as_float")));
    } else {
      auto [n, c] = symName(v);
      if (n.empty()) s.constant = IValue(c);
      else { s.kind = ArgSource::Ref; s.ref = n; s.sym = true; }
    }
  } else if (kind == "as_sym_ints") {
    s.kind = ArgSource::SymIntList;
    for (auto &x : v) {
      auto [n, c] = symName(x);
      s.refs.push_back(n);
      s.ints.push_back(c);
    }
  } else if (kind == "as_scalar_type") {
    DType dt;
    if (!Pt2Weights::dtypeFromSerde(v.get<int>(), dt))
      throw Error("kiln: " + ctx + ": unsupported scalar type code " + v.dump());
    s.constant = IValue((int64_t)dt);
  } else if (kind == "as_memory_format" || kind == "as_layout") {
    s.constant = IValue(v.get<int64_t>());
  } else if (kind == "as_device") {
    s.constant = IValue(v.value("type", std::string("cpu")));
  } else {
    throw Error("kiln: " + ctx + ": argument kind '" + kind + "' is not supported by the eager interpreter");
  }
  return s;
}

ValueSpec specOf(const std::string &name, const json &tv,
                 const std::map<std::string, std::pair<int64_t, int64_t>> &ranges) {
  ValueSpec s;
  s.name = name;
  const json &meta = tv.at(name);
  if (!Pt2Weights::dtypeFromSerde(meta.at("dtype").get<int>(), s.dtype))
    throw Error("kiln: value '" + name + "' has an unsupported dtype");
  for (auto &d : meta.at("sizes")) {
    if (d.contains("as_int")) {
      int64_t v = d.at("as_int").get<int64_t>();
      if (v < 0) throw Error("kiln: value '" + name + "' has a negative size " + std::to_string(v));
      s.sizes.push_back(v);
      s.minSizes.push_back(v);
      s.maxSizes.push_back(v);
      s.dimLabels.push_back(std::to_string(v));
    } else {
      std::string expr = d.contains("as_expr") ? d.at("as_expr").value("expr_str", "?") : "?";
      std::string sym = symbolOf(expr);
      s.dimLabels.push_back(sym.empty() || expr.find("Symbol(", 8) != std::string::npos ? expr : sym);
      auto it = ranges.find(sym);
      s.sizes.push_back(-1);
      s.minSizes.push_back(it != ranges.end() ? it->second.first : 0);
      s.maxSizes.push_back(it != ranges.end() ? it->second.second : -1);
    }
  }
  return s;
}

} // namespace

struct Program::Impl {
  std::string path;
  /// Params, buffers, constants by graph name; a run writes the buffers the
  /// program mutates (under `stateMutex`, as a compiled model does).
  mutable std::unordered_map<std::string, Tensor> state;
  mutable std::shared_mutex stateMutex;
  /// A graph output that is not the program's: the new value of a buffer
  /// (its graph name) or of user input `userInput`.
  struct Mutation {
    std::string output, buffer;
    int64_t userInput = -1;
  };
  std::vector<Mutation> mutations;
  std::vector<std::pair<std::string, std::string>> params; ///< (graph name, state-dict name)
  std::unordered_map<std::string, IValue> constInputs;
  std::vector<std::string> inputNames, outputNames;
  std::vector<ValueSpec> inputs, outputs;
  std::vector<Node> nodes;
  /// Random ops: how many (each draws from its own stream), the generator's seed (KILN_SEED, else
  /// PyTorch's default seed, as a compiled model's) and the next run's offset.
  int64_t randomOps = 0;
  uint64_t seed = 67280421310721ull;
  mutable std::atomic<uint64_t> nextOffset{0};
};

/// Runs the nodes in order; `overrides` replace state tensors by graph name
/// (the autograd leaves). Grad mode is the caller's.
static std::vector<Tensor> runGraph(const Program::Impl &p, const std::vector<Tensor> &inputs,
                             const std::unordered_map<std::string, Tensor> *overrides);

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
const std::vector<ValueSpec> &Program::inputs() const { return impl_->inputs; }
const std::vector<ValueSpec> &Program::outputs() const { return impl_->outputs; }
std::vector<std::string> Program::opNames() const {
  std::vector<std::string> r;
  for (const Node &n : impl_->nodes) r.push_back(n.kind == Node::Op ? n.op.name() : n.target);
  return r;
}

std::unique_ptr<Program> Program::load(const std::string &path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  Pt2Weights weights(path);
  json j;
  try {
    j = json::parse(weights.readJsonMember(weights.prefix() + "models/model.json"));
  } catch (const json::exception &e) {
    throw Error("kiln: '" + path + "': models/model.json is not valid JSON: " + e.what());
  }
  checkSerdeIntegers(j, "'" + path + "': models/model.json");
  try {
    // Complex values become real pairs first (decomp/Complex.cpp), as the compiler's importer does.
    decomp::lowerComplexGraph(j.at("graph_module").at("graph"));
    const json &gm = j.at("graph_module");
    const json &g = gm.at("graph");
    const json &tv = g.at("tensor_values");
    std::map<std::string, std::pair<int64_t, int64_t>> ranges;
    if (j.contains("range_constraints"))
      for (auto it = j["range_constraints"].begin(); it != j["range_constraints"].end(); ++it) {
        const json &r = it.value();
        int64_t lo = r.contains("min_val") && r.at("min_val").is_number_integer() ? r.at("min_val").get<int64_t>() : 0;
        // Unbounded ranges are written as huge numbers (or floats): no upper bound.
        int64_t hi = r.contains("max_val") && r.at("max_val").is_number_integer() &&
                             !(r.at("max_val").is_number_unsigned() &&
                               r.at("max_val").get<uint64_t>() > ((uint64_t)1 << 62))
                         ? r.at("max_val").get<int64_t>()
                         : -1;
        if (hi > ((int64_t)1 << 62)) hi = -1;
        ranges[it.key()] = {lo, hi};
      }
    // Inputs: parameters, buffers, constants (read now), then user inputs.
    std::unordered_map<std::string, std::string> bufferArg; // buffer name -> graph input name
    for (const json &spec : gm.at("signature").at("input_specs")) {
      if (!spec.is_object() || spec.size() != 1)
        throw Error("kiln: '" + path + "': an input spec is not an object with one kind");
      const std::string &kind = spec.begin().key();
      const json &v = spec.begin().value();
      auto readState = [&](const std::string &graphName, const std::string &stateName) {
        if (weights.contains(stateName)) impl->state[graphName] = weights.read(stateName);
      };
      if (kind == "parameter") {
        readState(v.at("arg").at("name"), v.at("parameter_name"));
        impl->params.emplace_back(v.at("arg").at("name"), v.at("parameter_name"));
      }
      else if (kind == "buffer") {
        readState(v.at("arg").at("name"), v.at("buffer_name"));
        bufferArg[v.at("buffer_name").get<std::string>()] = v.at("arg").at("name").get<std::string>();
      }
      else if (kind == "tensor_constant") readState(v.at("arg").at("name"), v.at("tensor_constant_name"));
      else if (kind == "user_input") {
        const json &arg = v.at("arg");
        if (!arg.contains("as_tensor")) throw Error("kiln: '" + path + "': only tensor user inputs are supported");
        std::string n = arg.at("as_tensor").at("name");
        impl->inputNames.push_back(n);
        impl->inputs.push_back(specOf(n, tv, ranges));
      } else if (kind == "constant_input") {
        ArgSource c = parseArg(v.at("value"), "constant input");
        impl->constInputs[v.at("name").get<std::string>()] = c.constant;
      } else {
        throw Error("kiln: '" + path + "': graph input kind '" + kind + "' is not supported");
      }
    }
    // Outputs: the program's own, then (as the signature's output specs say)
    // new values of buffers and user inputs, which a run writes back.
    const json &sig = gm.at("signature");
    const json *outSpecs = sig.contains("output_specs") ? &sig.at("output_specs") : nullptr;
    const json &graphOuts = g.at("outputs");
    for (size_t i = 0; i < graphOuts.size(); ++i) {
      const json &o = graphOuts[i];
      if (!o.contains("as_tensor")) throw Error("kiln: '" + path + "': only tensor outputs are supported");
      std::string n = o.at("as_tensor").at("name");
      std::string kind = "user_output";
      const json *spec = nullptr;
      if (outSpecs && i < outSpecs->size() && (*outSpecs)[i].is_object() && (*outSpecs)[i].size() == 1) {
        kind = (*outSpecs)[i].begin().key();
        spec = &(*outSpecs)[i].begin().value();
      }
      if (kind == "user_output") {
        impl->outputNames.push_back(n);
        impl->outputs.push_back(specOf(n, tv, ranges));
      } else if (kind == "buffer_mutation") {
        std::string buffer = spec->at("buffer_name");
        auto it = bufferArg.find(buffer);
        if (it == bufferArg.end())
          throw Error("kiln: '" + path + "': output '" + n + "' mutates buffer '" + buffer + "', which is not an input");
        impl->mutations.push_back({n, it->second, -1});
      } else if (kind == "user_input_mutation") {
        std::string input = spec->at("user_input_name");
        auto it = std::find(impl->inputNames.begin(), impl->inputNames.end(), input);
        if (it == impl->inputNames.end())
          throw Error("kiln: '" + path + "': output '" + n + "' mutates input '" + input + "', which is not an input");
        impl->mutations.push_back({n, "", (int64_t)(it - impl->inputNames.begin())});
      } else {
        throw Error("kiln: '" + path + "': graph output kind '" + kind + "' is not supported by the eager interpreter");
      }
    }
    // Composite ops run as the nodes the decomposition table (kiln/decompose.h)
    // expands them into: the same table the compiler's importer reads.
    json expandedTv = json::object();
    auto metaOf = [&](const std::string &name) -> std::string {
      if (tv.contains(name)) return tv[name].dump();
      if (expandedTv.contains(name)) return expandedTv[name].dump();
      return "";
    };
    std::function<void(const json &)> addNode;
    // wrap_with_set_grad_enabled(enabled, subgraph, *operands) runs its subgraph's
    // nodes inline: grad mode changes what autograd records, never the values. So does
    // a disabled wrap_with_autocast(device, dtype, enabled, cache, subgraph, *operands).
    auto inlineSubgraph = [&](const json &jn, size_t graphArg) {
      const json &ins = jn.at("inputs");
      if (ins.size() <= graphArg || !ins[graphArg].at("arg").contains("as_graph"))
        throw Error("kiln: '" + path + "': " + jn.value("target", std::string()) + " without a subgraph");
      const json &sg = ins[graphArg].at("arg").at("as_graph");
      const json &sub = sg.at("graph");
      std::string prefix = sg.value("name", std::string("submod")) + "/" + std::to_string(impl->nodes.size()) + "/";
      std::unordered_map<std::string, std::string> rename;
      auto refName = [&](const json &a) -> std::string {
        if (a.contains("as_tensor")) return a.at("as_tensor").at("name");
        if (a.contains("as_sym_int") && a.at("as_sym_int").contains("as_name")) return a.at("as_sym_int").at("as_name");
        throw Error("kiln: '" + path + "': a subgraph operand that is not a tensor or symbolic int: " +
                    a.dump().substr(0, 80));
      };
      const json &sin = sub.at("inputs"), &sout = sub.at("outputs"), &nout = jn.at("outputs");
      if (sin.size() != ins.size() - graphArg - 1 || sout.size() != nout.size())
        throw Error("kiln: '" + path + "': subgraph '" + sg.value("name", std::string()) +
                    "' does not match its operands or results");
      for (size_t i = 0; i < sin.size(); ++i) rename[refName(sin[i])] = refName(ins[i + graphArg + 1].at("arg"));
      for (size_t i = 0; i < sout.size(); ++i) rename[refName(sout[i])] = refName(nout[i]);
      auto mapName = [&](const std::string &n) {
        auto it = rename.find(n);
        return it != rename.end() ? it->second : prefix + n;
      };
      std::function<void(json &)> ren = [&](json &j) {
        if (j.is_array()) {
          for (json &x : j) ren(x);
          return;
        }
        if (!j.is_object()) return;
        for (auto it = j.begin(); it != j.end(); ++it) {
          if (it.key() == "as_tensor" && it->is_object() && it->contains("name"))
            (*it)["name"] = mapName((*it)["name"].get<std::string>());
          else if (it.key() == "as_name" && it->is_string()) *it = mapName(it->get<std::string>());
          else if (it.key() == "as_tensors" && it->is_array()) {
            for (json &t : *it)
              if (t.is_object() && t.contains("name")) t["name"] = mapName(t["name"].get<std::string>());
              else ren(t);
          } else ren(*it);
        }
      };
      if (sub.contains("tensor_values"))
        for (auto &[k, v] : sub.at("tensor_values").items()) expandedTv[mapName(k)] = v;
      for (const json &sn : sub.at("nodes")) {
        json c = sn;
        ren(c);
        addNode(c);
      }
    };
    addNode = [&](const json &jn) {
      std::string target = jn.value("target", std::string());
      if (target == "torch.ops.higher_order.wrap_with_set_grad_enabled") {
        inlineSubgraph(jn, 1);
        return;
      }
      if (target == "torch.ops.higher_order.wrap_with_autocast") {
        const json &ins = jn.at("inputs");
        const json *enabled = ins.size() > 2 ? &ins[2].at("arg") : nullptr;
        if (!enabled || !enabled->contains("as_bool") || enabled->at("as_bool").get<bool>())
          throw Error("kiln: '" + path + "': node '" + jn.value("name", target) +
                      "': an enabled autocast region (torch.autocast) is not supported; export it with "
                      "ep.run_decompositions() so its casts are explicit ops");
        inlineSubgraph(jn, 4);
        return;
      }
      if (decomp::hasRule(target)) {
        if (auto e = decomp::expand(jn.dump(), metaOf)) {
          // Named, not temporaries: items() refers to the object it iterates.
          json values = json::parse(e->tensorValues), nodes = json::parse(e->nodes);
          for (auto &[k, v] : values.items()) expandedTv[k] = v;
          for (const json &sub : nodes) addNode(sub);
          return;
        }
      }
      Node n;
      n.target = jn.at("target").get<std::string>();
      n.name = jn.value("name", n.target);
      n.where = whereOf(jn);
      std::string ctx = "node '" + n.name + "' (" + n.target + ")";
      std::vector<std::pair<std::string, ArgSource>> named;
      for (const json &in : jn.at("inputs")) named.emplace_back(in.value("name", ""), parseArg(in.at("arg"), ctx));
      for (const json &out : jn.at("outputs")) {
        if (!out.is_object() || out.size() != 1)
          throw Error("kiln: '" + path + "': " + ctx + ": an output is not an object with one kind: " +
                      out.dump().substr(0, 80));
        if (out.contains("as_tensor")) n.outputs.push_back(out.at("as_tensor").at("name"));
        else if (out.contains("as_sym_int") && out.at("as_sym_int").contains("as_name"))
          n.outputs.push_back(out.at("as_sym_int").at("as_name"));
        else if (out.contains("as_sym_bool") && out.at("as_sym_bool").contains("as_name"))
          n.outputs.push_back(out.at("as_sym_bool").at("as_name"));
        else if (out.contains("as_tensors")) {
          n.outputIsList = jn.at("outputs").size() == 1;
          for (auto &t : out.at("as_tensors")) n.outputs.push_back(t.at("name"));
        } else n.outputs.push_back("");
      }
      const std::string prefix = "torch.ops.";
      if (n.target == "_operator.getitem" || n.target == "<built-in function getitem>") {
        n.kind = Node::GetItem;
        for (auto &a : named) n.args.push_back(a.second);
      } else if (n.target == "torch.ops.aten.sym_size.int" || n.target == "torch.ops.aten.sym_numel.default" ||
                 n.target == "torch.ops.aten.sym_stride.int" ||
                 n.target == "torch.ops.aten.sym_storage_offset.default") {
        // A tensor's metadata as a SymInt: of the interpreter's own tensor,
        // so a later as_strided of that tensor reads what these say.
        n.kind = n.target == "torch.ops.aten.sym_size.int"        ? Node::SymSize
                 : n.target == "torch.ops.aten.sym_numel.default" ? Node::SymNumel
                 : n.target == "torch.ops.aten.sym_stride.int"    ? Node::SymStride
                                                                  : Node::SymStorageOffset;
        for (auto &a : named) n.args.push_back(a.second);
      } else if (isScalarNode(n.target)) {
        n.kind = Node::Scalar;
        for (auto &a : named) n.args.push_back(a.second);
      } else if (n.target.rfind(prefix, 0) == 0) {
        std::string rest = n.target.substr(prefix.size()); // ns.name.overload
        size_t d1 = rest.find('.'), d2 = rest.rfind('.');
        if (d1 == std::string::npos || d1 == d2) throw Error("kiln: " + ctx + ": unexpected target name");
        std::string q = rest.substr(0, d1) + "::" + rest.substr(d1 + 1, d2 - d1 - 1) + "." + rest.substr(d2 + 1);
        n.op = Dispatcher::get().findOp(q);
        if (!n.op.valid()) { // an alias (multiply.Tensor) runs as its op (mul.Tensor)
          std::string canonical = canonicalOpName(q);
          if (!canonical.empty() && (n.op = Dispatcher::get().findOp(canonical)).valid()) q = canonical;
        }
        if (!n.op.valid()) {
          std::string why;
          try { Dispatcher::get().findOpOrThrow(q); } catch (const Error &e) { why = e.what(); }
          throw Error(why + " in " + ctx + (n.where.empty() ? "" : " at " + n.where));
        }
        // The schema index of named argument `a` if it is a number given for a
        // Tensor argument of the op (as it stands), else -1.
        auto numberForTensor = [&n](const std::pair<std::string, ArgSource> &a) {
          const FunctionSchema &s0 = n.op.schema();
          int idx = a.first.empty() ? -1 : s0.argumentIndex(a.first);
          bool number = (a.second.kind == ArgSource::Constant && a.second.constant.isScalar()) ||
                        (a.second.kind == ArgSource::Ref && a.second.sym);
          if (idx < 0 || !number || s0.arguments[idx].type->kind != SchemaType::Kind::Tensor)
            return -1;
          return idx;
        };
        // A number given for a Tensor argument (add.Tensor(x, 3)): PyTorch wraps it
        // as a wrapped-number scalar, which is what the op's .Scalar overload does.
        for (auto &a : named) {
          int idx = numberForTensor(a);
          if (idx < 0) continue;
          // add.Tensor -> add.Scalar, div.Tensor_mode -> div.Scalar_mode.
          std::string ov = q.substr(q.rfind('.') + 1);
          if (ov.rfind("Tensor", 0) != 0) continue;
          std::string alt = q.substr(0, q.rfind('.')) + ".Scalar" + ov.substr(6);
          OperatorHandle o = Dispatcher::get().findOp(alt);
          if (o.valid() && o.schema().argumentIndex(a.first) == idx &&
              o.schema().arguments[idx].type->kind == SchemaType::Kind::Scalar) {
            n.op = o;
            break;
          }
        }
        // A number no .Scalar overload takes (15 - x as sub.Tensor(15, x)):
        // a 0-dim tensor, which ATen's promotion lets raise only the dtype's
        // category. A wrapped float raises an integer tensor to the default
        // dtype (1.0 - mask is float32), not to float64: the 0-dim tensor is
        // float32 unless torch recorded the node's result as float64.
        DType wrappedFloat = DType::Float32;
        if (!n.outputs.empty()) {
          std::string meta = metaOf(n.outputs[0]);
          DType dt;
          if (!meta.empty()) {
            json m = json::parse(meta);
            if (m.contains("dtype") && m["dtype"].is_number_integer() &&
                Pt2Weights::dtypeFromSerde(m["dtype"].get<int>(), dt) && dt == DType::Float64)
              wrappedFloat = DType::Float64;
          }
        }
        for (auto &a : named) {
          if (numberForTensor(a) < 0) continue;
          if (a.second.kind == ArgSource::Ref) { // a symbolic number: wrapped when it is read
            a.second.wrapFloat = wrappedFloat == DType::Float64 ? 8 : 7;
            continue;
          }
          const IValue &v = a.second.constant;
          Tensor t = Tensor::empty({}, v.isDouble() ? wrappedFloat : v.isBool() ? DType::Bool : DType::Int64);
          if (v.isDouble() && wrappedFloat == DType::Float64) *t.data<double>() = v.toDouble();
          else if (v.isDouble()) *t.data<float>() = (float)v.toDouble();
          else if (v.isBool()) *t.data<uint8_t>() = v.toBool() ? 1 : 0;
          else *t.data<int64_t>() = v.toInt();
          a.second.constant = IValue(t);
        }
        const FunctionSchema &s = n.op.schema();
        n.args.resize(s.arguments.size());
        std::vector<bool> given(s.arguments.size(), false);
        size_t pos = 0;
        for (auto &a : named) {
          int idx = a.first.empty() ? (int)pos : s.argumentIndex(a.first);
          if (idx < 0 || idx >= (int)s.arguments.size())
            throw Error("kiln: " + ctx + ": the schema " + s.str() + " has no argument '" + a.first + "'");
          n.args[idx] = a.second;
          given[idx] = true;
          pos = idx + 1;
        }
        for (size_t i = 0; i < s.arguments.size(); ++i)
          if (!given[i]) {
            if (!s.arguments[i].defaultValue)
              throw Error("kiln: " + ctx + ": argument '" + s.arguments[i].name + "' is missing");
            n.args[i].constant = *s.arguments[i].defaultValue;
          }
      } else {
        throw Error("kiln: " + ctx + ": target is not supported by the eager interpreter" +
                    (n.where.empty() ? "" : " (at " + n.where + ")"));
      }
      if (n.kind == Node::Op && drawsRandom(n)) n.stream = impl->randomOps++;
      if (n.kind == Node::Op && !n.args.empty() && n.args[0].kind == ArgSource::Ref) {
        std::string op = n.op.name().substr(0, n.op.name().find('.'));
        n.inplace = op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_';
      }
      impl->nodes.push_back(std::move(n));
    };
    for (const json &jn : g.at("nodes")) addNode(jn);
    if (impl->randomOps) {
      try {
        impl->seed = (uint64_t)resolveSeed(-1);
      } catch (const std::exception &e) {
        throw Error(std::string("kiln: '") + path + "': " + e.what());
      }
    }
  } catch (const json::exception &e) {
    throw Error("kiln: '" + path + "': unexpected model.json content: " + e.what());
  }
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

std::vector<Tensor> Program::run(const std::vector<Tensor> &inputs) const {
  AutoGradMode noGrad(false);
  return runGraph(*impl_, inputs, nullptr);
}

Program::Gradients Program::grad(const std::vector<Tensor> &inputs,
                                 const std::vector<Tensor> &cotangents) const {
  const Impl &p = *impl_;
  if (cotangents.size() != p.outputs.size())
    throw Error("kiln: grad of '" + p.path + "' needs one cotangent per output (" +
                std::to_string(p.outputs.size()) + "), got " + std::to_string(cotangents.size()));
  // Leaves: the user inputs and the parameters, marked as requiring grad.
  std::vector<Tensor> in;
  for (const Tensor &t : inputs) {
    Tensor c = t;
    if (c.defined() && isFloatingPoint(c.dtype())) c.setRequiresGrad(true);
    in.push_back(c);
  }
  std::unordered_map<std::string, Tensor> leaves;
  for (auto &[graphName, stateName] : p.params) {
    auto it = p.state.find(graphName);
    if (it == p.state.end()) continue;
    Tensor c = it->second;
    c.setRequiresGrad(true);
    leaves[graphName] = c;
  }
  autograd::Tape tape;
  Gradients g;
  {
    AutoGradMode on(true);
    g.outputs = runGraph(p, in, &leaves);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i)
    if (!g.outputs[i].requiresGrad())
      throw Error("kiln: output " + std::to_string(i) + " of '" + p.path +
                  "' does not depend on any input or parameter through ops with backward formulas");
  std::vector<Tensor> wrt = in;
  for (auto &[graphName, stateName] : p.params) {
    g.parameterNames.push_back(stateName);
    wrt.push_back(leaves.count(graphName) ? leaves[graphName] : Tensor());
  }
  std::vector<Tensor> all = tape.gradient(g.outputs, cotangents, wrt);
  g.inputs.assign(all.begin(), all.begin() + in.size());
  g.parameters.assign(all.begin() + in.size(), all.end());
  return g;
}

static std::vector<Tensor> runGraph(const Program::Impl &p, const std::vector<Tensor> &inputs,
                             const std::unordered_map<std::string, Tensor> *overrides) {
  if (inputs.size() != p.inputs.size())
    throw Error("kiln: '" + p.path + "' takes " + std::to_string(p.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  // A program with random ops takes the next generator offset per run, as a compiled model does.
  uint64_t offset = p.randomOps ? p.nextOffset.fetch_add(1) : 0;
  // Runs read the state together; the buffer updates after them write alone.
  std::shared_lock<std::shared_mutex> readLock(p.stateMutex);
  std::unordered_map<std::string, IValue> env;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueSpec &s = p.inputs[i];
    const Tensor &t = inputs[i];
    std::string what = "input " + std::to_string(i) + " ('" + s.name + "')";
    if (!t.defined()) throw Error("kiln: " + what + " is undefined");
    if (t.dtype() != s.dtype)
      throw Error("kiln: " + what + " must be " + dtypeName(s.dtype) + ", got " + dtypeName(t.dtype()));
    if ((size_t)t.dim() != s.sizes.size())
      throw Error("kiln: " + what + " must have rank " + std::to_string(s.sizes.size()) + ", got shape " +
                  t.shapeString());
    for (size_t d = 0; d < s.sizes.size(); ++d) {
      int64_t v = t.size((int64_t)d);
      bool ok = s.sizes[d] >= 0 ? v == s.sizes[d]
                                : v >= s.minSizes[d] && (s.maxSizes[d] < 0 || v <= s.maxSizes[d]);
      if (!ok)
        throw Error("kiln: " + what + " has shape " + t.shapeString() + "; dim " + std::to_string(d) +
                    (s.sizes[d] >= 0 ? " must be " + std::to_string(s.sizes[d])
                                     : " must be in [" + std::to_string(s.minSizes[d]) + ", " +
                                           (s.maxSizes[d] < 0 ? std::string("inf") : std::to_string(s.maxSizes[d])) + "]"));
    }
    env[p.inputNames[i]] = IValue(t);
  }
  if (overrides)
    for (auto &[name, t] : *overrides) env[name] = IValue(t);
  auto lookup = [&](const std::string &n, const Node &node) -> const IValue & {
    auto it = env.find(n);
    if (it != env.end()) return it->second;
    auto st = p.state.find(n);
    if (st != p.state.end()) return env.emplace(n, IValue(st->second)).first->second;
    auto c = p.constInputs.find(n);
    if (c != p.constInputs.end()) return c->second;
    throw Error("kiln: node '" + node.name + "' uses '" + n + "', which has no value (a missing weight?)");
  };
  auto value = [&](const ArgSource &a, const Node &node) -> IValue {
    switch (a.kind) {
    case ArgSource::Constant: return a.constant;
    case ArgSource::Ref: {
      if (!a.wrapFloat) return lookup(a.ref, node);
      // A SymInt/SymFloat for a Tensor argument no .Scalar overload takes: a 0-dim
      // tensor, as the constants above (int64, or the wrapped float dtype).
      IValue v = lookup(a.ref, node);
      if (!v.isScalar()) return v;
      Tensor t = Tensor::empty({}, v.isDouble() ? (a.wrapFloat == 8 ? DType::Float64 : DType::Float32)
                                                : v.isBool() ? DType::Bool : DType::Int64);
      if (v.isDouble() && a.wrapFloat == 8) *t.data<double>() = v.toDouble();
      else if (v.isDouble()) *t.data<float>() = (float)v.toDouble();
      else if (v.isBool()) *t.data<uint8_t>() = v.toBool() ? 1 : 0;
      else *t.data<int64_t>() = v.toInt();
      return IValue(t);
    }
    case ArgSource::RefList: {
      std::vector<Tensor> ts;
      for (auto &r : a.refs) ts.push_back(lookup(r, node).toTensor());
      return IValue(ts);
    }
    case ArgSource::OptRefList: {
      std::vector<IValue> vs;
      for (auto &r : a.refs) vs.push_back(r.empty() ? IValue() : lookup(r, node));
      return IValue::list(vs);
    }
    case ArgSource::SymIntList: {
      std::vector<int64_t> v;
      for (size_t i = 0; i < a.refs.size(); ++i)
        v.push_back(a.refs[i].empty() ? a.ints[i] : lookup(a.refs[i], node).toInt());
      return IValue(v);
    }
    }
    return IValue();
  };
  for (const Node &n : p.nodes) {
    try {
      Stack s;
      for (const ArgSource &a : n.args) s.push_back(value(a, n));
      switch (n.kind) {
      case Node::Op:
        if (n.stream >= 0) {
          cpu::RandomStream rs{p.seed, offset, (uint32_t)n.stream};
          cpu::RandomStreamScope scope(&rs);
          n.op.callBoxed(s);
        } else {
          n.op.callBoxed(s);
        }
        // An in-place op (mul_, unsqueeze_) returns self: later reads of self's
        // name see the result, new sizes included.
        if (n.inplace && !s.empty() && s[0].isTensor()) env[n.args[0].ref] = s[0];
        break;
      case Node::GetItem: {
        IValue list = s.at(0);
        int64_t i = s.at(1).toInt();
        if (list.isTensorList()) s = {IValue(list.toTensorList().at(i))};
        else s = {list.toList().at(i)};
        break;
      }
      case Node::SymSize: {
        const Tensor &t = s.at(0).toTensor();
        int64_t d = s.at(1).toInt();
        if (d < -t.dim() || d >= t.dim())
          throw Error("kiln: node '" + n.name + "' (sym_size): dim " + std::to_string(d) +
                      " is out of range for a tensor of rank " + std::to_string(t.dim()));
        s = {IValue(t.size(d))};
        break;
      }
      case Node::SymNumel: s = {IValue(s.at(0).toTensor().numel())}; break;
      case Node::SymStride: {
        const Tensor &t = s.at(0).toTensor();
        int64_t d = s.at(1).toInt();
        if (d < -t.dim() || d >= t.dim())
          throw Error("kiln: node '" + n.name + "' (sym_stride): dim " + std::to_string(d) +
                      " is out of range for a tensor of rank " + std::to_string(t.dim()));
        s = {IValue(t.stride(d < 0 ? d + t.dim() : d))};
        break;
      }
      case Node::SymStorageOffset: s = {IValue(s.at(0).toTensor().offset())}; break;
      case Node::Scalar: s = {runScalarNode(n.target, s)}; break;
      }
      if (n.outputIsList) {
        const std::vector<Tensor> &ts = s.at(0).toTensorList();
        for (size_t i = 0; i < n.outputs.size() && i < ts.size(); ++i)
          if (!n.outputs[i].empty()) env[n.outputs[i]] = IValue(ts[i]);
      } else {
        for (size_t i = 0; i < n.outputs.size() && i < s.size(); ++i)
          if (!n.outputs[i].empty()) env[n.outputs[i]] = s[i];
      }
    } catch (const std::bad_alloc &) {
      throw Error("kiln: out of memory (a kernel could not allocate its result or workspace)\n  in node '" +
                  n.name + "' (" + n.target + ")" + (n.where.empty() ? "" : "\n  at " + n.where));
    } catch (const std::exception &e) {
      throw Error(std::string(e.what()) + "\n  in node '" + n.name + "' (" + n.target + ")" +
                  (n.where.empty() ? "" : "\n  at " + n.where));
    } catch (...) {
      // A plugin kernel may throw anything; the caller gets an error, never a terminate().
      throw Error("kiln: the kernel threw an exception that is not a std::exception\n  in node '" +
                  n.name + "' (" + n.target + ")" + (n.where.empty() ? "" : "\n  at " + n.where));
    }
  }
  auto result = [&](const std::string &n) {
    auto it = env.find(n);
    if (it != env.end()) return it->second.toTensor();
    return lookup(n, p.nodes.empty() ? Node{} : p.nodes.back()).toTensor();
  };
  std::vector<Tensor> out;
  for (const std::string &n : p.outputNames) out.push_back(result(n));
  std::vector<Tensor> updates;
  for (const Program::Impl::Mutation &m : p.mutations) updates.push_back(result(m.output));
  readLock.unlock();
  if (!p.mutations.empty()) {
    std::unique_lock<std::shared_mutex> writeLock(p.stateMutex);
    for (size_t i = 0; i < p.mutations.size(); ++i) {
      const Program::Impl::Mutation &m = p.mutations[i];
      if (m.userInput >= 0) {
        Tensor target = inputs[m.userInput];
        target.copyFrom(updates[i]);
      } else {
        p.state[m.buffer] = updates[i].contiguous().clone();
      }
    }
  }
  return out;
}

} // namespace kiln::eager
