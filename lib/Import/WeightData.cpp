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
  // Unsigned: an empty tensor's sizes may multiply past 64 bits (wrapping is
  // harmless there: it has no element to place).
  uint64_t expect = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && (uint64_t)strides[d] != expect)
      return false;
    expect *= (uint64_t)sizes[d];
  }
  return true;
}

bool StridedLayout::measure() {
  if (storageOffset < 0 || strides.size() != sizes.size())
    return false;
  uint64_t n = 1, last = (uint64_t)storageOffset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0 || __builtin_mul_overflow(n, (uint64_t)sizes[d], &n))
      return false;
  }
  numel = n;
  extentBytes = 0;
  if (n == 0)
    return true;
  for (size_t d = 0; d < sizes.size(); ++d) {
    uint64_t step;
    if (__builtin_mul_overflow((uint64_t)(sizes[d] - 1), (uint64_t)strides[d], &step) ||
        __builtin_add_overflow(last, step, &last))
      return false;
  }
  return !__builtin_add_overflow(last, (uint64_t)1, &last) &&
         !__builtin_mul_overflow(last, elemBytes, &extentBytes) &&
         !__builtin_mul_overflow(numel, elemBytes, &n);
}

bool gatherStrided(llvm::ArrayRef<char> storage, const StridedLayout &layout, std::vector<char> &out,
                   std::string &error) {
  uint64_t n = layout.numel, e = layout.elemBytes;
  if (layout.extentBytes > storage.size()) {
    error = "its strided view reaches " + std::to_string(layout.extentBytes) +
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
