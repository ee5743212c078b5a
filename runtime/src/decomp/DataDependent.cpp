// kiln runtime — composites whose result sizes depend on tensor values, as ATen nodes:
//   tensor_split(x, indices: 1-d integer tensor, dim)
//       = [x[i_{k-1}:i_k] along dim for k = 0..n] with i_{-1} = 0 and i_n = the end, each
//         i_k read from the tensor by _local_scalar_dense (ATen's tensor_split slices with
//         the indices as they are: slice's clamping and wrapping apply), as torch's own
//         Core ATen decomposition does.
// The read values are SymInts that only the run knows (unbacked, in torch's terms); the
// compiler's importer and the eager interpreter both take the nodes as they take a Core
// ATen graph's `.item()` and slices, so both run this one expansion.
#include "DataDependent.h"
#include "NodeJson.h"

#include "kiln/ivalue.h"

#include <cstdint>
#include <limits>

namespace kiln::decomp {

using json = nlohmann::json;

namespace {

const char *const kTensorSplit = "torch.ops.aten.tensor_split.tensor_indices_or_sections";
const char *const kBincount = "torch.ops.aten.bincount.default";
const char *const kUniqueConsecutive = "torch.ops.aten.unique_consecutive.default";

using nodejson::input;
using nodejson::inputArg;
using nodejson::tensorRef;

std::optional<Expansion> expandTensorSplit(const json &node, const MetaLookup &metaOf) {
  std::string name = node.value("name", "node");
  auto fail = [&](const std::string &why) -> Error {
    return Error("kiln: node '" + name + "' (" + std::string(kTensorSplit) + "): " + why);
  };
  const json *self = input(node, "self"), *idx = input(node, "tensor_indices_or_sections");
  if (!self || !self->contains("as_tensor") || !idx || !idx->contains("as_tensor"))
    throw fail("expects the tensors self and tensor_indices_or_sections");
  int64_t dim = 0;
  if (const json *d = input(node, "dim")) {
    if (!d->contains("as_int")) throw fail("dim is not an int");
    dim = (*d)["as_int"].get<int64_t>();
  }
  std::string idxName = (*idx)["as_tensor"].value("name", "");
  std::string idxText = metaOf(idxName);
  if (idxText.empty()) throw fail("no metadata for '" + idxName + "'");
  json idxMeta = json::parse(idxText);
  const json &sizes = idxMeta.at("sizes");
  // A 0-d tensor is a count of sections (its value fixes how many results there are):
  // that form has no expansion here.
  if (sizes.size() != 1 || !sizes[0].contains("as_int")) return std::nullopt;
  int64_t n = sizes[0]["as_int"].get<int64_t>();
  auto outsIt = node.find("outputs");
  if (outsIt == node.end() || !outsIt->is_array() || outsIt->size() != 1 || !(*outsIt)[0].contains("as_tensors"))
    throw fail("expects one list of tensors as its output");
  const json &outs = (*outsIt)[0]["as_tensors"];
  if ((int64_t)outs.size() != n + 1)
    throw fail("has " + std::to_string(outs.size()) + " results for " + std::to_string(n) +
               " indices (expected one more than the indices)");

  json nodes = json::array(), values = json::object();
  json metadata = node.contains("metadata") ? node["metadata"] : json::object();
  auto emit = [&](const std::string &op, json inputs, json outputs, const std::string &n) {
    nodes.push_back({{"target", "torch.ops.aten." + op}, {"name", n}, {"metadata", metadata},
                     {"inputs", std::move(inputs)}, {"outputs", std::move(outputs)}});
  };
  json scalarMeta = idxMeta;
  scalarMeta["sizes"] = json::array();
  scalarMeta["strides"] = json::array();
  std::vector<json> bounds; // i_0 .. i_{n-1}, as SymInt arguments
  for (int64_t k = 0; k < n; ++k) {
    std::string s = name + "__ts_index" + std::to_string(k), v = name + "__ts_value" + std::to_string(k);
    emit("select.int",
         json::array({inputArg("self", tensorRef(idxName)), inputArg("dim", {{"as_int", 0}}),
                      inputArg("index", {{"as_int", k}})}),
         json::array({tensorRef(s)}), s);
    values[s] = scalarMeta;
    emit("_local_scalar_dense.default", json::array({inputArg("self", tensorRef(s))}),
         json::array({{{"as_sym_int", {{"as_name", v}}}}}), v);
    bounds.push_back({{"as_sym_int", {{"as_name", v}}}});
  }
  for (int64_t k = 0; k <= n; ++k) {
    std::string out = outs[k].value("name", "");
    if (out.empty()) throw fail("result " + std::to_string(k) + " has no name");
    json start = k == 0 ? json{{"as_int", 0}} : bounds[k - 1];
    json end = k == n ? json{{"as_int", std::numeric_limits<int64_t>::max()}} : bounds[k];
    emit("slice.Tensor",
         json::array({inputArg("self", *self), inputArg("dim", {{"as_int", dim}}), inputArg("start", start),
                      inputArg("end", end), inputArg("step", {{"as_int", 1}})}),
         json::array({tensorRef(out)}), out);
  }
  Expansion e;
  e.nodes = nodes.dump();
  e.tensorValues = values.dump();
  e.rule = "aten::tensor_split.tensor_indices_or_sections (data-dependent sizes, DataDependent.cpp)";
  return e;
}

/// Writes nodes for one expansion: fresh value names, each new tensor's metadata.
struct Writer {
  std::string name;
  json metadata, nodes = json::array(), values = json::object();
  int counter = 0;

  Writer(const json &node) : name(node.value("name", "node")) {
    metadata = node.contains("metadata") ? node["metadata"] : json::object();
  }
  /// A node of `op` with one tensor result: `as` (a final output's name) or a fresh
  /// name whose metadata is `meta`.
  std::string tensor(const std::string &op, json inputs, const json &meta, const std::string &as = "") {
    std::string n = as.empty() ? name + "__dd" + std::to_string(counter++) : as;
    nodes.push_back({{"target", "torch.ops.aten." + op}, {"name", n}, {"metadata", metadata},
                     {"inputs", std::move(inputs)}, {"outputs", json::array({tensorRef(n)})}});
    if (as.empty()) values[n] = meta;
    return n;
  }
  /// _local_scalar_dense of a one-element tensor: a SymInt argument naming the value read.
  json item(const std::string &t) {
    std::string n = name + "__dd" + std::to_string(counter++);
    nodes.push_back({{"target", "torch.ops.aten._local_scalar_dense.default"}, {"name", n},
                     {"metadata", metadata}, {"inputs", json::array({inputArg("self", tensorRef(t))})},
                     {"outputs", json::array({{{"as_sym_int", {{"as_name", n}}}}})}});
    return {{"as_sym_int", {{"as_name", n}}}};
  }
  Expansion done(const std::string &rule) {
    Expansion e;
    e.nodes = nodes.dump();
    e.tensorValues = values.dump();
    e.rule = rule + " (data-dependent sizes, DataDependent.cpp)";
    return e;
  }
};

constexpr int64_t kLong = 5, kBoolCode = 12;

/// Metadata like `like`'s with other sizes (ints, or null for a size only the run knows)
/// and dtype, contiguous.
json metaLike(const json &like, const std::vector<std::optional<int64_t>> &sizes, int64_t dtype) {
  json m = like;
  m["dtype"] = dtype;
  m["sizes"] = json::array();
  m["strides"] = json::array();
  for (size_t i = 0; i < sizes.size(); ++i)
    m["sizes"].push_back(sizes[i] ? json{{"as_int", *sizes[i]}}
                                  : json{{"as_expr", {{"expr_str", "unbacked"}, {"hint", nullptr}}}});
  std::optional<int64_t> stride = 1;
  std::vector<json> strides(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride ? json{{"as_int", *stride}} : json{{"as_expr", {{"expr_str", "unbacked"}, {"hint", nullptr}}}};
    stride = stride && sizes[i] ? std::optional<int64_t>(*stride * *sizes[i]) : std::nullopt;
  }
  for (const json &st : strides) m["strides"].push_back(st);
  return m;
}

/// The static sizes of a metadata entry (nullopt for a symbolic one).
std::vector<std::optional<int64_t>> sizesOf(const json &meta) {
  std::vector<std::optional<int64_t>> out;
  for (const json &s : meta.at("sizes"))
    out.push_back(s.contains("as_int") ? std::optional<int64_t>(s["as_int"].get<int64_t>()) : std::nullopt);
  return out;
}

std::optional<int64_t> numel(const std::vector<std::optional<int64_t>> &sizes) {
  int64_t n = 1;
  for (auto s : sizes) {
    if (!s) return std::nullopt;
    n *= *s;
  }
  return n;
}

/// bincount(self: 1-d non-negative integers, weights=None, minlength=0)
///   = index_put(zeros([n]), [self], weights or ones, accumulate=True), with
///     n = max(max(self) + 1, minlength) read by _local_scalar_dense (an empty self
///     gives minlength: the maximum is taken over self with a -1 appended).
std::optional<Expansion> expandBincount(const json &node, const MetaLookup &metaOf, const char *target) {
  std::string name = node.value("name", "node");
  auto fail = [&](const std::string &why) -> Error {
    return Error("kiln: node '" + name + "' (" + std::string(target) + "): " + why);
  };
  const json *self = input(node, "self");
  if (!self || !self->contains("as_tensor")) throw fail("expects the tensor self");
  const json *weights = input(node, "weights");
  bool hasWeights = weights && weights->contains("as_tensor");
  int64_t minlength = 0;
  if (const json *m = input(node, "minlength")) {
    if (!m->contains("as_int")) throw fail("minlength is not an int");
    minlength = (*m)["as_int"].get<int64_t>();
  }
  auto outsIt = node.find("outputs");
  if (outsIt == node.end() || !outsIt->is_array() || outsIt->size() != 1 || !(*outsIt)[0].contains("as_tensor"))
    throw fail("expects one tensor output");
  std::string out = (*outsIt)[0]["as_tensor"].value("name", "");
  std::string outText = metaOf(out), selfText = metaOf((*self)["as_tensor"].value("name", ""));
  if (outText.empty() || selfText.empty()) throw fail("no metadata for its input or output");
  json outMeta = json::parse(outText), selfMeta = json::parse(selfText);
  auto selfSizes = sizesOf(selfMeta);
  if (selfSizes.size() != 1) throw fail("self must be 1-d, as bincount requires");
  int64_t outDtype = outMeta.at("dtype").get<int64_t>();

  Writer w(node);
  std::vector<std::optional<int64_t>> padded = {selfSizes[0] ? std::optional<int64_t>(*selfSizes[0] + 1) : std::nullopt};
  std::string x = w.tensor("_to_copy.default", json::array({inputArg("self", *self), inputArg("dtype", {{"as_scalar_type", kLong}})}),
                           metaLike(selfMeta, selfSizes, kLong));
  std::string p = w.tensor("constant_pad_nd.default",
                           json::array({inputArg("self", tensorRef(x)), inputArg("pad", {{"as_ints", {0, 1}}}),
                                        inputArg("value", {{"as_int", -1}})}),
                           metaLike(selfMeta, padded, kLong));
  std::string m = w.tensor("amax.default", json::array({inputArg("self", tensorRef(p)), inputArg("dim", {{"as_ints", {0}}}),
                                                        inputArg("keepdim", {{"as_bool", false}})}),
                           metaLike(selfMeta, {}, kLong));
  std::string c = w.tensor("add.Tensor", json::array({inputArg("self", tensorRef(m)), inputArg("other", {{"as_int", 1}})}),
                           metaLike(selfMeta, {}, kLong));
  if (minlength > 0)
    c = w.tensor("clamp_min.default", json::array({inputArg("self", tensorRef(c)), inputArg("min", {{"as_int", minlength}})}),
                 metaLike(selfMeta, {}, kLong));
  json n = w.item(c);
  std::string z = w.tensor("zeros.default",
                           json::array({inputArg("size", {{"as_sym_ints", json::array({n["as_sym_int"]})}}),
                                        inputArg("dtype", {{"as_scalar_type", outDtype}})}),
                           metaLike(outMeta, {std::nullopt}, outDtype));
  std::string v;
  if (hasWeights)
    v = w.tensor("_to_copy.default", json::array({inputArg("self", *weights), inputArg("dtype", {{"as_scalar_type", outDtype}})}),
                 metaLike(outMeta, selfSizes, outDtype));
  else
    v = w.tensor("ones_like.default", json::array({inputArg("self", tensorRef(x)), inputArg("dtype", {{"as_scalar_type", outDtype}})}),
                 metaLike(outMeta, selfSizes, outDtype));
  w.tensor("index_put.default",
           json::array({inputArg("self", tensorRef(z)),
                        inputArg("indices", {{"as_optional_tensors", json::array({tensorRef(x)})}}),
                        inputArg("values", tensorRef(v)), inputArg("accumulate", {{"as_bool", true}})}),
           outMeta, out);
  return w.done("aten::bincount");
}

/// unique_consecutive(self, return_inverse, return_counts, dim=None): over self flattened,
///   starts   = (f != roll(f, 1)) | (arange(N) == 0)       (a new run begins)
///   values   = masked_select(f, starts)
///   inverse  = (cumsum(starts) - 1) in self's shape      (when asked for; else empty)
///   counts   = end - start + 1 per run, the ends marked by the starts rolled left by one
///              (when asked for; else empty).
/// With a dim, no expansion.
std::optional<Expansion> expandUniqueConsecutive(const json &node, const MetaLookup &metaOf, const char *target) {
  std::string name = node.value("name", "node");
  auto fail = [&](const std::string &why) -> Error {
    return Error("kiln: node '" + name + "' (" + std::string(target) + "): " + why);
  };
  const json *self = input(node, "self");
  if (!self || !self->contains("as_tensor")) throw fail("expects the tensor self");
  if (const json *d = input(node, "dim"))
    if (!d->contains("as_none")) return std::nullopt;
  auto flag = [&](const char *k) {
    const json *a = input(node, k);
    return a && a->contains("as_bool") && (*a)["as_bool"].get<bool>();
  };
  bool wantInverse = flag("return_inverse"), wantCounts = flag("return_counts");
  auto outsIt = node.find("outputs");
  if (outsIt == node.end() || !outsIt->is_array() || outsIt->size() != 3)
    throw fail("expects three tensor outputs");
  std::vector<std::string> outs;
  std::vector<json> outMetas;
  for (const json &o : *outsIt) {
    if (!o.contains("as_tensor")) throw fail("expects three tensor outputs");
    outs.push_back(o["as_tensor"].value("name", ""));
    std::string text = metaOf(outs.back());
    if (text.empty()) throw fail("no metadata for output '" + outs.back() + "'");
    outMetas.push_back(json::parse(text));
  }
  std::string selfText = metaOf((*self)["as_tensor"].value("name", ""));
  if (selfText.empty()) throw fail("no metadata for self");
  json selfMeta = json::parse(selfText);
  auto selfSizes = sizesOf(selfMeta);
  std::vector<std::optional<int64_t>> flat = {numel(selfSizes)};
  int64_t dtype = selfMeta.at("dtype").get<int64_t>();

  Writer w(node);
  std::string f = w.tensor("reshape.default", json::array({inputArg("self", *self), inputArg("shape", {{"as_ints", {-1}}})}),
                           metaLike(selfMeta, flat, dtype));
  std::string r = w.tensor("roll.default", json::array({inputArg("self", tensorRef(f)), inputArg("shifts", {{"as_ints", {1}}}),
                                                        inputArg("dims", {{"as_ints", {0}}})}),
                           metaLike(selfMeta, flat, dtype));
  std::string ne = w.tensor("ne.Tensor", json::array({inputArg("self", tensorRef(f)), inputArg("other", tensorRef(r))}),
                            metaLike(selfMeta, flat, kBoolCode));
  json n = flat[0] ? json{{"as_int", *flat[0]}} : json();
  if (!flat[0]) {
    std::string s = name + "__ddnumel";
    w.nodes.push_back({{"target", "torch.ops.aten.sym_numel.default"}, {"name", s}, {"metadata", w.metadata},
                       {"inputs", json::array({inputArg("self", *self)})},
                       {"outputs", json::array({{{"as_sym_int", {{"as_name", s}}}}})}});
    n = {{"as_sym_int", {{"as_name", s}}}};
  }
  std::string pos = w.tensor("arange.start", json::array({inputArg("start", {{"as_int", 0}}), inputArg("end", n),
                                                          inputArg("dtype", {{"as_scalar_type", kLong}})}),
                             metaLike(selfMeta, flat, kLong));
  std::string first = w.tensor("eq.Scalar", json::array({inputArg("self", tensorRef(pos)), inputArg("other", {{"as_int", 0}})}),
                               metaLike(selfMeta, flat, kBoolCode));
  std::string starts = w.tensor("logical_or.default", json::array({inputArg("self", tensorRef(ne)), inputArg("other", tensorRef(first))}),
                                metaLike(selfMeta, flat, kBoolCode));
  w.tensor("masked_select.default", json::array({inputArg("self", tensorRef(f)), inputArg("mask", tensorRef(starts))}),
           outMetas[0], outs[0]);
  auto empty = [&](int k) {
    int64_t dt = outMetas[k].at("dtype").get<int64_t>();
    w.tensor("zeros.default", json::array({inputArg("size", {{"as_ints", {0}}}), inputArg("dtype", {{"as_scalar_type", dt}})}),
             outMetas[k], outs[k]);
  };
  if (wantInverse) {
    std::string cs = w.tensor("cumsum.default", json::array({inputArg("self", tensorRef(starts)), inputArg("dim", {{"as_int", 0}}),
                                                             inputArg("dtype", {{"as_scalar_type", kLong}})}),
                              metaLike(selfMeta, flat, kLong));
    std::string d = w.tensor("sub.Tensor", json::array({inputArg("self", tensorRef(cs)), inputArg("other", {{"as_int", 1}})}),
                             metaLike(selfMeta, flat, kLong));
    json shape = json::array();
    for (auto s : selfSizes) shape.push_back(s ? *s : -1);
    if (std::count(selfSizes.begin(), selfSizes.end(), std::nullopt) > 1)
      return std::nullopt; // more than one symbolic dim: no view of the flat positions
    w.tensor("reshape.default", json::array({inputArg("self", tensorRef(d)), inputArg("shape", {{"as_ints", shape}})}),
             outMetas[1], outs[1]);
  } else {
    empty(1);
  }
  if (wantCounts) {
    std::string nz = w.tensor("nonzero.default", json::array({inputArg("self", tensorRef(starts))}),
                              metaLike(selfMeta, {std::nullopt, 1}, kLong));
    std::string at = w.tensor("squeeze.dim", json::array({inputArg("self", tensorRef(nz)), inputArg("dim", {{"as_int", 1}})}),
                              metaLike(selfMeta, {std::nullopt}, kLong));
    // A run ends where the next one starts; starts[0] is true, so rolled left by one the
    // starts also mark the last element.
    std::string rs = w.tensor("roll.default", json::array({inputArg("self", tensorRef(starts)), inputArg("shifts", {{"as_ints", {-1}}}),
                                                           inputArg("dims", {{"as_ints", {0}}})}),
                              metaLike(selfMeta, flat, kBoolCode));
    std::string nz2 = w.tensor("nonzero.default", json::array({inputArg("self", tensorRef(rs))}),
                               metaLike(selfMeta, {std::nullopt, 1}, kLong));
    std::string ends = w.tensor("squeeze.dim", json::array({inputArg("self", tensorRef(nz2)), inputArg("dim", {{"as_int", 1}})}),
                                metaLike(selfMeta, {std::nullopt}, kLong));
    std::string len = w.tensor("sub.Tensor", json::array({inputArg("self", tensorRef(ends)), inputArg("other", tensorRef(at))}),
                               metaLike(selfMeta, {std::nullopt}, kLong));
    w.tensor("add.Tensor", json::array({inputArg("self", tensorRef(len)), inputArg("other", {{"as_int", 1}})}),
             outMetas[2], outs[2]);
  } else {
    empty(2);
  }
  return w.done("aten::unique_consecutive");
}

} // namespace

bool isDataDependentTarget(const std::string &target) {
  return target == kTensorSplit || target == kBincount || target == kUniqueConsecutive;
}

std::optional<Expansion> expandDataDependent(const json &node, const MetaLookup &metaOf) {
  std::string target = node.value("target", "");
  if (target == kTensorSplit) return expandTensorSplit(node, metaOf);
  if (target == kBincount) return expandBincount(node, metaOf, kBincount);
  if (target == kUniqueConsecutive) return expandUniqueConsecutive(node, metaOf, kUniqueConsecutive);
  return std::nullopt;
}

} // namespace kiln::decomp
