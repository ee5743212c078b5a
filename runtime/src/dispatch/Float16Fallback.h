// kiln runtime — 16-bit floats through float32 CPU kernels: the signal a kernel raises for a dtype
// it has no loop for, and the dispatcher's rerun of such a call in float32 (Float16Fallback.cpp).
#ifndef KILN_DISPATCH_FLOAT16FALLBACK_H
#define KILN_DISPATCH_FLOAT16FALLBACK_H

#include "kiln/dispatcher.h"

namespace kiln {

/// Thrown by an eager CPU kernel whose loops do not cover `dtype` (before it writes anything).
class UnsupportedDTypeError : public Error {
public:
  UnsupportedDTypeError(const std::string &what, DType dtype) : Error(what), dtype(dtype) {}
  DType dtype;
};

inline bool isFloat16(DType t) { return t == DType::BFloat16 || t == DType::Float16; }

/// Whether `stack` (a call's arguments) holds a bfloat16 or float16 tensor.
bool holdsFloat16(const Stack &stack);

/// Runs `kernel` on `args` with every bfloat16/float16 tensor as float32, then rounds the float32
/// tensors it returns to that 16-bit dtype (PyTorch's CPU kernels compute 16-bit floats in float32
/// too). Leaves `stack` with the results. False, running nothing, where that would change what
/// the op means: it writes or aliases an argument, or its 16-bit tensors mix two dtypes.
bool runInFloat32(const FunctionSchema &schema, const Stack &args, Stack &stack,
                  const std::function<void(Stack &)> &kernel);

} // namespace kiln

#endif // KILN_DISPATCH_FLOAT16FALLBACK_H
