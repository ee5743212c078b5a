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

/// Writes `t` (any strides) as a C-ordered .npy, format 1.0 when the header fits
/// and 2.0 otherwise. Atomic: the data goes to a temporary file in the same folder
/// that is renamed over `path`, so a failure never leaves a partial file.
/// bf16 has no NumPy dtype and is refused (convert to f32 first). Thread-safe for
/// distinct paths.
void writeNpy(const std::string &path, const Tensor &t);

/// The .npy bytes `writeNpy` would write.
std::string serializeNpy(const Tensor &t);

} // namespace kiln

#endif // KILN_NPY_H
