// kiln importer — one weight's bytes, held or read when needed (kiln/Import/WeightData.h).
#include "kiln/Import/WeightData.h"

#include <string>

namespace kiln {

bool WeightData::withBytes(llvm::function_ref<void(llvm::ArrayRef<char>)> use, std::string &error,
                           std::vector<char> *scratch) const {
  if (!reader_) {
    use(held_);
    return true;
  }
  std::vector<char> local;
  std::vector<char> &bytes = scratch ? *scratch : local;
  if (!reader_(bytes, error))
    return false;
  if (bytes.size() != size_) {
    error = "a weight read " + std::to_string(bytes.size()) + " bytes where its archive claimed " +
            std::to_string(size_);
    return false;
  }
  use(bytes);
  return true;
}

} // namespace kiln
