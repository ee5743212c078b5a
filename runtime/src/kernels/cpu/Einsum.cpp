// kiln runtime — eager CPU (and Meta) einsum: explicit and implicit outputs,
// "..." broadcast dims, repeated labels (diagonals), any number of operands;
// a direct sum over every label in float64.
#include "TensorIter.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace kiln::cpu {
namespace {

constexpr int kEllipsisBase = 1000; ///< label of the k-th ellipsis dim from the right: 1000 + k

/// One operand's labels, left to right ("..." expanded to its dims).
std::vector<int> parseTerm(const std::string &term, int64_t rank, int &ellRank, const char *op) {
  std::vector<int> letters;
  bool ell = false;
  size_t nLetters = 0;
  for (size_t i = 0; i < term.size(); ++i)
    if (term.compare(i, 3, "...") == 0) i += 2;
    else if (std::isalpha((unsigned char)term[i])) ++nLetters;
    else if (term[i] != ' ') throw Error(std::string("kiln: ") + op + ": invalid character '" + term[i] + "' in the equation");
  int64_t nEll = rank - (int64_t)nLetters;
  check(term.find("...") != std::string::npos ? nEll >= 0 : nEll == 0, op,
        "the term '" + term + "' does not match an operand of rank " + std::to_string(rank));
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      check(!ell, op, "'...' appears twice in the term '" + term + "'");
      ell = true;
      for (int64_t k = nEll - 1; k >= 0; --k) letters.push_back(kEllipsisBase + (int)k);
      ellRank = std::max<int>(ellRank, (int)nEll);
      i += 2;
    } else if (std::isalpha((unsigned char)term[i])) {
      letters.push_back((unsigned char)term[i]);
    }
  }
  return letters;
}

Tensor einsum(const std::string &eq, std::vector<Tensor> ts, std::optional<std::vector<int64_t>>) {
  const char *op = "aten::einsum";
  std::string lhs = eq, rhs;
  size_t arrow = eq.find("->");
  bool explicitOut = arrow != std::string::npos;
  if (explicitOut) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
  }
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  check(terms.size() == ts.size(), op,
        "the equation has " + std::to_string(terms.size()) + " operands, " + std::to_string(ts.size()) + " were given");
  int ellRank = 0;
  std::vector<std::vector<int>> labels;
  std::map<int, int64_t> size;
  std::map<int, int> count;
  std::vector<PromoteOperand> pro;
  bool meta = false;
  for (size_t k = 0; k < ts.size(); ++k) {
    labels.push_back(parseTerm(terms[k], ts[k].dim(), ellRank, op));
    pro.push_back({&ts[k], nullptr});
    meta |= isMeta(ts[k]);
    for (size_t j = 0; j < labels[k].size(); ++j) {
      int l = labels[k][j];
      int64_t s = ts[k].size((int64_t)j);
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) size[l] = s;
      else
        check(s == it->second || (s == 1 && l >= kEllipsisBase), op,
              "the sizes of label '" + (l < kEllipsisBase ? std::string(1, (char)l) : std::string("...")) +
                  "' differ between operands");
      ++count[l];
    }
  }
  std::vector<int> outLabels;
  if (explicitOut) {
    // The output's "..." stands for the broadcast ellipsis dims.
    const std::string &r = rhs;
    std::vector<int> parsed;
    for (size_t i = 0; i < r.size(); ++i) {
      if (r.compare(i, 3, "...") == 0) {
        for (int k = ellRank - 1; k >= 0; --k) parsed.push_back(kEllipsisBase + k);
        i += 2;
      } else if (std::isalpha((unsigned char)r[i])) {
        check(size.count((unsigned char)r[i]), op, std::string("output label '") + r[i] + "' is not an input label");
        parsed.push_back((unsigned char)r[i]);
      }
    }
    outLabels = parsed;
  } else {
    for (int k = ellRank - 1; k >= 0; --k) outLabels.push_back(kEllipsisBase + k);
    for (auto &[l, c] : count)
      if (l < kEllipsisBase && c == 1) outLabels.push_back(l);
  }
  std::vector<int64_t> outShape;
  for (int l : outLabels) outShape.push_back(size.count(l) ? size[l] : 1);
  DType dt = resultType(pro);
  Tensor out = Tensor::empty(outShape, dt, meta ? Device{DeviceType::Meta} : ts[0].device());
  if (meta) return out;
  // Every label: output labels first, then the summed ones.
  std::vector<int> all = outLabels;
  for (auto &[l, s] : size)
    if (std::find(all.begin(), all.end(), l) == all.end()) all.push_back(l);
  std::vector<int64_t> allSizes;
  for (int l : all) allSizes.push_back(size[l]);
  size_t nOut = outLabels.size();
  // Per operand, its element stride for each label (summed for repeated labels, 0 on broadcast).
  std::vector<std::vector<int64_t>> st(ts.size(), std::vector<int64_t>(all.size(), 0));
  for (size_t k = 0; k < ts.size(); ++k)
    for (size_t j = 0; j < labels[k].size(); ++j) {
      size_t at = std::find(all.begin(), all.end(), labels[k][j]) - all.begin();
      if (ts[k].size((int64_t)j) != 1) st[k][at] += ts[k].stride((int64_t)j);
    }
  int64_t outN = out.numel(), inner = 1;
  for (size_t i = nOut; i < all.size(); ++i) inner *= allSizes[i];
  std::vector<double> acc(outN, 0.0);
  size_t nl = all.size();
  std::vector<int64_t> ix(nl, 0);
  int64_t total = outN * inner;
  for (int64_t n = 0; n < total; ++n) {
    double prod = 1;
    for (size_t k = 0; k < ts.size(); ++k) {
      int64_t off = 0;
      for (size_t i = 0; i < nl; ++i) off += ix[i] * st[k][i];
      prod *= loadDouble(elemPtr(ts[k], off), ts[k].dtype());
    }
    acc[n / inner] += prod;
    for (size_t i = nl; i-- > 0;) {
      if (++ix[i] < allSizes[i]) break;
      ix[i] = 0;
    }
  }
  char *po = elemPtr(out, 0);
  size_t es = dtypeSize(dt);
  for (int64_t i = 0; i < outN; ++i) storeDouble(po + i * es, dt, acc[i]);
  return out;
}

KILN_LIBRARY_IMPL_CPU_AND_META(aten, m) { m.impl("einsum", einsum); }

} // namespace
} // namespace kiln::cpu

KILN_LIBRARY_FRAGMENT(aten, m) { m.def("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor"); }
