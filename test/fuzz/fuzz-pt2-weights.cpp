// kiln fuzz target — the runtime's external-weights loader (kiln-run --weights, the weights_path option).
#include "FuzzUtil.h"
#include "Pt2MutatorHook.h"

#include "Pt2Weights.h"

#include <exception>

KILN_FUZZ_INITIALIZE_WITH_LIMITS()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln::fuzz::MemFile file(data, size);
  try {
    kiln::Pt2Weights weights(file.path());
    for (const auto &[name, entry] : weights.entries()) {
      try {
        (void)weights.read(name);
      } catch (const std::exception &) {
      }
    }
  } catch (const std::exception &) {
  }
  return 0;
}
