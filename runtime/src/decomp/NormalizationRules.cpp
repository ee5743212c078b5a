// kiln runtime — composite rules: normalisation layers.
#include "Rules.h"

namespace kiln::decomp {

const char *const kNormalizationRules = R"(
# layer_norm: native_layer_norm's first result
def layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
  y, m, s = aten::native_layer_norm.default(input=input, normalized_shape=normalized_shape, weight=weight, bias=bias, eps=eps) : like input ; trailing1 input normalized_shape ; trailing1 input normalized_shape
  return y
)";

} // namespace kiln::decomp
