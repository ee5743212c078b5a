// kiln test plugin — a second KILN_LIBRARY for namespace aten, which the runtime already defines.
#include "kiln/library.h"

KILN_LIBRARY(aten, m) { m.def("kiln_test_op(Tensor x) -> Tensor"); }
