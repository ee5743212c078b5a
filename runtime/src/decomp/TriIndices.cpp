// kiln runtime — tril_indices and triu_indices as ATen nodes (for expand()).
//
// PyTorch lists the (row, col) positions of a row x col matrix's lower triangle (c - r <=
// offset) or upper triangle (c - r >= offset) in row-major order, as a 2 x N tensor. All
// arguments are integers, so N and the triangle's shape are known here; the positions are
// computed from arange(N) in float64 (exact below 2^52), as PyTorch's own reference does:
//  - the lower triangle is a trapezoid of rows whose lengths grow by one, from m (its first
//    row's length) to at most col, then a rectangle of full rows. Position x of the
//    trapezoid is in its row k = floor(-b + sqrt(b^2 + 2x)), b = m - 1/2 (the root of
//    k*m + k(k-1)/2 = x), column x - k(2m + k - 1)/2; position x of the rectangle (counted
//    from its start) in row x // col, column x % col;
//  - the upper triangle of (row, col, offset) is the lower one of (row, col,
//    col - row - offset) turned by 180 degrees: position x there is (row-1-r, col-1-c) of
//    the lower triangle's position N-1-x.
#include "TriIndices.h"

#include "NodeJson.h"
#include "kiln/ivalue.h"

#include <algorithm>

namespace kiln::decomp {

using json = nlohmann::json;

namespace {

const char *const kTril = "torch.ops.aten.tril_indices.default";
const char *const kTriu = "torch.ops.aten.triu_indices.default";
constexpr int64_t kLong = 5, kDouble = 8, kBoolCode = 12;

using nodejson::input;
using nodejson::inputArg;
using nodejson::tensorRef;

/// The lower triangle's shape, as PyTorch's get_tril_size counts it.
struct Tril {
  int64_t trapezoid = 0, rectangle = 0, firstRow = 0, trapezoidRows = 0;
};

Tril trilShape(int64_t row, int64_t col, int64_t offset) {
  Tril t;
  if (row == 0 || col == 0) return t;
  t.firstRow = offset > 0 ? std::min(col, 1 + offset) : (row + offset > 0 ? 1 : 0);
  int64_t lastRow = std::max<int64_t>(0, std::min(col, row + offset));
  int64_t allRows = std::max<int64_t>(0, std::min(row, row + offset));
  t.trapezoidRows = lastRow - t.firstRow + 1;
  t.trapezoid = (t.firstRow + lastRow) * t.trapezoidRows / 2;
  t.rectangle = std::max<int64_t>(0, (allRows - t.trapezoidRows) * col);
  return t;
}

} // namespace

bool isTriIndicesTarget(const std::string &target) { return target == kTril || target == kTriu; }

std::optional<Expansion> expandTriIndices(const json &node, const MetaLookup &metaOf) {
  std::string target = node.value("target", "");
  bool upper = target == kTriu;
  std::string name = node.value("name", "node");
  auto fail = [&](const std::string &why) -> Error {
    return Error("kiln: node '" + name + "' (" + target + "): " + why);
  };
  auto intArg = [&](const char *arg, std::optional<int64_t> dflt) -> int64_t {
    const json *a = input(node, arg);
    if (a && a->contains("as_int")) return (*a)["as_int"].get<int64_t>();
    if (!a && dflt) return *dflt;
    throw fail(std::string("expects an integer ") + arg + " (a symbolic one is not supported)");
  };
  int64_t row = intArg("row", std::nullopt), col = intArg("col", std::nullopt), offset = intArg("offset", 0);
  if (row < 0 || col < 0) throw fail("row and col must be non-negative");
  // Positions are computed in float64, exact below 2^52, and a side below 2^31 keeps every
  // count below (row + 1) * (col + 1) < 2^62 in int64.
  constexpr int64_t kMaxSide = (int64_t(1) << 31) - 1;
  if (row > kMaxSide || col > kMaxSide)
    throw fail("row " + std::to_string(row) + " x col " + std::to_string(col) + " is too large (each at most 2^31 - 1)");
  // Beyond [-row, col] the offset selects every position or none, as at those bounds, for
  // both triangles; clamping keeps offset arithmetic from overflowing.
  offset = std::clamp(offset, -row, col);
  auto outsIt = node.find("outputs");
  if (outsIt == node.end() || !outsIt->is_array() || outsIt->size() != 1 || !(*outsIt)[0].contains("as_tensor"))
    throw fail("expects one tensor output");
  std::string out = (*outsIt)[0]["as_tensor"].value("name", "");
  std::string outMetaText = metaOf(out);
  if (outMetaText.empty()) throw fail("no metadata for its output");
  json outMeta = json::parse(outMetaText);
  int64_t dtype = outMeta.value("dtype", kLong);

  Tril t = trilShape(row, col, upper ? col - row - offset : offset);
  int64_t n = t.trapezoid + t.rectangle;
  if (n >= (int64_t(1) << 52))
    throw fail(std::to_string(n) + " positions are more than float64 counts exactly (2^52)");
  const json &sizes = outMeta.at("sizes");
  if (sizes.size() != 2 || !sizes[1].contains("as_int") || sizes[1]["as_int"].get<int64_t>() != n)
    throw fail("its output is not 2 x " + std::to_string(n) + " as the triangle's size says");

  json nodes = json::array(), values = json::object();
  json metadata = node.contains("metadata") ? node["metadata"] : json::object();
  int counter = 0;
  auto vecMeta = [&](int64_t code) {
    json m = outMeta;
    m["dtype"] = code;
    m["sizes"] = json::array({{{"as_int", n}}});
    m["strides"] = json::array({{{"as_int", 1}}});
    return m;
  };
  auto emit = [&](const std::string &op, json inputs, int64_t code = kDouble) {
    std::string v = name + "__tri" + std::to_string(counter++);
    nodes.push_back({{"target", "torch.ops.aten." + op}, {"name", v}, {"metadata", metadata},
                     {"inputs", std::move(inputs)}, {"outputs", json::array({tensorRef(v)})}});
    values[v] = vecMeta(code);
    return v;
  };
  auto binary = [&](const std::string &op, const std::string &a, double s) {
    return emit(op, json::array({inputArg("self", tensorRef(a)), inputArg("other", {{"as_float", s}})}));
  };
  auto unary = [&](const std::string &op, const std::string &a) {
    return emit(op, json::array({inputArg("self", tensorRef(a))}));
  };
  // a * s + c, for the reflections (c - a) and the offsets.
  auto affine = [&](const std::string &a, double s, double c) { return binary("add.Tensor", binary("mul.Tensor", a, s), c); };

  std::string x = emit("arange.default", json::array({inputArg("end", {{"as_int", n}}),
                                                      inputArg("dtype", {{"as_scalar_type", kDouble}})}));
  if (upper) x = affine(x, -1.0, (double)(n - 1));
  double m = (double)t.firstRow, b = m - 0.5;
  std::string k = unary("floor.default",
                        binary("add.Tensor", unary("sqrt.default", affine(x, 2.0, b * b)), -b));
  // column x - k(2m + k - 1)/2: k(2m + k - 1) is even, so this is exact.
  std::string used = emit("mul.Tensor", json::array({inputArg("self", tensorRef(binary("add.Tensor", k, 2 * m - 1))),
                                                     inputArg("other", tensorRef(k))}));
  std::string c = emit("add.Tensor", json::array({inputArg("self", tensorRef(x)),
                                                  inputArg("other", tensorRef(binary("mul.Tensor", used, -0.5)))}));
  if (t.rectangle > 0) {
    std::string x2 = binary("add.Tensor", x, -(double)t.trapezoid);
    std::string q = unary("floor.default", binary("div.Tensor", x2, (double)col));
    std::string rr = binary("add.Tensor", q, (double)t.trapezoidRows);
    std::string rc = emit("add.Tensor", json::array({inputArg("self", tensorRef(x2)),
                                                     inputArg("other", tensorRef(binary("mul.Tensor", q, -(double)col)))}));
    std::string inTrapezoid = emit("lt.Scalar", json::array({inputArg("self", tensorRef(x)),
                                                             inputArg("other", {{"as_float", (double)t.trapezoid}})}),
                                   kBoolCode);
    auto pick = [&](const std::string &a, const std::string &r) {
      return emit("where.self", json::array({inputArg("condition", tensorRef(inTrapezoid)),
                                             inputArg("self", tensorRef(a)), inputArg("other", tensorRef(r))}));
    };
    k = pick(k, rr);
    c = pick(c, rc);
  }
  std::string r = binary("add.Tensor", k, (double)std::max<int64_t>(0, upper ? row + offset - col : -offset));
  if (upper) {
    r = affine(r, -1.0, (double)(row - 1));
    c = affine(c, -1.0, (double)(col - 1));
  }
  auto convert = [&](const std::string &a) {
    return emit("_to_copy.default",
                json::array({inputArg("self", tensorRef(a)), inputArg("dtype", {{"as_scalar_type", dtype}})}), dtype);
  };
  std::string ri = convert(r), ci = convert(c);
  nodes.push_back({{"target", "torch.ops.aten.stack.default"}, {"name", out}, {"metadata", metadata},
                   {"inputs", json::array({inputArg("tensors", {{"as_tensors", json::array({{{"name", ri}}, {{"name", ci}}})}}),
                                           inputArg("dim", {{"as_int", 0}})})},
                   {"outputs", json::array({tensorRef(out)})}});
  Expansion e;
  e.nodes = nodes.dump();
  e.tensorValues = values.dump();
  e.rule = std::string(upper ? "aten::triu_indices" : "aten::tril_indices") + " (factories, TriIndices.cpp)";
  return e;
}

} // namespace kiln::decomp
