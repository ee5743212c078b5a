// Tests of the composite-op decomposition table (kiln/decompose.h) and of the
// eager interpreter running what it expands.
#include "kiln/decompose.h"
#include "kiln/ivalue.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>

using namespace kiln;
using json = nlohmann::json;

namespace {
/// tensor_values for a graph: name -> (dtype code, sizes; -1 = the symbol s0).
std::map<std::string, json> metas(std::initializer_list<std::pair<const char *, std::vector<int64_t>>> vs,
                                  int dtype = 7) {
  std::map<std::string, json> m;
  for (auto &[name, sizes] : vs) {
    json s = json::array();
    for (int64_t d : sizes)
      s.push_back(d < 0 ? json{{"as_expr", {{"expr_str", "s0"}}}} : json{{"as_int", d}});
    m[name] = {{"dtype", dtype}, {"sizes", s}};
  }
  return m;
}

json node(const std::string &target, json inputs, std::vector<std::string> outs) {
  json n = {{"target", target}, {"name", "n"}, {"inputs", json::array()}, {"outputs", json::array()},
            {"metadata", {{"stack_trace", "File \"model.py\", line 7, in forward\n    y = f(x)"}}}};
  for (auto &[k, v] : inputs.items()) n["inputs"].push_back({{"name", k}, {"arg", v}, {"kind", 1}});
  for (auto &o : outs) n["outputs"].push_back({{"as_tensor", {{"name", o}}}});
  return n;
}

json tensorArg(const char *name) { return {{"as_tensor", {{"name", name}}}}; }

std::optional<decomp::Expansion> expandWith(const json &n, const std::map<std::string, json> &tv) {
  return decomp::expand(n.dump(), [&](const std::string &name) {
    auto it = tv.find(name);
    return it == tv.end() ? std::string() : it->second.dump();
  });
}
} // namespace

TEST(Decompose, TableParsesAndListsItsOps) {
  std::vector<std::string> ops = decomp::decomposedOps();
  EXPECT_GT(ops.size(), 20u);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "aten::layer_norm"), ops.end());
  EXPECT_TRUE(decomp::hasRule("torch.ops.aten.logaddexp.default"));
  EXPECT_FALSE(decomp::hasRule("torch.ops.aten.add.Tensor"));
}

TEST(Decompose, ElementwiseKeepsDynamicDimsAndTheUsersLine) {
  auto tv = metas({{"x", {-1, 4}}, {"y", {1, 4}}, {"out", {-1, 4}}});
  json n = node("torch.ops.aten.logaddexp.default", {{"self", tensorArg("x")}, {"other", tensorArg("y")}},
                {"out"});
  auto e = expandWith(n, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes), values = json::parse(e->tensorValues);
  ASSERT_GT(nodes.size(), 3u);
  // The last node writes the original output name; every node keeps the stack trace.
  EXPECT_EQ(nodes.back()["outputs"][0]["as_tensor"]["name"], "out");
  for (const json &s : nodes)
    EXPECT_EQ(s["metadata"]["stack_trace"], n["metadata"]["stack_trace"]);
  // Intermediates: broadcast [s0, 4] x [1, 4] -> [s0, 4], the symbol kept.
  for (auto &[name, meta] : values.items()) {
    ASSERT_EQ(meta["sizes"].size(), 2u) << name;
    EXPECT_TRUE(meta["sizes"][0].contains("as_expr")) << name;
    EXPECT_EQ(meta["sizes"][1]["as_int"], 4) << name;
  }
}

TEST(Decompose, SizesOfADynamicTensorAreReadAtRunTime) {
  auto tv = metas({{"x", {1, 4}}, {"y", {-1, 4}}, {"out", {-1, 4}}});
  json n = node("torch.ops.aten.expand_as.default", {{"self", tensorArg("x")}, {"other", tensorArg("y")}},
                {"out"});
  auto e = expandWith(n, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]["target"], "torch.ops.aten.sym_size.int");
  EXPECT_EQ(nodes[1]["target"], "torch.ops.aten.expand.default");
  json size = nodes[1]["inputs"][1]["arg"];
  ASSERT_TRUE(size.contains("as_sym_ints")) << size.dump();
  EXPECT_EQ(size["as_sym_ints"][0]["as_name"], nodes[0]["outputs"][0]["as_sym_int"]["as_name"]);
  EXPECT_EQ(size["as_sym_ints"][1]["as_int"], 4);
}

TEST(Decompose, ConditionsPickTheRuleAndDefaultsFillArguments) {
  auto tv = metas({{"x", {2, 3}}, {"out", {2, 3}}});
  // softmax.int without a dtype: _softmax; with one: a cast first.
  json plain = node("torch.ops.aten.softmax.int", {{"self", tensorArg("x")}, {"dim", {{"as_int", 1}}}}, {"out"});
  auto e = expandWith(plain, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0]["target"], "torch.ops.aten._softmax.default");
  json cast = node("torch.ops.aten.softmax.int",
                   {{"self", tensorArg("x")}, {"dim", {{"as_int", 1}}}, {"dtype", {{"as_scalar_type", 8}}}},
                   {"out"});
  e = expandWith(cast, tv);
  ASSERT_TRUE(e);
  nodes = json::parse(e->nodes);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]["target"], "torch.ops.aten._to_copy.default");
  EXPECT_EQ(json::parse(e->tensorValues).begin().value()["dtype"], 8);
  // An integer input: logaddexp's rule is for floating inputs only.
  auto ints = metas({{"x", {2}}, {"y", {2}}, {"out", {2}}}, /*int64=*/5);
  EXPECT_FALSE(expandWith(node("torch.ops.aten.logaddexp.default",
                               {{"self", tensorArg("x")}, {"other", tensorArg("y")}}, {"out"}),
                          ints));
}

TEST(Decompose, ANodeThatDoesNotFitItsRuleIsAClearError) {
  auto tv = metas({{"x", {2, 3}}, {"out", {2, 3}}});
  json n = node("torch.ops.aten.log_sigmoid.default", {{"input", tensorArg("x")}}, {"out"});
  try {
    expandWith(n, tv);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("has no argument 'input'"), std::string::npos) << e.what();
  }
}

TEST(Decompose, OthersListsEveryDimButOneForAnyRank) {
  // _weight_norm over a rank-6 weight, normalised per index of dim -2 (dim 4):
  // the sum runs over dims 0-3 and 5, whatever the rank.
  auto tv = metas({{"v", {2, 3, 1, 2, 5, 4}}, {"g", {1, 1, 1, 1, 5, 1}}, {"out", {2, 3, 1, 2, 5, 4}}});
  json n = node("torch.ops.aten._weight_norm.default",
                {{"v", tensorArg("v")}, {"g", tensorArg("g")}, {"dim", {{"as_int", -2}}}}, {"out"});
  auto e = expandWith(n, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes), values = json::parse(e->tensorValues);
  auto sum = std::find_if(nodes.begin(), nodes.end(),
                          [](const json &s) { return s["target"] == "torch.ops.aten.sum.dim_IntList"; });
  ASSERT_NE(sum, nodes.end());
  EXPECT_EQ((*sum)["inputs"][1]["arg"]["as_ints"], json::array({0, 1, 2, 3, 5}));
  // Its result keeps the reduced dims as 1s: [1, 1, 1, 1, 5, 1].
  std::string s = (*sum)["outputs"][0]["as_tensor"]["name"];
  json sizes = json::array();
  for (const json &d : values[s]["sizes"]) sizes.push_back(d["as_int"]);
  EXPECT_EQ(sizes, json::array({1, 1, 1, 1, 5, 1}));
  // A dim outside the tensor's rank is a clear error naming it.
  json bad = node("torch.ops.aten._weight_norm.default",
                  {{"v", tensorArg("v")}, {"g", tensorArg("g")}, {"dim", {{"as_int", 6}}}}, {"out"});
  try {
    expandWith(bad, tv);
    FAIL() << "expected an error";
  } catch (const Error &err) {
    EXPECT_NE(std::string(err.what()).find("dim 6 is out of range for a rank-6 tensor"), std::string::npos)
        << err.what();
  }
}

// A rule that returns its input as is, given an input whose "as_tensor" has no
// "name" (an input fuzz-pt2-import found): the expansion reads the name with a
// check, where it once read past the end of the JSON object's map (a
// heap-buffer-overflow under ASan, arbitrary data otherwise).
TEST(Decompose, AReturnedInputWithoutANameIsReadSafely) {
  auto tv = metas({{"x", {2, 3}}, {"out", {2, 3}}});
  json nameless = {{"as_tensor", {{"nam", "x"}}}};
  auto e = expandWith(node("torch.ops.aten.positive.default", {{"self", nameless}}, {"out"}), tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes);
  ASSERT_EQ(nodes.size(), 1u);
  // The input is passed on unchanged, for the importer to reject with its own error.
  EXPECT_EQ(nodes[0]["target"], "torch.ops.aten.clone.default");
  EXPECT_EQ(nodes[0]["inputs"][0]["arg"], nameless);
  EXPECT_EQ(nodes[0]["outputs"][0]["as_tensor"]["name"], "out");
}

// tril_indices / triu_indices with offsets at the ends of int64 (an input
// fuzz-pt2-import found: `1 + offset` overflowed, undefined behaviour that
// UBSan reports in the sanitizer job). Beyond [-row, col] an offset selects
// every position or none, as PyTorch counts them, and sides too large for
// exact float64 positions are a clear error.
TEST(Decompose, TriangleIndicesTakeAnyOffsetWithoutOverflow) {
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  auto tri = [](const char *op, int64_t row, int64_t col, int64_t offset) {
    return node(std::string("torch.ops.aten.") + op + ".default",
                {{"row", {{"as_int", row}}}, {"col", {{"as_int", col}}}, {"offset", {{"as_int", offset}}}}, {"out"});
  };
  auto outOf = [](int64_t n) { return metas({{"out", {2, n}}}, 5); };
  // Every position of a 4 x 6 matrix, or none; a mismatch in the claimed size is an error.
  EXPECT_TRUE(expandWith(tri("tril_indices", 4, 6, kMax), outOf(24)));
  EXPECT_TRUE(expandWith(tri("tril_indices", 4, 6, kMin), outOf(0)));
  EXPECT_TRUE(expandWith(tri("triu_indices", 4, 6, kMin), outOf(24)));
  EXPECT_TRUE(expandWith(tri("triu_indices", 4, 6, kMax), outOf(0)));
  EXPECT_THROW(expandWith(tri("tril_indices", 4, 6, kMax), outOf(23)), Error);
  try {
    expandWith(tri("tril_indices", int64_t(1) << 40, 6, 0), outOf(6));
    FAIL() << "a side of 2^40 was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
  }
}

TEST(Decompose, TensorSplitByATensorReadsEachIndexAndSlices) {
  auto tv = metas({{"x", {5, 5}}, {"a", {-1, 5}}, {"b", {-1, 5}}, {"c", {-1, 5}}});
  tv["i"] = {{"dtype", 5}, {"sizes", json::array({json{{"as_int", 2}}})}};
  json n = node("torch.ops.aten.tensor_split.tensor_indices_or_sections",
                {{"self", tensorArg("x")}, {"tensor_indices_or_sections", tensorArg("i")}, {"dim", {{"as_int", 1}}}}, {});
  n["outputs"] = json::array({{{"as_tensors", json::array({{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}})}}});
  auto e = expandWith(n, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes);
  std::vector<std::string> targets;
  for (const json &m : nodes) targets.push_back(m["target"]);
  // Two indices: select + item each, then three slices along dim 1.
  ASSERT_EQ(targets.size(), 7u);
  EXPECT_EQ(targets[0], "torch.ops.aten.select.int");
  EXPECT_EQ(targets[1], "torch.ops.aten._local_scalar_dense.default");
  EXPECT_EQ(targets[4], "torch.ops.aten.slice.Tensor");
  const json &middle = nodes[5];
  EXPECT_EQ(middle["outputs"][0]["as_tensor"]["name"], "b");
  for (const json &in : middle["inputs"]) {
    if (in["name"] == "dim") EXPECT_EQ(in["arg"]["as_int"], 1);
    if (in["name"] == "start") EXPECT_EQ(in["arg"]["as_sym_int"]["as_name"], nodes[1]["name"]);
    if (in["name"] == "end") EXPECT_EQ(in["arg"]["as_sym_int"]["as_name"], nodes[3]["name"]);
  }
  // A count of sections (a 0-d tensor) has no expansion.
  tv["i"]["sizes"] = json::array();
  n["outputs"] = json::array({{{"as_tensors", json::array({{{"name", "a"}}})}}});
  EXPECT_FALSE(expandWith(n, tv));
}

TEST(Decompose, BincountSizeIsReadFromTheData) {
  auto tv = metas({{"x", {6}}}, 5);
  tv["out"] = {{"dtype", 5}, {"sizes", json::array({json{{"as_expr", {{"expr_str", "u0"}}}}})}};
  json n = node("torch.ops.aten.bincount.default", {{"self", tensorArg("x")}, {"minlength", {{"as_int", 3}}}}, {"out"});
  auto e = expandWith(n, tv);
  ASSERT_TRUE(e);
  json nodes = json::parse(e->nodes);
  std::vector<std::string> targets;
  for (const json &m : nodes) targets.push_back(m["target"]);
  EXPECT_NE(std::find(targets.begin(), targets.end(), "torch.ops.aten.clamp_min.default"), targets.end());
  EXPECT_NE(std::find(targets.begin(), targets.end(), "torch.ops.aten._local_scalar_dense.default"), targets.end());
  EXPECT_EQ(targets.back(), "torch.ops.aten.index_put.default");
  EXPECT_EQ(nodes.back()["outputs"][0]["as_tensor"]["name"], "out");
  // The zeros take the size read: a SymInt.
  for (const json &m : nodes)
    if (m["target"] == "torch.ops.aten.zeros.default")
      EXPECT_TRUE(m["inputs"][0]["arg"]["as_sym_ints"][0].contains("as_name"));
}
