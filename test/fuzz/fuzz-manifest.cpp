// kiln fuzz target — the compiled model's manifest parser (read from every .so kiln-run or kiln_model_load opens).
#include "Manifest.h"

#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    kiln::Manifest m = kiln::parseManifest(std::string(reinterpret_cast<const char *>(data), size));
    for (const kiln::ManifestValue &v : m.args)
      (void)kiln::dimsToString(m, v.dims);
    for (const kiln::ManifestValue &v : m.outputs)
      (void)kiln::dimsToString(m, v.dims);
  } catch (const std::exception &) {
  }
  return 0;
}
