// kiln test plugin — a kilntest::scaled_gelu CPU kernel that fails the way
// $KILN_TEST_THROW says: "runtime_error" (a std::exception), "bad_alloc" (out
// of memory) or "int" (not an exception class at all).
#include "kiln/library.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace {
kiln::Tensor failingGelu(const kiln::Tensor &, double) {
  const char *how = std::getenv("KILN_TEST_THROW");
  std::string h = how ? how : "runtime_error";
  if (h == "bad_alloc")
    throw std::bad_alloc();
  if (h == "int")
    throw 42;
  throw std::runtime_error("kilntest::scaled_gelu from the throwing test plugin failed on purpose");
}

kiln::Tensor fakeGelu(const kiln::Tensor &x, double) {
  return kiln::Tensor::empty(x.sizes(), x.dtype(), kiln::Device{kiln::DeviceType::Meta});
}
} // namespace

KILN_LIBRARY(kilntest, m) {
  m.def("scaled_gelu(Tensor x, float scale) -> Tensor");
  m.impl_fake("scaled_gelu", fakeGelu);
}
KILN_LIBRARY_IMPL(kilntest, CPU, m) { m.impl("scaled_gelu", failingGelu); }
