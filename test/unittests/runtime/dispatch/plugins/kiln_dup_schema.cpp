// kiln test plugin — defines kilntest::scaled_gelu again (after the example
// plugin did), which must fail and leave nothing of this plugin registered.
#include "kiln/library.h"

KILN_LIBRARY_FRAGMENT(kilntest, m) {
  m.def("dup_extra(Tensor x) -> Tensor");
  m.def("scaled_gelu(Tensor x, float scale) -> Tensor");
}
