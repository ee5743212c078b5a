// kiln runtime — backward formulas of the gamma-family special functions:
// lgamma' = digamma, digamma' = polygamma(1, .), polygamma(n, .)' = polygamma(n + 1, .).
#include "kiln/library.h"

namespace kiln {
namespace {

using Grads = std::vector<Tensor>;
using Ctx = AutogradContext;

Tensor times(const Tensor &g, const Tensor &d) { return call<Tensor>("aten::mul.Tensor", g, d); }

} // namespace
} // namespace kiln

KILN_LIBRARY_FRAGMENT(aten, m) {
  using namespace kiln;
  m.register_autograd("lgamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    return {times(g[0], call<Tensor>("aten::digamma", c.input(0)))};
  });
  m.register_autograd("digamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor()};
    return {times(g[0], call<Tensor>("aten::polygamma", int64_t(1), c.input(0)))};
  });
  // polygamma(int n, Tensor self): n has no gradient.
  m.register_autograd("polygamma", [](const Ctx &c, const Grads &g) -> Grads {
    if (g.empty() || !g[0].defined()) return {Tensor(), Tensor()};
    return {Tensor(), times(g[0], call<Tensor>("aten::polygamma", c.inputs[0].toInt() + 1, c.input(1)))};
  });
}
