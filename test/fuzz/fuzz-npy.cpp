// kiln fuzz target — the .npy reader (kiln-run --input/--expect, the Python package's inputs).
#include "kiln/npy.h"

#include <exception>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    kiln::Tensor t = kiln::parseNpy(data, size, "fuzz.npy");
    // What was read must write back and read again to the same tensor.
    std::string again = kiln::serializeNpy(t);
    kiln::Tensor u = kiln::parseNpy(again.data(), again.size(), "fuzz-again.npy");
    if (u.sizes() != t.sizes() || u.dtype() != t.dtype() || u.nbytes() != t.nbytes())
      __builtin_trap();
  } catch (const std::exception &) {
  }
  return 0;
}
