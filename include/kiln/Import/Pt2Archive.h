//===- Pt2Archive.h - reading torch.export .pt2 archives --------*- C++ -*-===//
//
// Opens a `.pt2` zip through the runtime's one archive reader
// (kiln/abi/archive.h), finds its members whatever the top folder is called,
// parses the JSON members with llvm::json and reads raw weights. Nothing in an
// archive is ever unpickled.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_PT2ARCHIVE_H
#define KILN_IMPORT_PT2ARCHIVE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <string>
#include <vector>

struct kiln_archive;

namespace kiln {

class Pt2Archive {
public:
  ~Pt2Archive();
  /// Opens `path`; fails with a message naming the file if it is missing, not
  /// a zip, truncated, or has no `models/model.json`.
  static llvm::Expected<std::unique_ptr<Pt2Archive>> open(llvm::StringRef path);

  const std::string &path() const { return path_; }
  /// The members' common folder, e.g. "model/" or "model.core/".
  const std::string &prefix() const { return prefix_; }
  bool hasMember(llvm::StringRef relative) const;
  /// Reads `prefix + relative` whole. Fails, before allocating, if the member
  /// claims more than `limit` bytes (0: kiln_limit_tensor_bytes()).
  llvm::Expected<std::vector<char>> read(llvm::StringRef relative, uint64_t limit = 0) const;
  /// Reads `prefix + relative` whole into `bytes` (resized to it), reusing
  /// the vector's memory: a caller reading many members through one vector
  /// allocates and faults in its pages once.
  llvm::Error readInto(llvm::StringRef relative, std::vector<char> &bytes, uint64_t limit = 0) const;
  /// The size `prefix + relative` claims, within `limit` as read() checks it,
  /// without reading it.
  llvm::Expected<uint64_t> size(llvm::StringRef relative, uint64_t limit = 0) const;
  /// Reads and parses a JSON member, within kiln_limit_json_bytes() and
  /// kiln_limit_json_depth().
  llvm::Expected<llvm::json::Value> readJSON(llvm::StringRef relative) const;

private:
  Pt2Archive() = default;
  std::string path_, prefix_;
  ::kiln_archive *archive_ = nullptr;
};

} // namespace kiln

#endif
