// kiln runtime loader — where a model's weight blob is: its exported symbol, or the bytes appended to its file.
#ifndef KILN_LOADER_WEIGHTBLOB_H
#define KILN_LOADER_WEIGHTBLOB_H

#include <cstddef>
#include <memory>
#include <string>

namespace kiln {

struct Manifest;

/// A model's weight blob, read-only: memory of the loaded .so (`weights
/// embedded`), or a mapping of the bytes appended to its file (`weights
/// appended`), unmapped when the last copy of `mapping` goes.
struct WeightBlob {
  const void *data = nullptr;
  size_t size = 0;                ///< bytes; 0 when unknown (an embedded symbol without a size)
  std::shared_ptr<void> mapping;  ///< the appended blob's mapping; null otherwise
};

/// The blob of the model `path` (opened as `openPath`, dlopened as `handle`)
/// whose manifest is `manifest`: none for external weights, KILN_SYM_WEIGHTS
/// for embedded ones, the appended bytes (kiln/abi/appended_weights.h),
/// mapped read-only, for appended ones. Throws kiln::Error naming the model
/// and what is missing or damaged.
WeightBlob findWeightBlob(void *handle, const std::string &path, const std::string &openPath,
                          const Manifest &manifest);

/// The size of the object a dynamic symbol's address points to, or 0 if the ELF does not say.
size_t dynamicSymbolSize(const void *addr);

} // namespace kiln

#endif
