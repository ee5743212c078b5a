// kiln runtime — FFT nodes as lists of 1-d transforms, with PyTorch's semantics.
//
// torch.fft's public ops (fft, ifft, rfft, irfft, hfft, ihfft and their 2-d
// and n-d forms) and the ATen primitives the Core IR holds (_fft_c2c,
// _fft_r2c, _fft_c2r) all come down to 1-d transforms along some dims: the
// input resized along each dim to the transform's length (trimmed, or
// zero-padded), complex-to-complex along all but the last dim, and along the
// last one a onesided real-input transform (rfft) or a Hermitian-input one
// with real outputs (irfft, hfft: last length 2*(m-1) by default). Norm modes
// ("backward", "ortho", "forward") scale each dim by 1, 1/sqrt(n) or 1/n as
// the op counts as a forward or an inverse transform. hfft is irfft's kernel
// with the forward sign (the transform of the conjugated input); ihfft is the
// conjugate of rfft, normalized as an inverse.
#include "FftPlan.h"

#include <cmath>
#include <set>

namespace kiln::decomp {

using json = nlohmann::json;

const json *nodeArg(const json &node, const std::string &name) {
  auto ins = node.find("inputs");
  if (ins == node.end() || !ins->is_array()) return nullptr;
  for (const json &in : *ins)
    if (in.is_object() && in.value("name", "") == name && in.contains("arg")) {
      const json &a = in["arg"];
      return a.contains("as_none") ? nullptr : &a;
    }
  return nullptr;
}

namespace {

const char *const kFamilies[] = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"};

/// "fft_irfft2.default" -> family "irfft", variant '2'; "fft_rfft.default" -> '1'; "fft_hfftn" -> 'n'.
bool publicOp(const std::string &op, std::string &family, char &variant) {
  std::string base = op.substr(0, op.find('.'));
  if (base.rfind("fft_", 0) != 0) return false;
  std::string rest = base.substr(4);
  for (const char *f : kFamilies) {
    std::string fam = f;
    if (rest == fam) variant = '1';
    else if (rest == fam + "2") variant = '2';
    else if (rest == fam + "n") variant = 'n';
    else continue;
    family = fam;
    return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> intsOf(const json *a) {
  if (!a) return std::nullopt;
  if (a->contains("as_ints")) return (*a)["as_ints"].get<std::vector<int64_t>>();
  if (a->contains("as_int")) return std::vector<int64_t>{(*a)["as_int"].get<int64_t>()};
  return std::nullopt;
}

double scaleFor(int normalization, int64_t n) {
  return normalization == 1 ? 1.0 / std::sqrt((double)n) : normalization == 2 ? 1.0 / (double)n : 1.0;
}

/// The ATen normalization (0 none, 1 1/sqrt(n), 2 1/n) of a public op's norm
/// argument, for a forward or an inverse transform.
int normalizationOf(const json &node, bool forward, std::string &why) {
  const json *a = nodeArg(node, "norm");
  std::string n = a && a->contains("as_string") ? (*a)["as_string"].get<std::string>() : "backward";
  if (n == "ortho") return 1;
  if (n == "forward") return forward ? 2 : 0;
  if (n == "backward") return forward ? 0 : 2;
  why = "invalid norm '" + n + "' (backward, ortho or forward)";
  return -1;
}

} // namespace

bool isFftTarget(const std::string &target) {
  const std::string prefix = "torch.ops.aten.";
  if (target.rfind(prefix, 0) != 0) return false;
  std::string op = target.substr(prefix.size()), family;
  char variant;
  std::string base = op.substr(0, op.find('.'));
  return publicOp(op, family, variant) || base == "_fft_c2c" || base == "_fft_r2c" || base == "_fft_c2r";
}

std::optional<FftPlan> planFft(const std::string &op, const json &node, const std::vector<std::optional<int64_t>> &sizes,
                               std::string &why) {
  why.clear();
  int64_t rank = (int64_t)sizes.size();
  std::string base = op.substr(0, op.find('.'));
  std::string family;
  char variant = 0;
  bool primitive = base == "_fft_c2c" || base == "_fft_r2c" || base == "_fft_c2r";
  if (!primitive && !publicOp(op, family, variant)) return std::nullopt;

  // The dims, as given or by default.
  std::vector<int64_t> dims;
  std::optional<std::vector<int64_t>> s;
  if (primitive) {
    dims = intsOf(nodeArg(node, "dim")).value_or(std::vector<int64_t>{});
  } else if (variant == '1') {
    dims = {intsOf(nodeArg(node, "dim")).value_or(std::vector<int64_t>{-1}).at(0)};
    if (std::optional<std::vector<int64_t>> n = intsOf(nodeArg(node, "n"))) s = n;
    else if (nodeArg(node, "n")) return why = "a symbolic transform length n", std::nullopt;
  } else {
    s = intsOf(nodeArg(node, "s"));
    if (!s && nodeArg(node, "s")) return why = "symbolic transform sizes s", std::nullopt;
    if (std::optional<std::vector<int64_t>> d = intsOf(nodeArg(node, "dim"))) dims = *d;
    else if (variant == '2') dims = {-2, -1};
    else if (s) for (int64_t i = rank - (int64_t)s->size(); i < rank; ++i) dims.push_back(i);
    else for (int64_t i = 0; i < rank; ++i) dims.push_back(i);
    if (s && nodeArg(node, "dim") && s->size() != dims.size())
      return why = "s and dim have different lengths", std::nullopt;
  }
  if (dims.empty()) return why = "no dim to transform", std::nullopt;
  if (s && s->size() != dims.size()) return why = "s has more sizes than the input has dims", std::nullopt;
  std::set<int64_t> seen;
  for (int64_t &d : dims) {
    if (d < 0) d += rank;
    if (d < 0 || d >= rank) return why = "dim out of range", std::nullopt;
    if (!seen.insert(d).second) return why = "a dim repeats", std::nullopt;
    if (!sizes[d]) return why = "a transform along a dynamic dim", std::nullopt;
  }

  // The transform lengths: s (-1: the input's), else the input's sizes.
  std::vector<int64_t> n;
  for (size_t i = 0; i < dims.size(); ++i) n.push_back(s && (*s)[i] != -1 ? (*s)[i] : *sizes[dims[i]]);
  bool c2r = base == "_fft_c2r" || family == "irfft" || family == "hfft";
  if (c2r) {
    if (base == "_fft_c2r") {
      const json *l = nodeArg(node, "last_dim_size");
      if (!l || !l->contains("as_int")) return why = "a symbolic last_dim_size", std::nullopt;
      n.back() = (*l)["as_int"].get<int64_t>();
    } else if (!s || s->back() == -1) {
      n.back() = 2 * (*sizes[dims.back()] - 1); // the Hermitian half's full length
    }
  }
  for (int64_t len : n)
    if (len < 1) return why = "invalid number of data points (" + std::to_string(len) + ")", std::nullopt;

  FftPlan plan;
  bool r2c = base == "_fft_r2c" || family == "rfft" || family == "ihfft";
  bool onesided = true;
  int normalization = 0;
  bool sign = true; // the kernel's sign: forward exp(-i...)
  if (primitive) {
    const json *norm = nodeArg(node, "normalization");
    normalization = norm && norm->contains("as_int") ? (int)(*norm)["as_int"].get<int64_t>() : 0;
    if (base == "_fft_c2c") {
      const json *f = nodeArg(node, "forward");
      sign = !f || !f->contains("as_bool") || (*f)["as_bool"].get<bool>();
    } else if (base == "_fft_r2c") {
      const json *o = nodeArg(node, "onesided");
      onesided = o && o->contains("as_bool") && (*o)["as_bool"].get<bool>();
    } else {
      sign = false;
    }
  } else {
    // fft, rfft and hfft count as forward transforms for the norm mode.
    bool forwardNorm = family == "fft" || family == "rfft" || family == "hfft";
    normalization = normalizationOf(node, forwardNorm, why);
    if (normalization < 0) return std::nullopt;
    sign = family == "fft" || family == "rfft" || family == "ihfft" || family == "hfft";
    plan.conjOutput = family == "ihfft";
  }
  plan.realInput = r2c;
  for (size_t i = 0; i < dims.size(); ++i) {
    FftStep st;
    st.dim = dims[i];
    st.n = n[i];
    st.forward = sign;
    st.scale = scaleFor(normalization, n[i]);
    bool last = i + 1 == dims.size();
    st.kind = last && c2r ? FftStep::C2R : last && r2c && onesided ? FftStep::R2CHalf : FftStep::C2C;
    plan.steps.push_back(st);
  }
  return plan;
}

} // namespace kiln::decomp
