// kiln runtime loader — strict parser for the model manifest (see kiln/model_format.h).
#include "Manifest.h"

#include "kiln/error.h"
#include "kiln/model_format.h"

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace kiln {

const char *valueKindName(ValueKind k) {
  switch (k) {
  case ValueKind::Param: return "param";
  case ValueKind::Buffer: return "buffer";
  case ValueKind::Constant: return "constant";
  case ValueKind::Input: return "input";
  case ValueKind::Output: return "out";
  case ValueKind::Rng: return KILN_ARG_KIND_RNG;
  case ValueKind::Derived: return KILN_ARG_KIND_DERIVED;
  }
  return "?";
}

std::string dimsToString(const Manifest &m, const std::vector<ManifestDim> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    if (dims[i].isStatic()) s += std::to_string(dims[i].size);
    else if (dims[i].symbol >= 0) s += m.symbols[dims[i].symbol].name;
    else s += "?";
  }
  return s + "]";
}

namespace {

// Upper bound on ranks, to reject garbage before allocating for it.
constexpr int64_t kMaxRank = 64;

[[noreturn]] void fail(int line, const std::string &text, const std::string &why) {
  throw Error(KILN_STATUS_INVALID_ARGUMENT,
              "manifest line " + std::to_string(line) + " (\"" + text + "\"): " + why);
}

bool parseInt(const std::string &tok, int64_t &out) {
  if (tok.empty()) return false;
  size_t i = tok[0] == '-' ? 1 : 0;
  if (i == tok.size()) return false;
  for (size_t k = i; k < tok.size(); ++k)
    if (tok[k] < '0' || tok[k] > '9') return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(tok.c_str(), &end, 10);
  if (errno == ERANGE || *end) return false;
  out = v;
  return true;
}

bool isIdentifier(const std::string &tok) {
  if (tok.empty()) return false;
  int64_t ignored;
  if (parseInt(tok, ignored) || tok == "?") return false;
  for (char c : tok)
    if ((unsigned char)c <= ' ' || c == 0x7f) return false;
  return true;
}

} // namespace

Manifest parseManifest(const std::string &text) {
  Manifest m;
  std::map<std::string, int> symbolIndex;
  std::set<std::string> argNames;
  bool sawName = false, sawDevice = false, sawWeights = false, sawEnd = false, sawHeader = false;
  // Dims naming symbols are resolved after the whole text is read, so the order of
  // `sym` and `arg` lines does not matter; remember where each came from.
  enum class Target { Arg, Output, Update };
  struct PendingDim {
    Target target;
    size_t value, dim;
    std::string symbol, text;
    int line;
  };
  std::vector<PendingDim> pending;

  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::istringstream ls(raw);
    std::vector<std::string> tok;
    for (std::string t; ls >> t;) tok.push_back(t);
    if (tok.empty() || tok[0][0] == '#') continue;
    const std::string &kw = tok[0];
    if (sawEnd) fail(lineNo, raw, "content after 'end'");
    if (!sawHeader) {
      if (kw != "kiln-manifest")
        fail(lineNo, raw, "expected 'kiln-manifest <version>' as the first line");
      int64_t v;
      if (tok.size() != 2 || !parseInt(tok[1], v))
        fail(lineNo, raw, "expected 'kiln-manifest <version>'");
      if (v != KILN_MANIFEST_VERSION)
        fail(lineNo, raw,
             "unsupported manifest version " + tok[1] + " (this runtime reads version " +
                 std::to_string(KILN_MANIFEST_VERSION) + ")");
      m.version = (int)v;
      sawHeader = true;
      continue;
    }
    if (kw == "kiln-manifest") {
      fail(lineNo, raw, "duplicate 'kiln-manifest' line");
    } else if (kw == "name") {
      if (tok.size() != 2) fail(lineNo, raw, "expected 'name <model-name>'");
      if (sawName) fail(lineNo, raw, "duplicate 'name' line");
      m.name = tok[1];
      sawName = true;
    } else if (kw == "weights") {
      if (tok.size() != 2 || (tok[1] != "embedded" && tok[1] != "external" && tok[1] != "appended"))
        fail(lineNo, raw, "expected 'weights embedded', 'weights appended' or 'weights external'");
      if (sawWeights) fail(lineNo, raw, "duplicate 'weights' line");
      m.externalWeights = tok[1] == "external";
      m.appendedWeights = tok[1] == "appended";
      sawWeights = true;
    } else if (kw == "device") {
      if (tok.size() < 2 || tok.size() > 3 || (tok[1] != "cpu" && tok[1] != "cuda" && tok[1] != "hip"))
        fail(lineNo, raw, "expected 'device cpu', 'device cuda <arch>' or 'device hip <arch>'");
      if (sawDevice) fail(lineNo, raw, "duplicate 'device' line");
      m.device = tok[1] == "cuda" ? DeviceType::CUDA : tok[1] == "hip" ? DeviceType::HIP : DeviceType::CPU;
      if (m.device == DeviceType::CUDA && tok.size() != 3)
        fail(lineNo, raw, "expected 'device cuda <arch>' (e.g. sm_90)");
      if (m.device == DeviceType::HIP && tok.size() != 3)
        fail(lineNo, raw, "expected 'device hip <arch>' (e.g. gfx90a)");
      if (tok.size() == 3) m.deviceArch = tok[2];
      sawDevice = true;
    } else if (kw == "sym") {
      if (tok.size() != 4) fail(lineNo, raw, "expected 'sym <symbol> <min> <max>'");
      ManifestSymbol s;
      s.name = tok[1];
      s.line = lineNo;
      if (!isIdentifier(s.name)) fail(lineNo, raw, "bad symbol name '" + s.name + "'");
      if (!parseInt(tok[2], s.min) || s.min < 0)
        fail(lineNo, raw, "symbol minimum '" + tok[2] + "' is not a non-negative integer");
      if (!parseInt(tok[3], s.max) || (s.max != -1 && s.max < s.min))
        fail(lineNo, raw,
             "symbol maximum '" + tok[3] + "' is not an integer >= the minimum, or -1");
      if (symbolIndex.count(s.name)) fail(lineNo, raw, "duplicate symbol '" + s.name + "'");
      symbolIndex[s.name] = (int)m.symbols.size();
      m.symbols.push_back(s);
    } else if (kw == "arg" || kw == "out" || kw == "update") {
      bool isOut = kw == "out", isUpdate = kw == "update";
      Target target = isOut ? Target::Output : isUpdate ? Target::Update : Target::Arg;
      std::string form = isOut ? "'out <name> <dtype> <rank> <dim>...'"
                               : "'" + kw + " <kind> <name> <dtype> <rank> <dim>...'";
      size_t p = 1;
      ManifestValue v;
      v.line = lineNo;
      if (isOut) {
        v.kind = ValueKind::Output;
      } else {
        if (tok.size() < 2) fail(lineNo, raw, "expected " + form);
        const std::string &k = tok[p++];
        if (k == "param") v.kind = ValueKind::Param;
        else if (k == "buffer") v.kind = ValueKind::Buffer;
        else if (k == "constant") v.kind = ValueKind::Constant;
        else if (k == "input") v.kind = ValueKind::Input;
        else if (k == KILN_ARG_KIND_RNG && !isUpdate) v.kind = ValueKind::Rng;
        else if (k == KILN_ARG_KIND_DERIVED && !isUpdate) v.kind = ValueKind::Derived;
        else fail(lineNo, raw, "unknown arg kind '" + k + "' (expected param, buffer, constant or input" +
                                   (isUpdate ? ")" : ", rng or derived)"));
      }
      if (tok.size() < p + 3) fail(lineNo, raw, "expected " + form);
      v.name = tok[p++];
      const std::string &dt = tok[p++];
      if (!parseDType(dt, v.dtype))
        fail(lineNo, raw, "unknown dtype '" + dt + "' (expected f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool)");
      int64_t rank;
      if (!parseInt(tok[p], rank) || rank < 0 || rank > kMaxRank)
        fail(lineNo, raw, "rank '" + tok[p] + "' is not an integer in [0, " +
                              std::to_string(kMaxRank) + "]");
      ++p;
      if (tok.size() < p + (size_t)rank)
        fail(lineNo, raw, "rank " + std::to_string(rank) + " but only " +
                              std::to_string(tok.size() - p) + " dims given");
      for (int64_t d = 0; d < rank; ++d) {
        const std::string &dtok = tok[p++];
        ManifestDim dim;
        int64_t n;
        if (dtok == "?") {
        } else if (parseInt(dtok, n)) {
          if (n < 0) fail(lineNo, raw, "negative dim " + dtok);
          dim.size = n;
        } else {
          pending.push_back({target,
                             isOut ? m.outputs.size() : isUpdate ? m.updates.size() : m.args.size(),
                             (size_t)d, dtok, raw, lineNo});
        }
        v.dims.push_back(dim);
      }
      size_t extra = tok.size() - p;
      if (v.kind == ValueKind::Rng) {
        if (v.dtype != DType::Int64 || v.dims.size() != 1 || v.dims[0].size != 2)
          fail(lineNo, raw, "the generator state must be 'i64 1 2'");
        if (std::any_of(m.args.begin(), m.args.end(),
                        [](const ManifestValue &a) { return a.kind == ValueKind::Rng; }))
          fail(lineNo, raw, "a second generator state");
      }
      if (isOut || isUpdate || v.kind == ValueKind::Input || v.kind == ValueKind::Rng ||
          v.kind == ValueKind::Derived) {
        if (extra)
          fail(lineNo, raw, std::to_string(extra) + " unexpected token(s) after the dims");
      } else {
        if (extra != 0 && extra != 2)
          fail(lineNo, raw, "expected '<offset> <nbytes>' or nothing after the dims");
        if (extra == 2) {
          if (!parseInt(tok[p], v.offset) || v.offset < 0)
            fail(lineNo, raw, "weight offset '" + tok[p] + "' is not a non-negative integer");
          if (!parseInt(tok[p + 1], v.nbytes) || v.nbytes < 0)
            fail(lineNo, raw, "weight size '" + tok[p + 1] + "' is not a non-negative integer");
        }
      }
      if (isUpdate) {
        m.updates.push_back(std::move(v));
      } else if (!isOut) {
        if (!argNames.insert(v.name).second)
          fail(lineNo, raw, "duplicate arg name '" + v.name + "'");
        m.args.push_back(std::move(v));
      } else {
        if (!m.updates.empty()) fail(lineNo, raw, "'out' after an 'update' line (updates come last)");
        m.outputs.push_back(std::move(v));
      }
    } else if (kw == "layout") {
      if (tok.size() < 2) fail(lineNo, raw, "expected 'layout <name> <p0> <p1> ...'");
      auto it = std::find_if(m.args.begin(), m.args.end(),
                             [&](const ManifestValue &a) {
                               return (a.isWeight() || a.kind == ValueKind::Derived) && a.name == tok[1];
                             });
      if (it == m.args.end())
        fail(lineNo, raw, "layout of '" + tok[1] + "', which is no earlier weight arg (nor derived arg)");
      if (!it->layout.empty()) fail(lineNo, raw, "a second layout of '" + tok[1] + "'");
      if (tok.size() - 2 != it->dims.size())
        fail(lineNo, raw, "layout of '" + tok[1] + "' has " + std::to_string(tok.size() - 2) +
                              " entries for a weight of rank " + std::to_string(it->dims.size()));
      std::vector<bool> seen(it->dims.size(), false);
      for (size_t i = 2; i < tok.size(); ++i) {
        int64_t p;
        if (!parseInt(tok[i], p) || p < 0 || p >= (int64_t)seen.size() || seen[p])
          fail(lineNo, raw, "layout of '" + tok[1] + "' is not a permutation of its dims");
        seen[p] = true;
        it->layout.push_back(p);
      }
    } else if (kw == "derive") {
      // derive <name> <recipe> <eps> <operand|->...
      if (tok.size() < 4) fail(lineNo, raw, "expected 'derive <name> <recipe> <eps> <weight|->...'");
      auto it = std::find_if(m.args.begin(), m.args.end(), [&](const ManifestValue &a) {
        return a.kind == ValueKind::Derived && a.name == tok[1];
      });
      if (it == m.args.end()) fail(lineNo, raw, "derive of '" + tok[1] + "', which is no earlier derived arg");
      if (!it->recipe.empty()) fail(lineNo, raw, "a second derive line for '" + tok[1] + "'");
      const bool concat = tok[2] == KILN_DERIVE_CONCAT_ROWS;
      size_t operands = tok[2] == KILN_DERIVE_CONV_BN_WEIGHT ? 3 : tok[2] == KILN_DERIVE_CONV_BN_BIAS ? 5 : 0;
      if (!operands && !concat)
        fail(lineNo, raw, "unknown recipe '" + tok[2] + "' (expected " KILN_DERIVE_CONV_BN_WEIGHT ", "
                          KILN_DERIVE_CONV_BN_BIAS " or " KILN_DERIVE_CONCAT_ROWS ")");
      if (concat ? tok.size() - 4 < 2 : tok.size() - 4 != operands)
        fail(lineNo, raw, "recipe " + tok[2] + " takes " + (concat ? "2 or more" : std::to_string(operands)) +
                              " operands, got " + std::to_string(tok.size() - 4));
      char *end = nullptr;
      errno = 0;
      double eps = std::strtod(tok[3].c_str(), &end);
      if (*end || errno || !(eps >= 0))
        fail(lineNo, raw, "eps '" + tok[3] + "' is not a number >= 0");
      std::vector<int> from;
      for (size_t i = 4; i < tok.size(); ++i) {
        if (tok[i] == "-") {
          from.push_back(-1);
          continue;
        }
        auto w = std::find_if(m.args.begin(), m.args.end(),
                              [&](const ManifestValue &a) { return a.isWeight() && a.name == tok[i]; });
        if (w == m.args.end()) fail(lineNo, raw, "'" + tok[i] + "' is no earlier weight arg");
        from.push_back((int)(w - m.args.begin()));
      }
      // The recipes' required operands: every one stacked; the filter, the
      // variance (and the mean).
      bool weight = tok[2] == KILN_DERIVE_CONV_BN_WEIGHT;
      if (concat) {
        if (std::find(from.begin(), from.end(), -1) != from.end())
          fail(lineNo, raw, "recipe " + tok[2] + " takes no absent operand ('-')");
      } else if (weight ? (from[0] < 0 || from[2] < 0) : (from[3] < 0 || from[4] < 0))
        fail(lineNo, raw, "recipe " + tok[2] + " needs its " +
                              (weight ? "filter and variance" : "mean and variance"));
      it->recipe = tok[2];
      it->eps = eps;
      it->from = std::move(from);
    } else if (kw == "op") {
      if (tok.size() != 2 || tok[1].find("::") == std::string::npos)
        fail(lineNo, raw, "expected 'op <namespace>::<name>'");
      m.ops.push_back(tok[1]);
    } else if (kw == "plugin") {
      if (tok.size() != 2) fail(lineNo, raw, "expected 'plugin <file-name>'");
      m.plugins.push_back(tok[1]);
    } else if (kw == "end") {
      if (tok.size() != 1) fail(lineNo, raw, "'end' takes no operands");
      sawEnd = true;
    } else {
      fail(lineNo, raw, "unknown directive '" + kw + "'");
    }
  }
  if (!sawHeader) throw Error(KILN_STATUS_INVALID_ARGUMENT, "manifest is empty");
  if (!sawEnd)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "manifest ends at line " + std::to_string(lineNo) + " without an 'end' line");

  for (const PendingDim &pd : pending) {
    auto it = symbolIndex.find(pd.symbol);
    if (it == symbolIndex.end())
      fail(pd.line, pd.text, "dim '" + pd.symbol + "' is neither a size, '?' nor a declared symbol");
    (pd.target == Target::Output ? m.outputs : pd.target == Target::Update ? m.updates : m.args)
        [pd.value].dims[pd.dim].symbol = it->second;
  }
  // Each update names one arg of its kind, with its dtype and rank, once.
  std::set<size_t> updated;
  for (const ManifestValue &u : m.updates) {
    std::string text = "update " + std::string(valueKindName(u.kind)) + " " + u.name + " ...";
    auto it = std::find_if(m.args.begin(), m.args.end(), [&](const ManifestValue &a) {
      return a.kind == u.kind && a.name == u.name;
    });
    if (it == m.args.end())
      fail(u.line, text, "update of " + std::string(valueKindName(u.kind)) + " '" + u.name +
                             "', which is not an arg of that kind");
    if (it->dtype != u.dtype || it->dims.size() != u.dims.size())
      fail(u.line, text, "update of '" + u.name + "' has another dtype or rank than the arg");
    size_t ai = it - m.args.begin();
    if (!updated.insert(ai).second) fail(u.line, text, "'" + u.name + "' is updated twice");
    m.updateArgs.push_back(ai);
  }
  for (const ManifestValue &v : m.args)
    if (v.kind == ValueKind::Derived && v.recipe.empty())
      fail(v.line, "arg " KILN_ARG_KIND_DERIVED " " + v.name + " ...",
           "derived arg '" + v.name + "' has no 'derive' line");
  // Weights must have a fully static shape, and embedded ones a location in the blob
  // whose size matches that shape.
  for (const ManifestValue &v : m.args) {
    if (!v.isWeight()) continue;
    std::string text = "arg " + std::string(valueKindName(v.kind)) + " " + v.name + " ...";
    int64_t expect = (int64_t)dtypeSize(v.dtype);
    for (const ManifestDim &d : v.dims) {
      if (!d.isStatic())
        fail(v.line, text, "weight '" + v.name + "' has a dynamic dim; weights need static shapes");
      if (__builtin_mul_overflow(expect, d.size, &expect))
        fail(v.line, text, "weight '" + v.name + "' is too large");
    }
    if (m.externalWeights) continue;
    if (v.offset < 0)
      fail(v.line, text, "embedded weight '" + v.name + "' has no '<offset> <nbytes>'");
    if (v.nbytes != expect)
      fail(v.line, text,
           "weight '" + v.name + "' has nbytes " + std::to_string(v.nbytes) + " but its shape " +
               dimsToString(m, v.dims) + " of " + dtypeName(v.dtype) + " needs " +
               std::to_string(expect));
  }
  return m;
}

} // namespace kiln
