// kiln fuzz target — the eager interpreter's .pt2 loader, then one run on zero inputs of the declared shapes.
#include "FuzzUtil.h"
#include "Pt2MutatorHook.h"

#include "kiln/eager.h"

#include <algorithm>
#include <exception>

KILN_FUZZ_INITIALIZE_WITH_LIMITS()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln::fuzz::MemFile file(data, size);
  try {
    auto program = kiln::eager::Program::load(file.path());
    std::vector<kiln::Tensor> inputs;
    int64_t total = 0;
    for (const kiln::eager::ValueSpec &s : program->inputs()) {
      std::vector<int64_t> sizes;
      for (size_t d = 0; d < s.sizes.size(); ++d)
        sizes.push_back(s.sizes[d] >= 0 ? s.sizes[d] : std::max<int64_t>(1, s.minSizes[d]));
      int64_t n = 1;
      for (int64_t v : sizes)
        if (__builtin_mul_overflow(n, v, &n) || n > (1 << 22))
          return 0; // a legal but large input: not what this target looks for
      total += n;
      inputs.push_back(kiln::Tensor::zeros(sizes, s.dtype));
    }
    if (total <= (1 << 22))
      (void)program->run(inputs);
  } catch (const std::exception &) {
    // A clear error is the expected outcome for a broken archive.
  }
  return 0;
}
