// kiln test plugin — needs a function that no library defines, so loading it fails.
#include "kiln/library.h"

extern "C" double kiln_test_function_nobody_defines(double);

KILN_LIBRARY(kilnmissing, m) {
  m.def("uses_missing(Tensor x) -> Tensor");
}
KILN_LIBRARY_IMPL(kilnmissing, CPU, m) {
  m.impl("uses_missing", [](const kiln::Tensor &x) {
    kiln::Tensor out = x.clone();
    out.data<float>()[0] = (float)kiln_test_function_nobody_defines(1.0);
    return out;
  });
}
