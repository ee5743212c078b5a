// kiln importer — one weight's bytes, held or read when needed (kiln/Import/WeightData.h).
#include "kiln/Import/WeightData.h"

#include <cstring>
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

bool StridedLayout::isRowMajor() const {
  if (storageOffset != 0)
    return false;
  int64_t expect = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != expect)
      return false;
    expect *= sizes[d];
  }
  return true;
}

uint64_t StridedLayout::numel() const {
  uint64_t n = 1;
  for (int64_t s : sizes)
    n *= (uint64_t)s;
  return n;
}

uint64_t StridedLayout::extentBytes() const {
  if (numel() == 0)
    return 0;
  uint64_t last = (uint64_t)storageOffset;
  for (size_t d = 0; d < sizes.size(); ++d)
    last += (uint64_t)(sizes[d] - 1) * (uint64_t)strides[d];
  return (last + 1) * elemBytes;
}

bool gatherStrided(llvm::ArrayRef<char> storage, const StridedLayout &layout, std::vector<char> &out,
                   std::string &error) {
  uint64_t n = layout.numel(), e = layout.elemBytes;
  if (layout.extentBytes() > storage.size()) {
    error = "its strided view reaches " + std::to_string(layout.extentBytes()) +
            " bytes of a storage of " + std::to_string(storage.size());
    return false;
  }
  out.resize(n * e);
  size_t rank = layout.sizes.size();
  std::vector<int64_t> index(rank, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t at = (uint64_t)layout.storageOffset;
    for (size_t d = 0; d < rank; ++d)
      at += (uint64_t)index[d] * (uint64_t)layout.strides[d];
    std::memcpy(out.data() + i * e, storage.data() + at * e, e);
    for (size_t d = rank; d-- > 0;) { // the next index, last dim fastest
      if (++index[d] < layout.sizes[d])
        break;
      index[d] = 0;
    }
  }
  return true;
}

} // namespace kiln
