//===- WeightData.h - one weight's bytes, held or read when needed -*- C++ -*-===//
//
// The importer does not read a model's weights: it records where each one is
// (a member of the .pt2) and its size, and kiln-compile reads them when it
// writes them, one at a time, straight into the model (the appended blob, or
// the LLVM constant of --emit=obj). So the weights are never all in memory at
// once, and a model that is not compiled to the end (--explain, --emit=mlir,
// a compile error) never reads them (docs/Rationale/appended-weights.md).
//
#ifndef KILN_IMPORT_WEIGHTDATA_H
#define KILN_IMPORT_WEIGHTDATA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kiln {

class WeightData {
public:
  /// Reads the bytes into `out` (reusing its memory); false with a message
  /// naming where on failure.
  using Reader = std::function<bool(std::vector<char> &out, std::string &error)>;

  WeightData() = default;
  /// Bytes kiln made (optimizer state).
  explicit WeightData(std::vector<char> bytes) : size_(bytes.size()), held_(std::move(bytes)) {}
  /// `size` bytes that `reader` reads when they are needed.
  WeightData(uint64_t size, Reader reader) : size_(size), reader_(std::move(reader)) {}

  uint64_t size() const { return size_; }
  /// Calls `use` with the bytes (read now unless held, into `scratch` when
  /// given: one buffer reused over a model's weights is allocated and faulted
  /// in once); false, with the reader's message, if they cannot be read or
  /// are not `size()` bytes.
  bool withBytes(llvm::function_ref<void(llvm::ArrayRef<char>)> use, std::string &error,
                 std::vector<char> *scratch = nullptr) const;

private:
  uint64_t size_ = 0;
  std::vector<char> held_;
  Reader reader_;
};

/// Where a weight's elements lie in its archive member (the tensor's storage):
/// element (i0, i1, ...) at storageOffset + sum(i_d * strides[d]), each
/// `elemBytes` long. A channels-last parameter, a transposed one or a view
/// into a larger tensor is stored this way.
struct StridedLayout {
  uint64_t elemBytes = 0;
  std::vector<int64_t> sizes, strides;
  int64_t storageOffset = 0;
  /// Elements, and bytes of storage the view reaches (0 for an empty
  /// tensor): set by measure().
  uint64_t numel = 0, extentBytes = 0;
  /// Counts both; false where a count overflows 64 bits or a size, stride or
  /// the storage offset is negative (no tensor has such a view).
  bool measure();
  /// Row-major from offset 0: the member's first bytes are the tensor.
  bool isRowMajor() const;
};

/// The elements of `layout` in `storage`, in row-major order, into `out`;
/// false with a message if the view reaches past the storage.
bool gatherStrided(llvm::ArrayRef<char> storage, const StridedLayout &layout, std::vector<char> &out,
                   std::string &error);

/// Every parameter, buffer and constant of a program by its state-dict name.
using WeightMap = std::map<std::string, WeightData>;

} // namespace kiln

#endif
