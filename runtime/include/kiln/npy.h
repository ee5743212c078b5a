// kiln runtime — reading and writing NumPy .npy files as kiln::Tensor.
#ifndef KILN_NPY_H
#define KILN_NPY_H

#include "kiln/tensor.h"

#include <stdexcept>
#include <string>

namespace kiln {

/// Thrown for any unreadable, malformed or unsupported .npy file; the message names
/// the file.
class NpyError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Reads a .npy file (format versions 1.0, 2.0 and 3.0). Supported descrs:
/// <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1 (little-endian or byte-sized; '=' is taken
/// as little-endian). Fortran-ordered arrays are returned C-contiguous. Booleans are
/// normalised to 0/1. Thread-safe.
Tensor readNpy(const std::string &path);

/// Parses .npy bytes held in memory; `name` is used in error messages.
Tensor parseNpy(const void *data, size_t size, const std::string &name);

/// Reads a .npy file for a value of dtype `want`. NumPy has no bfloat16, so kiln's
/// convention is that bf16 data travels as float32 (`<f4`) files: when `want` is
/// bf16 and the file holds f32, the values are rounded to bf16 (to nearest, ties
/// to even; exact for values that came from bf16). Any other file is returned as
/// readNpy returns it; the caller checks its dtype. Thread-safe.
Tensor readNpyFor(const std::string &path, DType want);

/// Writes `t` (any strides) as a C-ordered .npy, format 1.0 when the header fits
/// and 2.0 otherwise. Atomic: the data goes to a temporary file in the same folder
/// that is renamed over `path`, so a failure never leaves a partial file.
/// bf16 tensors are written as float32 (`<f4`, exact: every bf16 is an f32), the
/// convention readNpyFor reads back. Thread-safe for distinct paths.
void writeNpy(const std::string &path, const Tensor &t);

/// The .npy bytes `writeNpy` would write.
std::string serializeNpy(const Tensor &t);

/// Element conversions between bf16 and f32 (round to nearest even; NaN stays a
/// quiet NaN) used by the bf16-as-f32 convention.
Tensor bf16ToF32(const Tensor &t);
Tensor f32ToBf16(const Tensor &t);

} // namespace kiln

#endif // KILN_NPY_H
