// kiln runtime loader — reads weights and constants out of a .pt2 archive by name.
#ifndef KILN_LOADER_PT2WEIGHTS_H
#define KILN_LOADER_PT2WEIGHTS_H

#include "kiln/tensor.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// The weights index of a .pt2 archive: data/weights/model_weights_config.json and
/// data/constants/model_constants_config.json under whatever top folder the archive
/// uses. Reading never unpickles: pickled entries are refused. Not thread-safe.
class Pt2Weights {
public:
  /// Opens `path` and reads both configs. Throws kiln::Error naming the file.
  explicit Pt2Weights(const std::string &path);
  ~Pt2Weights();
  Pt2Weights(const Pt2Weights &) = delete;
  Pt2Weights &operator=(const Pt2Weights &) = delete;

  struct Entry {
    std::string member;       ///< zip member holding the raw bytes
    DType dtype;
    std::vector<int64_t> sizes, strides;
    int64_t storageOffset = 0;
    bool isParam = false, isConstant = false, usePickle = false;
  };

  const std::string &path() const { return path_; }
  /// The folder prefix of the archive's members, e.g. "model/" or "model.core/".
  const std::string &prefix() const { return prefix_; }
  bool contains(const std::string &name) const { return entries_.count(name) != 0; }
  const std::map<std::string, Entry> &entries() const { return entries_; }
  /// Reads the named tensor as a fresh contiguous tensor. Throws kiln::Error
  /// (NOT_FOUND for an unknown name, INVALID_ARGUMENT for pickled or short data).
  Tensor read(const std::string &name) const;

  /// Maps a torch serde ScalarType code to a DType; false if kiln has no such dtype.
  static bool dtypeFromSerde(int code, DType &out);

  /// Reads a member (full path) whole. Throws INVALID_ARGUMENT, before
  /// allocating, if it claims more than `limit` bytes (0: kiln_limit_tensor_bytes()).
  std::string readMember(const std::string &member, uint64_t limit = 0) const;
  /// Reads and parses a JSON member within kiln_limit_json_bytes() and
  /// kiln_limit_json_depth(); the text is returned for the caller's parser.
  std::string readJsonMember(const std::string &member) const;

private:
  void parseConfig(const std::string &member, bool constants);

  std::string path_, prefix_;
  void *archive_ = nullptr;  // kiln_archive*, kept out of this header
  std::map<std::string, Entry> entries_;
};

} // namespace kiln

#endif // KILN_LOADER_PT2WEIGHTS_H
