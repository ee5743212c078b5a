// kiln runtime — helpers of the backward formulas: dispatcher ops by short
// names, float64 working copies, batched-matrix pieces (transpose, tril/triu,
// diagonals) and sums over broadcast dims. Private to kernels/autograd.
#ifndef KILN_KERNELS_AUTOGRAD_FORMULAUTILS_H
#define KILN_KERNELS_AUTOGRAD_FORMULAUTILS_H

#include "kiln/library.h"

#include <string>
#include <vector>

namespace kiln::formulas {

using Grads = std::vector<Tensor>;
using Ctx = AutogradContext;
using Shape = std::vector<int64_t>;

/// True when result `i`'s gradient was given.
inline bool has(const Grads &g, size_t i) { return i < g.size() && g[i].defined(); }

/// A contiguous float64 copy (formulas work in double and give the input's dtype back).
Tensor f64(const Tensor &t);
/// `t` converted to `dt` (float32 or float64), contiguous.
Tensor as(const Tensor &t, DType dt);
Tensor scalar(double v);

inline Tensor add(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::add.Tensor", a, b); }
inline Tensor sub(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::sub.Tensor", a, b); }
inline Tensor mul(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::mul.Tensor", a, b); }
inline Tensor div(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::div.Tensor", a, b); }
inline Tensor neg(const Tensor &a) { return call<Tensor>("aten::neg", a); }
inline Tensor scale(const Tensor &a, double s) { return mul(a, scalar(s)); }
inline Tensor matmul(const Tensor &a, const Tensor &b) { return call<Tensor>("aten::matmul", a, b); }
inline Tensor unsqueeze(const Tensor &a, int64_t d) { return call<Tensor>("aten::unsqueeze", a, d); }
inline Tensor reshape(const Tensor &a, const Shape &s) { return call<Tensor>("aten::reshape", a.contiguous(), s); }
/// The last two dims swapped, contiguous.
Tensor mT(const Tensor &a);
/// Lower (upper) triangle of each matrix: elements with j - i <= k (>= k), the rest zero.
Tensor tril(const Tensor &a, int64_t k = 0);
Tensor triu(const Tensor &a, int64_t k = 0);
/// The main diagonals of a batch of matrices, [..., min(m, n)].
Tensor diagonal(const Tensor &a);
/// Square matrices with `v`'s last dim on their diagonals, [..., n, n].
Tensor diagEmbed(const Tensor &v);
/// Identity matrices [n, n] (float64).
Tensor eye(int64_t n);
/// Sums a broadcast gradient back to `shape` (leading dims and dims of size 1).
Tensor sumTo(const Tensor &g, const Shape &shape);
/// The first `n` columns (`cols`) or rows of each matrix, contiguous.
Tensor narrowLast(const Tensor &a, int64_t dim, int64_t n);
/// Permutes dims of a contiguous tensor.
Tensor permute(const Tensor &a, const Shape &perm);
/// The values of an int64 or int32 tensor.
std::vector<int64_t> ints(const Tensor &t);
/// The data of a float64 tensor.
inline double *dp(const Tensor &t) { return t.data<double>(); }

} // namespace kiln::formulas

#endif
