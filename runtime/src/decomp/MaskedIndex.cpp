// kiln runtime — composites over index lists the rule table cannot write (each list element
// treated by its own dim): _unsafe_masked_index and _unsafe_masked_index_put_accumulate.
//
// PyTorch (torch/_decomp) clamps each index tensor of the `Tensor?[]` list into its dim's
// range [-size, size - 1], so that the masked-out positions (whose indices may be anything)
// read or write in bounds, then
//   _unsafe_masked_index(x, mask, indices, fill)      = where(mask, x[indices], fill)
//   _unsafe_masked_index_put_accumulate(x, mask, indices, values)
//                                                     = index_put(x, indices, where(mask, values, 0), accumulate)
// The expansion is in torch.export's node format, like the table's (Expander.cpp), so the
// compiler and the eager interpreter run it alike. An indexed dim that is symbolic is left to
// the caller's "no rule" path (kiln would need its size at run time as a clamp bound).
#include "MaskedIndex.h"
#include "NodeJson.h"

#include "kiln/ivalue.h"

#include "../loader/Json.h"

namespace kiln::decomp {

using json = nlohmann::json;

namespace {

const char *const kIndex = "torch.ops.aten._unsafe_masked_index.default";
const char *const kPut = "torch.ops.aten._unsafe_masked_index_put_accumulate.default";

using nodejson::input;
using nodejson::inputArg;
using nodejson::tensorRef;

} // namespace

bool isMaskedIndexTarget(const std::string &target) { return target == kIndex || target == kPut; }

std::optional<Expansion> expandMaskedIndex(const json &node, const MetaLookup &metaOf) {
  std::string target = node.value("target", "");
  bool put = target == kPut;
  std::string name = node.value("name", "node");
  auto fail = [&](const std::string &why) -> Error {
    return Error("kiln: node '" + name + "' (" + target + "): " + why);
  };
  const json *self = input(node, "self"), *mask = input(node, "mask"), *indices = input(node, "indices");
  const json *last = input(node, put ? "values" : "fill");
  if (!self || !self->contains("as_tensor") || !mask || !mask->contains("as_tensor") || !indices || !last)
    throw fail("expects self, mask, indices and " + std::string(put ? "values" : "fill"));
  auto outsIt = node.find("outputs");
  if (outsIt == node.end() || !outsIt->is_array()) throw fail("expects one tensor output");
  const json &outs = *outsIt;
  if (outs.size() != 1 || !outs[0].contains("as_tensor")) throw fail("expects one tensor output");
  std::string out = outs[0]["as_tensor"].value("name", "");
  auto meta = [&](const json &ref) {
    std::string text = metaOf(ref["as_tensor"].value("name", ""));
    if (text.empty()) throw fail("no metadata for '" + ref["as_tensor"].value("name", "") + "'");
    return json::parse(text);
  };
  json selfMeta = meta(*self);
  const json &sizes = selfMeta.at("sizes");
  const json *list = indices->contains("as_optional_tensors") ? &(*indices)["as_optional_tensors"]
                     : indices->contains("as_tensors")        ? &(*indices)["as_tensors"]
                                                               : nullptr;
  if (!list) throw fail("indices is not a list of tensors");
  if (list->size() > sizes.size()) throw fail("more indices than self has dims");

  json nodes = json::array(), values = json::object();
  json metadata = node.contains("metadata") ? node["metadata"] : json::object();
  int counter = 0;
  auto emit = [&](const std::string &op, json inputs, const json &m, const std::string &as = "") {
    std::string n = as.empty() ? name + "__mi" + std::to_string(counter++) : as;
    nodes.push_back({{"target", "torch.ops.aten." + op}, {"name", n}, {"metadata", metadata},
                     {"inputs", std::move(inputs)}, {"outputs", json::array({tensorRef(n)})}});
    if (as.empty()) values[n] = m;
    return n;
  };
  // Each index clamped into its dim's range; None stays None.
  json clamped = json::array();
  for (size_t k = 0; k < list->size(); ++k) {
    const json &e = (*list)[k];
    json ref = e.contains("as_tensor") ? tensorRef(e["as_tensor"].value("name", ""))
               : e.contains("name")    ? tensorRef(e.value("name", ""))
                                       : json();
    if (ref.is_null()) {
      clamped.push_back({{"as_none", true}});
      continue;
    }
    if (!sizes[k].contains("as_int")) return std::nullopt; // a symbolic bound: no expansion
    int64_t size = sizes[k]["as_int"].get<int64_t>();
    std::string c = emit("clamp.default",
                         json::array({inputArg("self", ref), inputArg("min", {{"as_int", -size}}),
                                      inputArg("max", {{"as_int", size - 1}})}),
                         meta(ref));
    clamped.push_back(tensorRef(c));
  }
  json indexList = {{"as_optional_tensors", clamped}};
  auto scalarTensor = [&](const json &value, const json &like) {
    json m = like;
    m["sizes"] = json::array();
    m["strides"] = json::array();
    return emit("scalar_tensor.default",
                json::array({inputArg("s", value), inputArg("dtype", {{"as_scalar_type", like.at("dtype")}})}), m);
  };
  if (!put) {
    std::string outMetaText = metaOf(out);
    if (outMetaText.empty()) throw fail("no metadata for its output");
    json outMeta = json::parse(outMetaText);
    std::string r = emit("index.Tensor", json::array({inputArg("self", *self), inputArg("indices", indexList)}),
                         outMeta);
    std::string f = scalarTensor(*last, selfMeta);
    emit("where.self", json::array({inputArg("condition", *mask), inputArg("self", tensorRef(r)),
                                    inputArg("other", tensorRef(f))}),
         outMeta, out);
  } else {
    if (!last->contains("as_tensor")) throw fail("values is not a tensor");
    json valuesMeta = meta(*last);
    std::string z = scalarTensor({{"as_int", 0}}, valuesMeta);
    std::string v = emit("where.self", json::array({inputArg("condition", *mask), inputArg("self", *last),
                                                    inputArg("other", tensorRef(z))}),
                         valuesMeta);
    emit("index_put.default",
         json::array({inputArg("self", *self), inputArg("indices", indexList), inputArg("values", tensorRef(v)),
                      inputArg("accumulate", {{"as_bool", true}})}),
         selfMeta, out);
  }
  Expansion e;
  e.nodes = nodes.dump();
  e.tensorValues = values.dump();
  e.rule = std::string(put ? "aten::_unsafe_masked_index_put_accumulate" : "aten::_unsafe_masked_index") +
           " (indexing, MaskedIndex.cpp)";
  return e;
}

} // namespace kiln::decomp
