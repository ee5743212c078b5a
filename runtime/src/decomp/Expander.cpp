// kiln runtime — expands graph nodes with the composite-op rule table (see RuleTable.cpp
// for the rule syntax).
#include "kiln/decompose.h"

#include "DataDependent.h"
#include "MaskedIndex.h"
#include "TriIndices.h"
#include "RuleTable.h"
#include "../loader/SerdeChecks.h"

#include "../loader/Json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

namespace kiln::decomp {

using json = nlohmann::json;

namespace {

// --- expansion ---------------------------------------------------------------

int64_t dtypeCode(const std::string &name) {
  static const std::map<std::string, int64_t> codes = {
      {"uint8", 1}, {"int8", 2}, {"int16", 3}, {"int32", 4}, {"int64", 5}, {"float16", 6},
      {"float32", 7}, {"float64", 8}, {"bool", 12}, {"bfloat16", 13}};
  auto it = codes.find(name);
  return it == codes.end() ? -1 : it->second;
}
constexpr int64_t kBool = 12;
bool isFloatCode(int64_t c) { return c == 6 || c == 7 || c == 8 || c == 13; }
bool isIntCode(int64_t c) { return (c >= 1 && c <= 5) || c == 12; }

json ivalueToArg(const IValue &v) {
  if (v.isNone()) return {{"as_none", true}};
  if (v.isBool()) return {{"as_bool", v.toBool()}};
  if (v.isInt()) return {{"as_int", v.toInt()}};
  if (v.isDouble()) return {{"as_float", v.toDouble()}};
  if (v.isString()) return {{"as_string", v.toString()}};
  if (v.isIntList()) return {{"as_ints", v.toIntList()}};
  if (v.isDoubleList()) return {{"as_floats", v.toDoubleList()}};
  throw Error("kiln: composite rule table: a default kiln cannot serialize");
}

class Expander {
public:
  /// `promoteTo` (a float dtype code, or 0): the node's integer and bool
  /// tensor arguments are first converted to it (see expand()).
  Expander(const Rule &r, const json &node, const MetaLookup &metaOf, int64_t promoteTo = 0)
      : r(r), node(node), metaOf(metaOf), promoteTo(promoteTo) {
    nodeName = node.value("name", std::string("node"));
    ctx = "node '" + nodeName + "' (" + node.value("target", std::string("?")) + ")";
  }

  /// Binds the node's arguments to the schema's; false if a condition fails.
  bool bind() {
    const auto &args = r.schema.arguments;
    size_t pos = 0;
    for (const json &in : node.at("inputs")) {
      std::string n = in.value("name", std::string());
      int idx = n.empty() ? (int)pos : r.schema.argumentIndex(n);
      if (idx < 0 || idx >= (int)args.size())
        throw Error("kiln: " + ctx + ": the composite rule's schema " + r.schema.str() +
                    " has no argument '" + n + "'");
      env[args[idx].name] = in.at("arg");
      pos = idx + 1;
    }
    for (const Argument &a : args)
      if (!env.count(a.name)) {
        if (!a.defaultValue)
          throw Error("kiln: " + ctx + ": argument '" + a.name + "' is missing");
        env[a.name] = ivalueToArg(*a.defaultValue);
      }
    if (promoteTo) promoteIntegers();
    for (const Cond &c : r.conds)
      if (!holds(c)) return false;
    return true;
  }

  /// Whether the rule asks for a float tensor (`when float X`).
  bool wantsFloat() const {
    return std::any_of(r.conds.begin(), r.conds.end(), [](const Cond &c) { return c.kind == Cond::IsFloat; });
  }

  Expansion run() {
    // The node's outputs, by position: the names the returned values take.
    std::vector<std::string> outNames;
    for (const json &o : node.at("outputs")) {
      if (o.contains("as_tensor")) outNames.push_back(o["as_tensor"].at("name"));
      else if (o.contains("as_tensors")) // a Tensor[] result: one name per element
        for (const json &t : o["as_tensors"]) outNames.push_back(t.at("name"));
      else outNames.push_back("");
    }
    if (outNames.size() != r.returns.size())
      throw Error("kiln: " + ctx + ": has " + std::to_string(outNames.size()) +
                  " outputs; its composite rule returns " + std::to_string(r.returns.size()));
    // The node's own outputs, for metadata rules: out0, out1, ...
    for (size_t i = 0; i < outNames.size(); ++i)
      if (!outNames[i].empty() && !env.count("out" + std::to_string(i)))
        env["out" + std::to_string(i)] = {{"as_tensor", {{"name", outNames[i]}}}};
    std::map<std::string, std::string> finalName;
    for (size_t i = 0; i < r.returns.size(); ++i)
      finalName[r.returns[i]] = outNames[i];
    metadata = node.contains("metadata") ? node["metadata"] : json::object();
    for (const Step &s : r.steps) {
      json n;
      n["target"] = s.target;
      n["name"] = nodeName + "__" + s.results[0];
      n["metadata"] = metadata;
      n["inputs"] = json::array();
      for (auto &[k, v] : s.args)
        n["inputs"].push_back({{"name", k}, {"arg", render(v)}, {"kind", 1}});
      n["outputs"] = json::array();
      for (size_t i = 0; i < s.results.size(); ++i) {
        const std::string &local = s.results[i];
        auto fin = finalName.find(local);
        bool isFinal = fin != finalName.end() && !fin->second.empty();
        std::string name = isFinal ? fin->second : nodeName + "__" + local;
        const Meta *m = i < s.metas.size() ? &s.metas[i] : nullptr;
        if (m && m->kind == Meta::Index) {
          n["outputs"].push_back({{"as_sym_int", {{"as_name", name}}}});
          env[local] = {{"as_sym_int", {{"as_name", name}}}};
          continue;
        }
        n["outputs"].push_back({{"as_tensor", {{"name", name}}}});
        env[local] = {{"as_tensor", {{"name", name}}}};
        if (isFinal) continue;
        if (!m)
          throw Error("kiln: composite rule " + r.schema.qualifiedName() + ": result '" + local +
                      "' has no metadata rule");
        json meta = metaFor(*m);
        newMeta[name] = meta;
        tensorValues[name] = meta;
      }
      nodes.push_back(std::move(n));
    }
    // A returned value that no step produced (an input returned as is).
    for (size_t i = 0; i < r.returns.size(); ++i) {
      const json &v = arg(r.returns[i]);
      if (v.contains("as_tensor") && v["as_tensor"].value("name", std::string()) != outNames[i] &&
          !outNames[i].empty()) {
        json n;
        n["target"] = "torch.ops.aten.clone.default";
        n["name"] = nodeName + "__ret" + std::to_string(i);
        n["metadata"] = metadata;
        n["inputs"] = json::array({{{"name", "self"}, {"arg", v}, {"kind", 1}}});
        n["outputs"] = json::array({{{"as_tensor", {{"name", outNames[i]}}}}});
        nodes.push_back(std::move(n));
      }
    }
    Expansion e;
    e.nodes = nodes.dump();
    e.tensorValues = tensorValues.dump();
    e.rule = r.schema.qualifiedName() + " (" + r.family + ")";
    return e;
  }

private:
  const json &arg(const std::string &ref) {
    auto it = env.find(ref);
    size_t dot = ref.rfind('.');
    if (it == env.end() && dot != std::string::npos && env.count(ref.substr(0, dot))) {
      // "X.k": element k of a list argument.
      const json &list = env[ref.substr(0, dot)];
      size_t k = std::stoul(ref.substr(dot + 1));
      json elem;
      if (list.contains("as_ints") && k < list["as_ints"].size()) elem = {{"as_int", list["as_ints"][k]}};
      else if (list.contains("as_sym_ints") && k < list["as_sym_ints"].size()) elem = {{"as_sym_int", list["as_sym_ints"][k]}};
      else if (list.contains("as_tensors") && k < list["as_tensors"].size()) elem = {{"as_tensor", list["as_tensors"][k]}};
      else throw Error("kiln: " + ctx + ": argument '" + ref.substr(0, dot) + "' has no element " + std::to_string(k));
      return env[ref] = elem;
    }
    if (it == env.end())
      throw Error("kiln: composite rule " + r.schema.qualifiedName() + ": unknown name '" + ref + "'");
    return it->second;
  }
  static bool isNoneArg(const json &a) { return a.contains("as_none"); }

  /// A sym_size.int node reading dim `d` of tensor `ref` at run time; its value.
  json symSize(const std::string &ref, int64_t d) {
    std::string name = nodeName + "__size" + std::to_string(counter++);
    json n;
    n["target"] = "torch.ops.aten.sym_size.int";
    n["name"] = name;
    n["metadata"] = metadata;
    n["inputs"] = json::array({{{"name", "self"}, {"arg", arg(ref)}, {"kind", 1}},
                               {{"name", "dim"}, {"arg", {{"as_int", d}}}, {"kind", 1}}});
    n["outputs"] = json::array({{{"as_sym_int", {{"as_name", name}}}}});
    nodes.push_back(std::move(n));
    return {{"as_name", name}};
  }

  json tensorMeta(const std::string &ref) {
    const json &a = arg(ref);
    if (!a.contains("as_tensor"))
      throw Error("kiln: " + ctx + ": argument '" + ref + "' is not a tensor");
    std::string name = a["as_tensor"].at("name");
    auto it = newMeta.find(name);
    if (it != newMeta.end()) return it->second;
    std::string text = metaOf(name);
    if (text.empty()) throw Error("kiln: " + ctx + ": no tensor metadata for value '" + name + "'");
    return json::parse(text); // its integer fields were checked by expand()
  }

  /// Each integer or bool tensor argument becomes a _to_copy of it to
  /// `promoteTo`, which the rule's steps then read.
  void promoteIntegers() {
    metadata = node.contains("metadata") ? node["metadata"] : json::object();
    for (const Argument &a : r.schema.arguments) {
      const json &v = env[a.name];
      if (!v.contains("as_tensor")) continue;
      json meta = tensorMeta(a.name);
      if (!isIntCode(meta.at("dtype"))) continue;
      std::string name = nodeName + "__promoted_" + a.name;
      json n;
      n["target"] = "torch.ops.aten._to_copy.default";
      n["name"] = name;
      n["metadata"] = metadata;
      n["inputs"] = json::array({{{"name", "self"}, {"arg", v}, {"kind", 1}},
                                 {{"name", "dtype"}, {"arg", {{"as_scalar_type", promoteTo}}}, {"kind", 1}}});
      n["outputs"] = json::array({{{"as_tensor", {{"name", name}}}}});
      nodes.push_back(std::move(n));
      meta["dtype"] = promoteTo;
      newMeta[name] = meta;
      tensorValues[name] = meta;
      env[a.name] = {{"as_tensor", {{"name", name}}}};
    }
  }

  bool holds(const Cond &c) {
    switch (c.kind) {
    case Cond::IsNone: return isNoneArg(arg(c.ref));
    case Cond::NotNone: return !isNoneArg(arg(c.ref));
    case Cond::Eq: return arg(c.ref) == render(c.v);
    case Cond::Ne: return arg(c.ref) != render(c.v);
    case Cond::IsFloat:
    case Cond::IsInt:
    case Cond::IsNumeric: {
      if (!arg(c.ref).contains("as_tensor")) return false;
      int64_t code = tensorMeta(c.ref).at("dtype");
      if (c.kind == Cond::IsNumeric) return isFloatCode(code) || (isIntCode(code) && code != kBool);
      return c.kind == Cond::IsFloat ? isFloatCode(code) : isIntCode(code);
    }
    case Cond::LenEq: {
      const json &a = arg(c.ref);
      for (const char *k : {"as_ints", "as_sym_ints", "as_tensors", "as_floats"})
        if (a.contains(k)) return (int64_t)a[k].size() == c.n;
      return false;
    }
    case Cond::RankEq:
    case Cond::RankLe:
    case Cond::RankGe: {
      if (!arg(c.ref).contains("as_tensor")) return false;
      int64_t rank = tensorMeta(c.ref).at("sizes").size();
      return c.kind == Cond::RankEq ? rank == c.n : c.kind == Cond::RankLe ? rank <= c.n : rank >= c.n;
    }
    }
    return false;
  }

  json render(const Val &v) {
    switch (v.kind) {
    case Val::Ref: return arg(v.s);
    case Val::Int: return {{"as_int", v.i}};
    case Val::Float: return {{"as_float", v.f}};
    case Val::Bool: return {{"as_bool", (bool)v.i}};
    case Val::None: return {{"as_none", true}};
    case Val::Str: return {{"as_string", v.s}};
    case Val::DtypeOf: return {{"as_scalar_type", tensorMeta(v.s).at("dtype")}};
    case Val::BcastSizesOf: {
      // The broadcast sizes of several tensors: a static dim other than 1
      // wins; else a symbolic one, read at run time from its tensor.
      std::vector<json> metas;
      size_t rank = 0;
      for (const Val &x : v.items) {
        metas.push_back(tensorMeta(x.s));
        rank = std::max(rank, metas.back().at("sizes").size());
      }
      json l = json::array();
      bool sym = false;
      for (size_t d = 0; d < rank; ++d) {
        json pick = {{"as_int", 1}};
        for (size_t t = 0; t < metas.size(); ++t) {
          const json &sz = metas[t].at("sizes");
          if (d + sz.size() < rank) continue;
          size_t k = d + sz.size() - rank;
          const json &e = sz[k];
          if (e.contains("as_int")) {
            if (e["as_int"] != 1) pick = {{"as_int", e["as_int"]}};
          } else if (pick == json{{"as_int", 1}}) {
            pick = symSize(v.items[t].s, (int64_t)k);
          }
        }
        if (pick.contains("as_name")) sym = true;
        l.push_back(pick);
      }
      if (sym) return {{"as_sym_ints", l}};
      json ints = json::array();
      for (auto &e : l) ints.push_back(e["as_int"]);
      return {{"as_ints", ints}};
    }
    case Val::SizesOf: {
      // Static dims as ints; a symbolic dim is read at run time (sym_size.int),
      // so dynamic dims flow through the decomposition.
      json t = tensorMeta(v.s);
      json l = json::array();
      bool sym = false;
      const json &sizes = t.at("sizes");
      for (size_t d = 0; d < sizes.size(); ++d) {
        if (sizes[d].contains("as_int")) {
          l.push_back({{"as_int", sizes[d]["as_int"]}});
          continue;
        }
        sym = true;
        l.push_back(symSize(v.s, (int64_t)d));
      }
      if (sym) return {{"as_sym_ints", l}};
      json ints = json::array();
      for (auto &e : l) ints.push_back(e["as_int"]);
      return {{"as_ints", ints}};
    }
    case Val::DimsExcept: {
      // Every dim of X but D (D may be negative, as ATen's dims are).
      int64_t rank = tensorMeta(v.s).at("sizes").size();
      json d = render(v.items.at(0));
      if (!d.contains("as_int"))
        throw Error("kiln: " + ctx + ": others(" + v.s + " ...) needs an int dim");
      int64_t drop = d["as_int"];
      if (drop < -rank || drop >= rank)
        throw Error("kiln: " + ctx + ": dim " + std::to_string(drop) + " is out of range for a rank-" +
                    std::to_string(rank) + " tensor");
      if (drop < 0) drop += rank;
      json ints = json::array();
      for (int64_t k = 0; k < rank; ++k)
        if (k != drop) ints.push_back(k);
      return {{"as_ints", ints}};
    }
    case Val::DtypeName: {
      int64_t c = dtypeCode(v.s);
      if (c < 0) throw Error("kiln: composite rule table: unknown dtype '" + v.s + "'");
      return {{"as_scalar_type", c}};
    }
    case Val::List: {
      std::vector<json> items;
      for (const Val &x : v.items) items.push_back(render(x));
      bool tensors = !items.empty() && std::all_of(items.begin(), items.end(), [](const json &j) {
        return j.contains("as_tensor");
      });
      if (tensors) {
        json l = json::array();
        for (auto &j : items) l.push_back(j["as_tensor"]);
        return {{"as_tensors", l}};
      }
      bool sym = std::any_of(items.begin(), items.end(), [](const json &j) {
        return j.contains("as_sym_int");
      });
      bool floats = std::any_of(items.begin(), items.end(), [](const json &j) {
        return j.contains("as_float");
      });
      json l = json::array();
      for (auto &j : items) {
        if (sym) l.push_back(j.contains("as_sym_int") ? j["as_sym_int"] : json{{"as_int", j.at("as_int")}});
        else if (floats) l.push_back(j.contains("as_float") ? j["as_float"].get<double>() : (double)j.at("as_int").get<int64_t>());
        else if (j.contains("as_int")) l.push_back(j["as_int"]);
        else throw Error("kiln: " + ctx + ": a list element kiln's rules cannot form");
      }
      if (sym) return {{"as_sym_ints", l}};
      return {{floats ? "as_floats" : "as_ints", l}};
    }
    }
    return {{"as_none", true}};
  }

  /// The new value's metadata: dtype and sizes (strides left out: kiln reads neither).
  json metaFor(const Meta &m) {
    json out;
    json sizes = json::array();
    int64_t dtype = 0;
    if (m.kind == Meta::Like) {
      json t = tensorMeta(m.refs[0]);
      sizes = t.at("sizes");
      dtype = t.at("dtype");
    } else if (m.kind == Meta::Bcast) {
      std::vector<json> all;
      for (const std::string &ref : m.refs) {
        if (!arg(ref).contains("as_tensor")) continue; // a Python number broadcasts away
        all.push_back(tensorMeta(ref));
      }
      if (all.empty()) throw Error("kiln: composite rule " + r.schema.qualifiedName() + ": bcast of no tensor");
      dtype = all[0].at("dtype");
      size_t rank = 0;
      for (auto &t : all) rank = std::max(rank, t.at("sizes").size());
      for (size_t d = 0; d < rank; ++d) {
        json pick = {{"as_int", 1}};
        for (auto &t : all) {
          const json &s = t.at("sizes");
          if (d + s.size() < rank) continue;
          const json &e = s[d + s.size() - rank];
          if (e.contains("as_int") && e["as_int"] == 1) continue;
          if (e.contains("as_int") || pick == json{{"as_int", 1}}) pick = e;
        }
        sizes.push_back(pick);
      }
    } else if (m.kind == Meta::Reduce) {
      json t = tensorMeta(m.refs[0]);
      dtype = t.at("dtype");
      const json &in = t.at("sizes");
      int64_t rank = in.size();
      json dims = render(m.dims), keep = render(m.keepdim);
      std::vector<bool> reduced(rank, false);
      if (dims.contains("as_int")) {
        int64_t d = dims["as_int"];
        if (rank) reduced[(d % rank + rank) % rank] = true;
      } else if (dims.contains("as_ints") && !dims["as_ints"].empty()) {
        for (int64_t d : dims["as_ints"]) if (rank) reduced[(d % rank + rank) % rank] = true;
      } else {
        std::fill(reduced.begin(), reduced.end(), true);
      }
      bool keepdim = keep.value("as_bool", false);
      for (int64_t d = 0; d < rank; ++d) {
        if (!reduced[d]) sizes.push_back(in[d]);
        else if (keepdim) sizes.push_back({{"as_int", 1}});
      }
    } else if (m.kind == Meta::Trailing1) {
      // X's sizes with its last len(L) dims 1 (normalisation statistics).
      json t = tensorMeta(m.refs[0]);
      dtype = t.at("dtype");
      sizes = t.at("sizes");
      json l = render(m.dims);
      size_t n = l.contains("as_ints") ? l["as_ints"].size()
                 : l.contains("as_sym_ints") ? l["as_sym_ints"].size() : 1;
      for (size_t i = sizes.size() >= n ? sizes.size() - n : 0; i < sizes.size(); ++i)
        sizes[i] = {{"as_int", 1}};
    } else if (m.kind == Meta::Halve) {
      json t = tensorMeta(m.refs[0]);
      dtype = t.at("dtype");
      sizes = t.at("sizes");
      int64_t rank = sizes.size();
      json d = render(m.dims);
      int64_t k = d.at("as_int");
      k = rank ? (k % rank + rank) % rank : 0;
      if (sizes[k].contains("as_int")) sizes[k] = {{"as_int", sizes[k]["as_int"].get<int64_t>() / 2}};
      else sizes[k] = {{"as_expr", {{"expr_str", "half"}}}};
    } else if (m.kind == Meta::Dims) {
      json t = tensorMeta(m.refs[0]);
      dtype = t.at("dtype");
      // One entry: "3", an int argument, "@k" / "Y@k" (a dim), "A*B", "A/B", "A|B" (the smaller).
      std::function<json(const std::string &)> entry = [&](const std::string &e) -> json {
        for (char op : {'*', '/', '|'}) {
          size_t k = e.find(op);
          if (k == std::string::npos) continue;
          json a = entry(e.substr(0, k)), b = entry(e.substr(k + 1));
          if (a.contains("as_int") && b.contains("as_int")) {
            int64_t x = a["as_int"], y = b["as_int"];
            return {{"as_int", op == '*' ? x * y : op == '/' ? (y ? x / y : 0) : std::min(x, y)}};
          }
          return {{"as_expr", {{"expr_str", e}}}}; // symbolic: dynamic
        }
        size_t at = e.find('@');
        if (at == std::string::npos) {
          if (!e.empty() && (std::isdigit((unsigned char)e[0]) || e[0] == '-'))
            return {{"as_int", std::stoll(e)}};
          const json &a = arg(e); // an int argument
          if (a.contains("as_int")) return {{"as_int", a["as_int"]}};
          return {{"as_expr", {{"expr_str", e}}}};
        }
        json other = at ? tensorMeta(e.substr(0, at)) : t;
        const json &src = other.at("sizes");
        int64_t r2 = src.size();
        int64_t k = std::stoll(e.substr(at + 1));
        if (k < 0) k += r2;
        if (k < 0 || k >= r2)
          throw Error("kiln: " + ctx + ": a rule reads dim " + e + " of a rank-" + std::to_string(r2) + " tensor");
        return src[k];
      };
      for (const std::string &e : m.entries) {
        sizes.push_back(entry(e));
      }
    }
    if (!m.as.empty()) {
      int64_t c = dtypeCode(m.as);
      if (c < 0) {
        const json &a = arg(m.as);
        if (a.contains("as_scalar_type")) c = a["as_scalar_type"];
        else if (a.contains("as_tensor")) c = tensorMeta(m.as).at("dtype");
        else c = dtype; // None: unchanged
      }
      dtype = c;
    }
    out["dtype"] = dtype;
    out["sizes"] = sizes;
    json strides = json::array();
    for (size_t i = 0; i < sizes.size(); ++i) strides.push_back({{"as_int", 0}});
    out["strides"] = strides;
    out["requires_grad"] = false;
    out["device"] = {{"type", "cpu"}, {"index", nullptr}};
    out["storage_offset"] = {{"as_int", 0}};
    out["layout"] = 7;
    return out;
  }

  const Rule &r;
  const json &node;
  const MetaLookup &metaOf;
  int64_t promoteTo;
  std::string nodeName, ctx;
  std::map<std::string, json> env;
  std::map<std::string, json> newMeta;
  json tensorValues = json::object();
  json nodes = json::array();
  json metadata;
  int counter = 0;
};

} // namespace

bool hasRule(const std::string &target) {
  if (isMaskedIndexTarget(target) || isTriIndicesTarget(target) || isDataDependentTarget(target)) return true;
  for (const Rule &r : table())
    if (r.target == target) return true;
  return false;
}

std::optional<Expansion> expand(const std::string &nodeJson, const MetaLookup &graphMeta) {
  json node;
  try {
    node = json::parse(nodeJson);
  } catch (const json::exception &e) {
    throw Error(std::string("kiln: a graph node that is not valid JSON: ") + e.what());
  }
  std::string where = "node '" + node.value("name", std::string("?")) + "'";
  checkSerdeIntegers(node, where);
  // Every expander below reads tensor metadata: its integer fields are checked
  // once here, as the node's are, before any expander converts one.
  MetaLookup metaOf = [&graphMeta, &where](const std::string &name) {
    std::string text = graphMeta(name);
    json meta = text.empty() ? json() : json::parse(text, nullptr, false);
    if (!meta.is_discarded()) checkSerdeIntegers(meta, where + ": the metadata of '" + name + "'");
    return text;
  };
  std::string target = node.value("target", std::string());
  if (isMaskedIndexTarget(target)) return expandMaskedIndex(node, metaOf);
  if (isTriIndicesTarget(target)) return expandTriIndices(node, metaOf);
  if (isDataDependentTarget(target)) return expandDataDependent(node, metaOf);
  // PyTorch computes ops whose result is a float from integer or bool inputs
  // (rad2deg, xlogy, the distance losses: INT_TO_FLOAT type promotion) in
  // that float dtype: where no rule takes the node as it is and one asks for
  // a float input, the inputs are converted to the result's dtype first.
  int64_t promoteTo = 0;
  const json &outs = node.value("outputs", json::array());
  if (!outs.empty() && outs[0].contains("as_tensor")) {
    std::string meta = metaOf(outs[0]["as_tensor"].value("name", std::string()));
    json m = meta.empty() ? json() : json::parse(meta, nullptr, false);
    if (m.is_object() && m.contains("dtype") && m["dtype"].is_number_integer() && isFloatCode(m["dtype"]))
      promoteTo = m["dtype"];
  }
  for (int pass = 0; pass < (promoteTo ? 2 : 1); ++pass)
    for (const Rule &r : table()) {
      if (r.target != target) continue;
      try {
        Expander x(r, node, metaOf, pass ? promoteTo : 0);
        if (pass && !x.wantsFloat()) continue;
        if (!x.bind()) continue;
        return x.run();
      } catch (const json::exception &e) {
        throw Error("kiln: node '" + node.value("name", std::string("?")) + "' (" + target +
                    "): unexpected argument form for composite rule " + r.schema.str() + ": " + e.what());
      }
    }
  return std::nullopt;
}

std::vector<std::string> decomposedOps() {
  std::vector<std::string> ops;
  for (const Rule &r : table()) ops.push_back(r.schema.qualifiedName());
  ops.push_back("aten::_unsafe_masked_index");
  ops.push_back("aten::_unsafe_masked_index_put_accumulate");
  ops.push_back("aten::tril_indices");
  ops.push_back("aten::triu_indices");
  ops.push_back("aten::tensor_split.tensor_indices_or_sections");
  ops.push_back("aten::bincount");
  ops.push_back("aten::unique_consecutive");
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

} // namespace kiln::decomp
