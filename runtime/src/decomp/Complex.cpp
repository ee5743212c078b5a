// kiln runtime — complex tensors as real ones: a graph's complex64/complex128 values become float pairs.
//
// kiln's kernels, compiler and ABI know real dtypes only. A graph that uses
// complex values inside (rotary embeddings through view_as_complex, FFT
// mixing) is rewritten before the importer or the eager interpreter reads
// it: every complex value of sizes S becomes a real value of sizes S + [2]
// (real part, imaginary part: view_as_real's layout, which is also how a
// complex tensor's bytes lie), and every node that reads or writes one
// becomes real ATen nodes on those pairs. View and shape ops keep working
// on the pairs with their dims mapped (a complex tensor's last dim is the
// pair's second to last); products, quotients, abs, angle, exp, polar and
// conj are written out on the parts; FFTs (planned by FftPlan.cpp with
// PyTorch's semantics) are matrix products with the transform's twiddle
// factors (computed from integer k*n mod N, exact for any length). The
// subgraphs of higher-order ops are rewritten as graphs of their own. What
// the rewrite cannot do is an error naming the node.
#include "Complex.h"
#include "FftPlan.h"
#include "kiln/decompose.h"

#include "kiln/ivalue.h"

#include "../loader/SerdeChecks.h"

#include "../loader/Json.h"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::decomp {

using json = nlohmann::json;

namespace {

constexpr int kComplexHalf = 9, kComplexFloat = 10, kComplexDouble = 11, kFloat = 7, kDouble = 8, kLong = 5;

bool isComplexCode(int c) { return c == kComplexHalf || c == kComplexFloat || c == kComplexDouble; }

/// A tensor meta's dtype code; `fallback` where it has none or it is not an
/// int (a malformed archive: the readers after this rewrite say so).
int dtypeCodeOf(const json &meta, int fallback) {
  if (!meta.is_object()) return fallback;
  auto it = meta.find("dtype");
  if (it == meta.end() || !it->is_number_integer()) return fallback;
  int64_t v = it->get<int64_t>();
  return v >= 0 && v <= 64 ? (int)v : fallback;
}

json intArg(int64_t v) { return {{"as_int", v}}; }
json tensorArg(const std::string &n) { return {{"as_tensor", {{"name", n}}}}; }
json intsArg(const std::vector<int64_t> &v) { return {{"as_ints", v}}; }
json floatArg(double v) { return {{"as_float", v}}; }

/// A node's arguments in schema order (name, argument).
using Args = std::vector<std::pair<std::string, json>>;

/// The subgraphs a node takes (a higher-order op's bodies: set_grad_enabled,
/// autocast, cond branches, loop bodies): every `as_graph` argument's graph.
std::vector<json *> subgraphsOf(json &node) {
  std::vector<json *> subs;
  auto ins = node.find("inputs");
  if (ins == node.end() || !ins->is_array()) return subs;
  for (json &in : *ins) {
    if (!in.is_object() || !in.contains("arg") || !in["arg"].is_object()) continue;
    json &a = in["arg"];
    if (a.contains("as_graph") && a["as_graph"].is_object() && a["as_graph"].contains("graph"))
      subs.push_back(&a["as_graph"]["graph"]);
  }
  return subs;
}

class Rewriter {
public:
  /// `top`: the program's own graph (whose outputs must be real); a
  /// subgraph passes complex values to and from the node that calls it.
  Rewriter(json &graph, bool top) : g_(graph), tv_(graph["tensor_values"]), top_(top) {}

  bool run() {
    // Subgraphs first: each has its own values, rewritten as a graph of its
    // own; the op that calls it then passes the pairs through unchanged (a
    // subgraph's inputs and outputs map to the call's by position, and both
    // sides see the same complex dtypes).
    bool changed = false;
    for (json &node : g_["nodes"])
      for (json *sub : subgraphsOf(node))
        if (sub->is_object() && sub->contains("tensor_values") && sub->contains("nodes"))
          changed |= Rewriter(*sub, false).run();
    for (auto it = tv_.begin(); it != tv_.end(); ++it)
      if (isComplexCode(dtypeCodeOf(*it, 0))) {
        if ((*it)["dtype"] == kComplexHalf)
          throw Error("kiln: value '" + it.key() + "' is complex32, which kiln does not support");
        rank_[it.key()] = (int64_t)(*it)["sizes"].size();
      }
    bool ffts = false; // an FFT may have real values only (irfft of a real tensor)
    for (const json &node : g_["nodes"]) ffts |= isFftTarget(node.value("target", ""));
    if (rank_.empty() && !ffts) return changed;
    for (auto &kv : rank_) complexMetaToReal(tv_[kv.first]);
    json out = json::array();
    for (json &node : g_["nodes"]) {
      cur_ = &node;
      out_ = &out;
      if ((!touchesComplex(node) && !isFftTarget(node.value("target", ""))) || !subgraphsOf(node).empty()) {
        out.push_back(node);
        continue;
      }
      rewrite();
    }
    g_["nodes"] = std::move(out);
    if (!top_) return true;
    for (const json &o : g_.value("outputs", json::array()))
      if (o.contains("as_tensor") && rank_.count(o["as_tensor"].value("name", "")))
        throw Error("kiln: the program returns the complex value '" + o["as_tensor"].value("name", "") +
                    "'; kiln's models return real tensors (return torch.view_as_real(...) instead)");
    return true;
  }

private:
  json &g_, &tv_;
  bool top_;
  std::map<std::string, int64_t> rank_; ///< complex values and their complex rank
  json *cur_ = nullptr, *out_ = nullptr;
  int counter_ = 0;

  bool isC(const std::string &name) const { return rank_.count(name) > 0; }
  bool touchesComplex(const json &node) const {
    auto names = [&](const json &arg, auto &&f) -> void {
      if (arg.contains("as_tensor")) f(arg["as_tensor"].value("name", ""));
      if (arg.contains("as_tensors"))
        for (const json &t : arg["as_tensors"]) f(t.value("name", ""));
    };
    bool any = false;
    for (const json &in : node.value("inputs", json::array()))
      if (in.contains("arg")) names(in["arg"], [&](const std::string &n) { any |= isC(n); });
    for (const json &o : node.value("outputs", json::array())) names(o, [&](const std::string &n) { any |= isC(n); });
    return any;
  }
  std::string target() const { return cur_->value("target", ""); }
  std::string nodeName() const { return cur_->value("name", ""); }
  [[noreturn]] void unsupported(const std::string &why = "") const {
    throw Error("kiln: node '" + nodeName() + "' (" + target() + ")" +
                (isFftTarget(target()) ? std::string(": ") : std::string(" on complex values: ")) +
                (why.empty() ? "kiln has no real form of this op for complex tensors" : why));
  }
  std::string tensorIn(const std::string &name) const {
    const json *a = nodeArg(*cur_, name);
    if (!a || !a->contains("as_tensor")) unsupported("argument '" + name + "' is not a tensor");
    return (*a)["as_tensor"].value("name", "");
  }
  bool hasTensor(const std::string &name) const {
    const json *a = nodeArg(*cur_, name);
    return a && a->contains("as_tensor");
  }
  std::string outName(size_t i = 0) const {
    const json &outs = (*cur_)["outputs"];
    if (i >= outs.size() || !outs[i].contains("as_tensor")) unsupported("an output is not a tensor");
    return outs[i]["as_tensor"].value("name", "");
  }
  int64_t crank(const std::string &n) const { return rank_.at(n); }
  /// A dim of a complex value, in [0, rank).
  int64_t cdim(int64_t d, int64_t rank) const {
    if (d < 0) d += rank;
    if (d < 0 || d >= rank) unsupported("dim out of range");
    return d;
  }
  int64_t intIn(const std::string &name, int64_t dflt) const {
    const json *a = nodeArg(*cur_, name);
    return a && a->contains("as_int") ? (*a)["as_int"].get<int64_t>() : dflt;
  }
  std::vector<int64_t> intsIn(const std::string &name) const {
    const json *a = nodeArg(*cur_, name);
    if (!a) return {};
    if (a->contains("as_ints")) return (*a)["as_ints"].get<std::vector<int64_t>>();
    if (a->contains("as_int")) return {(*a)["as_int"].get<int64_t>()};
    unsupported("argument '" + name + "' is not a list of ints");
  }

  // --- building nodes ---------------------------------------------------
  /// Metadata for a new value: `like`'s (a converted value), with its last
  /// dim dropped (`part`) and dtype `dtype` (0: keep).
  json metaFrom(const std::string &like, bool part, int dtype = 0) const {
    json m = tv_.at(like);
    if (part) {
      m["sizes"].erase(m["sizes"].size() - 1);
      if (m.contains("strides") && !m["strides"].empty()) m["strides"].erase(m["strides"].size() - 1);
    }
    if (dtype) m["dtype"] = dtype;
    contiguous(m);
    return m;
  }
  static void contiguous(json &m) {
    std::vector<json> strides(m["sizes"].size());
    int64_t s = 1;
    bool ok = true;
    for (size_t i = m["sizes"].size(); i-- > 0;) {
      strides[i] = intArg(s);
      const json &d = m["sizes"][i];
      if (!d.contains("as_int")) ok = false;
      else if (__builtin_mul_overflow(s, std::max<int64_t>(1, d["as_int"].get<int64_t>()), &s))
        throw Error("kiln: a complex value's sizes " + m["sizes"].dump() + " overflow 64-bit strides");
    }
    if (ok) m["strides"] = strides;
  }
  /// Emits `op(inputs)` with one tensor output of metadata `meta`, named
  /// `name` (a value of the original graph, whose metadata stays) or a new name.
  std::string emit(const std::string &op, const Args &inputs, const json &meta, const std::string &name = "") {
    std::string n = name.empty() ? nodeName() + "__c" + std::to_string(counter_++) : name;
    json node = {{"target", "torch.ops.aten." + op},
                 {"inputs", json::array()},
                 {"outputs", json::array({tensorArg(n)})},
                 {"metadata", cur_->value("metadata", json::object())},
                 {"name", n}};
    for (const auto &[argName, arg] : inputs)
      node["inputs"].push_back({{"name", argName}, {"arg", arg}, {"kind", 1}});
    if (!tv_.contains(n)) tv_[n] = meta;
    out_->push_back(std::move(node));
    return n;
  }
  static Args args(Args a) { return a; }
  std::string part(const std::string &c, int which) {
    return emit("select.int", args({{"self", tensorArg(c)}, {"dim", intArg(-1)}, {"index", intArg(which)}}),
                metaFrom(c, true));
  }
  std::string bin(const char *op, const std::string &a, const std::string &b, const json &meta) {
    return emit(op, args({{"self", tensorArg(a)}, {"other", tensorArg(b)}}), meta);
  }
  std::string unary(const char *op, const std::string &a, const json &meta) {
    return emit(op, args({{"self", tensorArg(a)}}), meta);
  }
  /// stack([re, im], -1) under the name `as` (the node's output) or a new one.
  std::string pair(const std::string &re, const std::string &im, const std::string &as) {
    json meta = metaFrom(re, false);
    meta["sizes"].push_back(intArg(2));
    contiguous(meta);
    return emit("stack.default",
                args({{"tensors", {{"as_tensors", json::array({{{"name", re}}, {{"name", im}}})}}},
                      {"dim", intArg(-1)}}),
                meta, as);
  }
  /// The node again, its inputs and outputs as they are, with `changes`
  /// applied to its arguments (a dim list mapped to the pairs).
  void same(const json &changes = json::object()) {
    json node = *cur_;
    for (json &in : node["inputs"])
      if (changes.contains(in.value("name", ""))) in["arg"] = changes[in.value("name", "")];
    out_->push_back(std::move(node));
  }

  // --- the rewrite --------------------------------------------------------
  void rewrite() {
    std::string t = target();
    const std::string prefix = "torch.ops.aten.";
    if (t.rfind(prefix, 0) != 0) unsupported();
    std::string op = t.substr(prefix.size());
    std::string base = op.substr(0, op.find('.'));

    if (base == "view_as_complex" || base == "view_as_real" || base == "resolve_conj" || base == "resolve_neg" ||
        base == "alias" || base == "detach" || base == "lift_fresh_copy") {
      std::string in = tensorIn("self"), out = outName();
      if (base == "view_as_complex" && isC(in)) unsupported();
      emit("alias.default", args({{"self", tensorArg(in)}}), tv_.at(out), out);
      return;
    }
    if (base == "clone" || base == "contiguous" || base == "neg") return same();
    if (base == "real" || base == "imag") {
      std::string in = tensorIn("self"), out = outName();
      emit("select.int", args({{"self", tensorArg(in)}, {"dim", intArg(-1)}, {"index", intArg(base == "imag")}}),
           tv_.at(out), out);
      return;
    }
    if (base == "abs" || base == "angle") {
      std::string in = tensorIn("self"), out = outName();
      std::string re = part(in, 0), im = part(in, 1);
      if (base == "angle") {
        emit("atan2.default", args({{"self", tensorArg(im)}, {"other", tensorArg(re)}}), tv_.at(out), out);
      } else {
        json m = metaFrom(re, false);
        std::string s = bin("add.Tensor", bin("mul.Tensor", re, re, m), bin("mul.Tensor", im, im, m), m);
        emit("sqrt.default", args({{"self", tensorArg(s)}}), tv_.at(out), out);
      }
      return;
    }
    if (base == "conj" || base == "_conj" || base == "conj_physical" || base == "_conj_physical") {
      std::string in = tensorIn("self");
      std::string re = part(in, 0), im = part(in, 1);
      pair(re, unary("neg.default", im, metaFrom(im, false)), outName());
      return;
    }
    if (base == "exp") {
      std::string in = tensorIn("self");
      std::string re = part(in, 0), im = part(in, 1);
      json m = metaFrom(re, false);
      std::string e = unary("exp.default", re, m);
      pair(bin("mul.Tensor", e, unary("cos.default", im, m), m), bin("mul.Tensor", e, unary("sin.default", im, m), m),
           outName());
      return;
    }
    if (base == "polar" || base == "complex") {
      std::string a = tensorIn(base == "polar" ? "abs" : "real"), b = tensorIn(base == "polar" ? "angle" : "imag");
      json m = metaFrom(outName(), true);
      if (base == "complex") {
        std::string re = bin("add.Tensor", a, unary("zeros_like.default", b, tv_.at(b)), m);
        std::string im = bin("add.Tensor", b, unary("zeros_like.default", a, tv_.at(a)), m);
        pair(re, im, outName());
      } else {
        pair(bin("mul.Tensor", a, unary("cos.default", b, tv_.at(b)), m),
             bin("mul.Tensor", a, unary("sin.default", b, tv_.at(b)), m), outName());
      }
      return;
    }
    if (base == "mul" || base == "div" || base == "add" || base == "sub") return arithmetic(base, op);
    if (base == "_to_copy" || base == "to" || base == "type_as" || base == "_assert_tensor_metadata")
      return conversion(base);
    if (isFftTarget(t)) return fft(op);
    return shapeOp(base, op);
  }

  /// mul/div/add/sub with at least one complex operand.
  void arithmetic(const std::string &base, const std::string &op) {
    std::string self = tensorIn("self"), out = outName();
    bool scalarOther = op.find(".Scalar") != std::string::npos || !hasTensor("other");
    if ((base == "add" || base == "sub") && nodeArg(*cur_, "alpha")) unsupported("alpha is not supported");
    if (scalarOther) {
      if (!isC(self)) unsupported();
      if (base == "mul" || base == "div") return same(); // scales both parts
      std::string re = part(self, 0), im = part(self, 1);
      json m = metaFrom(re, false);
      const json *otherArg = nodeArg(*cur_, "other");
      if (!otherArg) unsupported("it has no 'other' argument");
      json other = *otherArg;
      std::string r = emit(op.find(".Scalar") != std::string::npos ? base + ".Scalar" : base + ".Tensor",
                           args({{"self", tensorArg(re)}, {"other", other}}), m);
      pair(r, im, out);
      return;
    }
    std::string other = tensorIn("other");
    bool cs = isC(self), co = isC(other);
    if (cs && co) {
      if (base == "add" || base == "sub") return same(); // parts add; the pairs broadcast like the values
      std::string ar = part(self, 0), ai = part(self, 1), br = part(other, 0), bi = part(other, 1);
      json m = metaFrom(out, true);
      if (base == "mul") {
        pair(bin("sub.Tensor", bin("mul.Tensor", ar, br, m), bin("mul.Tensor", ai, bi, m), m),
             bin("add.Tensor", bin("mul.Tensor", ar, bi, m), bin("mul.Tensor", ai, br, m), m), out);
      } else { // (a * conj(b)) / |b|^2
        std::string den = bin("add.Tensor", bin("mul.Tensor", br, br, metaFrom(br, false)),
                              bin("mul.Tensor", bi, bi, metaFrom(bi, false)), metaFrom(br, false));
        std::string re = bin("add.Tensor", bin("mul.Tensor", ar, br, m), bin("mul.Tensor", ai, bi, m), m);
        std::string im = bin("sub.Tensor", bin("mul.Tensor", ai, br, m), bin("mul.Tensor", ar, bi, m), m);
        pair(bin("div.Tensor", re, den, m), bin("div.Tensor", im, den, m), out);
      }
      return;
    }
    // One complex operand and one real tensor.
    std::string c = cs ? self : other, r = cs ? other : self;
    json m = metaFrom(out, true);
    if (base == "mul" || (base == "div" && cs)) {
      std::string rr = emit("unsqueeze.default", args({{"self", tensorArg(r)}, {"dim", intArg(-1)}}),
                            [&] {
                              json mm = tv_.at(r);
                              mm["sizes"].push_back(intArg(1));
                              contiguous(mm);
                              return mm;
                            }());
      emit(base + ".Tensor", args({{"self", tensorArg(cs ? c : rr)}, {"other", tensorArg(cs ? rr : c)}}), tv_.at(out),
           out);
      return;
    }
    if (base == "div") unsupported("a real tensor divided by a complex one");
    std::string cr = part(c, 0), ci = part(c, 1);
    std::string re = cs ? bin((base + ".Tensor").c_str(), cr, r, m) : bin((base + ".Tensor").c_str(), r, cr, m);
    // The imaginary part, broadcast to the result's shape (negated for real - complex).
    std::string im = bin("add.Tensor", ci, unary("zeros_like.default", r, tv_.at(r)), m);
    if (!cs && base == "sub") im = unary("neg.default", im, m);
    pair(re, im, out);
  }

  /// Dtype conversions: complex to complex of another width, real to complex,
  /// complex to real (the real part, as PyTorch does with a warning).
  void conversion(const std::string &base) {
    if (base == "_assert_tensor_metadata") return; // the checked dtype is complex: nothing to check on pairs
    std::string in = tensorIn("self"), out = outName();
    bool ci = isC(in), co = isC(out);
    int outCode = dtypeCodeOf(tv_.at(out), kFloat);
    if (ci && co) {
      emit("_to_copy.default", args({{"self", tensorArg(in)}, {"dtype", {{"as_scalar_type", outCode}}}}), tv_.at(out),
           out);
    } else if (ci) {
      std::string re = part(in, 0);
      emit("_to_copy.default", args({{"self", tensorArg(re)}, {"dtype", {{"as_scalar_type", outCode}}}}),
           tv_.at(out), out);
    } else {
      json m = metaFrom(out, true);
      std::string re = emit("_to_copy.default", args({{"self", tensorArg(in)}, {"dtype", {{"as_scalar_type", outCode}}}}), m);
      pair(re, unary("zeros_like.default", re, m), out);
    }
  }

  /// Shape and view ops on complex values: the same op on the pairs, with
  /// the dims and sizes it takes mapped.
  void shapeOp(const std::string &base, const std::string &op) {
    std::string self = hasTensor("self") ? tensorIn("self") : "";
    if (base == "cat" || base == "stack") {
      const json *ts = nodeArg(*cur_, "tensors");
      if (!ts || !ts->contains("as_tensors")) unsupported();
      for (const json &t : (*ts)["as_tensors"])
        if (!isC(t.value("name", ""))) unsupported("mixes complex and real tensors");
      int64_t r = crank((*ts)["as_tensors"][0].value("name", ""));
      return same({{"dim", intArg(cdim(intIn("dim", 0), base == "stack" ? r + 1 : r))}});
    }
    if (self.empty() || !isC(self)) unsupported();
    int64_t r = crank(self);
    if (base == "view" || base == "reshape" || base == "_unsafe_view" || base == "expand") {
      const char *key = base == "reshape" ? "shape" : "size";
      const json *s = nodeArg(*cur_, key);
      if (!s) unsupported();
      json a = *s;
      if (a.contains("as_ints")) a["as_ints"].push_back(2);
      else if (a.contains("as_sym_ints")) a["as_sym_ints"].push_back({{"as_int", 2}});
      else unsupported();
      return same({{key, a}});
    }
    if (base == "permute") {
      std::vector<int64_t> dims = intsIn("dims");
      for (int64_t &d : dims) d = cdim(d, r);
      dims.push_back(r);
      return same({{"dims", intsArg(dims)}});
    }
    if (base == "transpose")
      return same({{"dim0", intArg(cdim(intIn("dim0", 0), r))}, {"dim1", intArg(cdim(intIn("dim1", 0), r))}});
    if (base == "select" || base == "slice" || base == "index_select" || base == "narrow" || base == "roll" ||
        base == "squeeze" || base == "flip" || base == "sum" || base == "mean" || base == "split" ||
        base == "split_with_sizes" || base == "chunk" || base == "unbind" || base == "movedim") {
      json changes = json::object();
      for (const char *key : {"dim", "dims", "source", "destination"}) {
        const json *a = nodeArg(*cur_, key);
        if (!a) continue;
        if (a->contains("as_int")) changes[key] = intArg(cdim((*a)["as_int"].get<int64_t>(), r));
        else if (a->contains("as_ints")) {
          std::vector<int64_t> ds = (*a)["as_ints"].get<std::vector<int64_t>>();
          for (int64_t &d : ds) d = cdim(d, r);
          changes[key] = intsArg(ds);
        }
      }
      if ((base == "sum" || base == "mean") && !nodeArg(*cur_, "dim")) unsupported("a reduction over every dim");
      if (base == "roll" && !nodeArg(*cur_, "dims")) unsupported("roll without dims");
      if (base == "squeeze" && !nodeArg(*cur_, "dim")) unsupported("squeeze of every dim");
      return same(changes);
    }
    if (base == "constant_pad_nd") { // zeros before and after along the complex dims; none on the pair dim
      const json *v = nodeArg(*cur_, "value");
      if (v && !((v->contains("as_float") && (*v)["as_float"].get<double>() == 0.0) ||
                 (v->contains("as_int") && (*v)["as_int"].get<int64_t>() == 0)))
        unsupported("a complex pad value other than zero");
      std::vector<int64_t> pad = intsIn("pad");
      pad.insert(pad.begin(), {0, 0});
      return same({{"pad", intsArg(pad)}});
    }
    if (base == "unsqueeze") return same({{"dim", intArg(cdim(intIn("dim", 0), r + 1))}});
    if (base == "flatten") {
      int64_t start = cdim(intIn("start_dim", 0), r), end = cdim(intIn("end_dim", -1), r);
      return same({{"start_dim", intArg(start)}, {"end_dim", intArg(end)}});
    }
    if (base == "unflatten") return same({{"dim", intArg(cdim(intIn("dim", 0), r))}});
    if (base == "repeat") {
      std::vector<int64_t> rep = intsIn("repeats");
      rep.push_back(1);
      return same({{"repeats", intsArg(rep)}});
    }
    if (base == "index") return same(); // indices on the leading dims leave the pair dim
    unsupported();
  }

  /// FFTs (FftPlan.cpp says which 1-d transforms a node is) as matrix
  /// products along each transformed dim: X = x W with W[t, k] =
  /// exp(-+2 pi i t k / N), so re(X) = xr C + s xi S, im(X) = xi C - s xr S
  /// with C = cos, S = sin of 2 pi ((t k) mod N) / N and s = +1 for the
  /// forward sign, -1 for the inverse. Input rows past N are dropped and
  /// missing ones are zeros (PyTorch's trimming and padding).
  void fft(const std::string &op) {
    std::string in = tensorIn("self"), out = outName();
    bool complexIn = isC(in);
    int64_t r = complexIn ? crank(in) : (int64_t)tv_.at(in)["sizes"].size();
    std::vector<std::optional<int64_t>> sizes;
    for (int64_t i = 0; i < r; ++i) {
      const json &d = tv_.at(in)["sizes"][i];
      sizes.push_back(d.contains("as_int") ? std::optional<int64_t>(d["as_int"].get<int64_t>()) : std::nullopt);
    }
    std::string why;
    std::optional<FftPlan> plan = planFft(op, *cur_, sizes, why);
    if (!plan) unsupported(why);
    if (plan->realInput && complexIn) unsupported("a real-input transform of a complex tensor");
    std::string cur = in;
    if (!complexIn) {
      // A real input: in the output's real dtype (integers promote), imaginary part zero.
      int dtype = dtypeCodeOf(tv_.at(out), kFloat);
      if (dtypeCodeOf(tv_.at(in), dtype) != dtype)
        cur = emit("_to_copy.default", args({{"self", tensorArg(in)}, {"dtype", {{"as_scalar_type", dtype}}}}),
                   metaFrom(in, false, dtype));
      json m = metaFrom(cur, false);
      cur = pair(cur, unary("zeros_like.default", cur, m), "");
      rank_[cur] = r;
    }
    for (size_t i = 0; i < plan->steps.size(); ++i) {
      const FftStep &st = plan->steps[i];
      std::string as = i + 1 == plan->steps.size() && !plan->conjOutput ? out : "";
      cur = st.kind == FftStep::C2R ? c2r(cur, st, as) : dft(cur, st, as);
    }
    if (plan->conjOutput) {
      std::string re = part(cur, 0), im = part(cur, 1);
      pair(re, unary("neg.default", im, metaFrom(im, false)), out);
    }
  }

  /// Pair value `x` trimmed to its first `len` entries along complex dim `d`.
  std::string trimmed(const std::string &x, int64_t d, int64_t len) {
    json m = tv_.at(x);
    m["sizes"][d] = intArg(len);
    contiguous(m);
    std::string t = emit("slice.Tensor", args({{"self", tensorArg(x)}, {"dim", intArg(d)}, {"start", intArg(0)},
                                                {"end", intArg(len)}}), m);
    rank_[t] = crank(x);
    return t;
  }

  /// `v` (of rank r) with its dims permuted by `p`.
  std::string permuted(const std::string &v, const std::vector<int64_t> &p) {
    json m = tv_.at(v);
    json s = json::array();
    for (int64_t i : p) s.push_back(m["sizes"][i]);
    m["sizes"] = s;
    contiguous(m);
    return emit("permute.default", args({{"self", tensorArg(v)}, {"dims", intsArg(p)}}), m);
  }

  /// The parts of pair value `x` with complex dim `d` moved last (`perm`;
  /// `inv` moves it back), the dim's length at most `maxLen` (trimmed).
  struct Parts {
    std::string re, im;
    std::vector<int64_t> perm, inv;
    int64_t len;
  };
  Parts partsAlong(std::string x, int64_t d, int64_t maxLen) {
    int64_t r = crank(x);
    const json &sz = tv_.at(x)["sizes"][d];
    if (!sz.contains("as_int")) unsupported("a transform along a dynamic dim");
    Parts p;
    p.len = sz["as_int"].get<int64_t>();
    if (p.len > maxLen) x = trimmed(x, d, p.len = maxLen);
    for (int64_t i = 0; i < r; ++i)
      if (i != d) p.perm.push_back(i);
    p.perm.push_back(d);
    p.inv.resize(r);
    for (int64_t i = 0; i < r; ++i) p.inv[p.perm[i]] = i;
    p.re = part(x, 0);
    p.im = part(x, 1);
    if (d != r - 1) {
      p.re = permuted(p.re, p.perm);
      p.im = permuted(p.im, p.perm);
    }
    return p;
  }

  /// A [rows, cols] integer (long) metadata like `x`'s device.
  json longMeta(const std::string &x, int64_t rows, int64_t cols) const {
    json m = {{"dtype", kLong}, {"sizes", json::array({intArg(rows), intArg(cols)})}, {"requires_grad", false},
              {"device", tv_.at(x).value("device", json::object())}, {"storage_offset", intArg(0)}, {"layout", 7}};
    contiguous(m);
    return m;
  }
  /// arange(len) as a [len, 1] (column) or [1, len] (row) long tensor.
  std::string index(const std::string &x, int64_t len, bool column) {
    json m = longMeta(x, len, 1);
    m["sizes"] = json::array({intArg(len)});
    contiguous(m);
    std::string v = emit("arange.default", args({{"end", intArg(len)}, {"dtype", {{"as_scalar_type", kLong}}}}), m);
    return emit("unsqueeze.default", args({{"self", tensorArg(v)}, {"dim", intArg(column ? 1 : 0)}}),
                longMeta(x, column ? len : 1, column ? 1 : len));
  }
  /// cos and sin of 2 pi ((t k) mod n) / n for t < rows, k < cols (exact in
  /// integers for any length), scaled by `scale`, in `dtype`.
  std::pair<std::string, std::string> twiddles(const std::string &x, int64_t rows, int64_t cols, int64_t n,
                                               double scale, int dtype, const std::string &rowWeight = "") {
    json mi = longMeta(x, rows, cols);
    std::string prod = bin("mul.Tensor", index(x, rows, true), index(x, cols, false), mi);
    std::string rem = emit("remainder.Scalar", args({{"self", tensorArg(prod)}, {"other", intArg(n)}}), mi);
    json mf = mi;
    mf["dtype"] = dtype;
    std::string f = emit("_to_copy.default", args({{"self", tensorArg(rem)}, {"dtype", {{"as_scalar_type", dtype}}}}), mf);
    std::string ang = emit("mul.Scalar", args({{"self", tensorArg(f)}, {"other", floatArg(2 * M_PI / (double)n)}}), mf);
    std::string c = unary("cos.default", ang, mf), s = unary("sin.default", ang, mf);
    if (!rowWeight.empty()) {
      c = bin("mul.Tensor", c, rowWeight, mf);
      s = bin("mul.Tensor", s, rowWeight, mf);
    }
    if (scale != 1.0) {
      c = emit("mul.Scalar", args({{"self", tensorArg(c)}, {"other", floatArg(scale)}}), mf);
      s = emit("mul.Scalar", args({{"self", tensorArg(s)}, {"other", floatArg(scale)}}), mf);
    }
    return {c, s};
  }
  std::string matmul(const std::string &a, const std::string &w, int64_t cols) {
    json mo = tv_.at(a);
    mo["sizes"][mo["sizes"].size() - 1] = intArg(cols);
    contiguous(mo);
    return emit("matmul.default", args({{"self", tensorArg(a)}, {"other", tensorArg(w)}}), mo);
  }

  /// One 1-d complex transform (all n outputs, or the first n/2+1) of pair value `x`.
  std::string dft(const std::string &x, const FftStep &st, const std::string &as) {
    int64_t r = crank(x), k = st.kind == FftStep::R2CHalf ? st.n / 2 + 1 : st.n;
    Parts p = partsAlong(x, st.dim, st.n);
    auto [c, s] = twiddles(x, p.len, k, st.n, st.scale, dtypeCodeOf(tv_.at(x), kFloat));
    std::string xrC = matmul(p.re, c, k), xiS = matmul(p.im, s, k), xiC = matmul(p.im, c, k),
                xrS = matmul(p.re, s, k);
    json mo = tv_.at(xrC);
    std::string ore = bin(st.forward ? "add.Tensor" : "sub.Tensor", xrC, xiS, mo);
    std::string oim = bin(st.forward ? "sub.Tensor" : "add.Tensor", xiC, xrS, mo);
    if (st.dim != r - 1) {
      ore = permuted(ore, p.inv);
      oim = permuted(oim, p.inv);
    }
    std::string res = pair(ore, oim, as.empty() ? nodeName() + "__c" + std::to_string(counter_++) : as);
    rank_[res] = r;
    return res;
  }

  /// A Hermitian-input transform of pair value `x` to n real outputs: the
  /// first n/2+1 entries X[k] stand for all n (X[n-k] = conj(X[k])), so
  /// y[t] = sum_k w_k (Xr[k] cos - s Xi[k] sin)(2 pi k t / n) with w_k = 1
  /// for k = 0 and k = n/2, else 2 (the imaginary parts of those two drop out).
  std::string c2r(const std::string &x, const FftStep &st, const std::string &as) {
    int64_t r = crank(x);
    Parts p = partsAlong(x, st.dim, st.n / 2 + 1);
    int dtype = dtypeCodeOf(tv_.at(x), kFloat);
    // w = 1 + min(k, 1) - max(2k - n + 1, 0), as a [len, 1] column.
    std::string k = index(x, p.len, true);
    json mk = longMeta(x, p.len, 1);
    std::string lo = emit("clamp_max.default", args({{"self", tensorArg(k)}, {"max", intArg(1)}}), mk);
    std::string twoK = emit("mul.Scalar", args({{"self", tensorArg(k)}, {"other", intArg(2)}}), mk);
    std::string hi = emit("clamp_min.default",
                          args({{"self", tensorArg(emit("add.Scalar", args({{"self", tensorArg(twoK)}, {"other", intArg(1 - st.n)}}), mk))},
                                {"min", intArg(0)}}),
                          mk);
    std::string w = emit("add.Scalar", args({{"self", tensorArg(bin("sub.Tensor", lo, hi, mk))}, {"other", intArg(1)}}), mk);
    json mw = mk;
    mw["dtype"] = dtype;
    w = emit("_to_copy.default", args({{"self", tensorArg(w)}, {"dtype", {{"as_scalar_type", dtype}}}}), mw);
    auto [c, s] = twiddles(x, p.len, st.n, st.n, st.scale, dtype, w);
    std::string xrC = matmul(p.re, c, st.n);
    std::string y = bin(st.forward ? "add.Tensor" : "sub.Tensor", xrC, matmul(p.im, s, st.n), tv_.at(xrC));
    if (st.dim != r - 1) y = permuted(y, p.inv);
    return emit("alias.default", args({{"self", tensorArg(y)}}), tv_.at(y), as);
  }
};

} // namespace

namespace {
/// 2 * v for a real pair's stride or offset; an error where it overflows.
int64_t twice(const json &v) {
  int64_t r;
  if (__builtin_mul_overflow(v.get<int64_t>(), (int64_t)2, &r))
    throw Error("kiln: a complex value's stride or offset " + v.dump() + " overflows as real pairs");
  return r;
}
} // namespace

void complexMetaToReal(json &meta) {
  // complex32 has no real pair kiln supports (half): it stays an unsupported dtype.
  int code = dtypeCodeOf(meta, 0);
  if (code != kComplexFloat && code != kComplexDouble) return;
  meta["dtype"] = meta["dtype"] == kComplexDouble ? kDouble : kFloat;
  if (meta.contains("sizes")) meta["sizes"].push_back(intArg(2));
  if (meta.contains("strides")) {
    json strides = json::array();
    for (const json &s : meta["strides"]) {
      if (s.contains("as_int")) strides.push_back(intArg(twice(s["as_int"])));
      else if (s.contains("as_expr")) {
        json e = s;
        e["as_expr"]["expr_str"] = "2*(" + s["as_expr"].value("expr_str", "0") + ")";
        if (e["as_expr"].contains("hint") && e["as_expr"]["hint"].is_object() && e["as_expr"]["hint"].contains("as_int"))
          e["as_expr"]["hint"]["as_int"] = twice(e["as_expr"]["hint"]["as_int"]);
        strides.push_back(e);
      } else {
        strides.push_back(s);
      }
    }
    strides.push_back(intArg(1));
    meta["strides"] = strides;
  }
  if (meta.contains("storage_offset") && meta["storage_offset"].contains("as_int"))
    meta["storage_offset"]["as_int"] = twice(meta["storage_offset"]["as_int"]);
}

bool lowerComplexGraph(json &graph) {
  if (!graph.is_object() || !graph.contains("tensor_values") || !graph.contains("nodes")) return false;
  return Rewriter(graph, true).run();
}

std::optional<std::string> lowerComplex(const std::string &graphJson) {
  json g = json::parse(graphJson);
  checkSerdeIntegers(g, "the graph");
  if (!lowerComplexGraph(g)) return std::nullopt;
  return g.dump();
}

} // namespace kiln::decomp
