// kiln runtime loader — .pt2 weights: the shared archive reader (kiln/abi/archive.h), nlohmann/json for the configs.
#include "Pt2Weights.h"
#include "../decomp/Complex.h"

#include "kiln/error.h"
#include "SerdeChecks.h"
#include "kiln/abi/archive.h"
#include "kiln/abi/limits.h"

#include "Json.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <sys/stat.h>

namespace kiln {

namespace {
const char *const kWeightsConfig = "data/weights/model_weights_config.json";
const char *const kConstantsConfig = "data/constants/model_constants_config.json";

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
kiln_archive *A(void *p) { return static_cast<kiln_archive *>(p); }
/// Takes a message from the archive reader (it names the archive and the
/// member) and throws it as a loader error.
[[noreturn]] void throwArchiveError(const std::string &path, char *error) {
  std::string msg = error ? error : "weights file '" + path + "': unknown archive error";
  kiln_archive_free(error);
  throw Error(KILN_STATUS_INVALID_ARGUMENT, msg);
}
} // namespace

bool Pt2Weights::dtypeFromSerde(int code, DType &out) {
  switch (code) {
  case 1: out = DType::UInt8; return true;
  case 2: out = DType::Int8; return true;
  case 3: out = DType::Int16; return true;
  case 4: out = DType::Int32; return true;
  case 5: out = DType::Int64; return true;
  case 6: out = DType::Float16; return true;
  case 7: out = DType::Float32; return true;
  case 8: out = DType::Float64; return true;
  case 12: out = DType::Bool; return true;
  case 13: out = DType::BFloat16; return true;
  default: return false;
  }
}

Pt2Weights::Pt2Weights(const std::string &path) : path_(path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw Error(KILN_STATUS_NOT_FOUND, "weights file '" + path + "' does not exist");
  char *error = nullptr;
  kiln_archive *a = kiln_archive_open(path.c_str(), &error);
  if (!a) throwArchiveError(path, error);
  archive_ = a;
  try {
    // The top folder is not fixed ("model/", "model.core/", ...): find the config.
    std::vector<std::string> configs;
    for (size_t i = 0, n = kiln_archive_member_count(a); i < n; ++i) {
      const char *name = kiln_archive_member_name(a, i);
      if (name && endsWith(name, kWeightsConfig)) configs.push_back(name);
    }
    if (configs.empty())
      throw Error(KILN_STATUS_INVALID_ARGUMENT,
                  "weights file '" + path + "' has no member ending in " + kWeightsConfig +
                      "; is it a .pt2 archive?");
    if (configs.size() > 1)
      throw Error(KILN_STATUS_INVALID_ARGUMENT,
                  "weights file '" + path + "' has several weight configs ('" + configs[0] +
                      "', '" + configs[1] + "'); kiln reads single-model archives");
    prefix_ = configs[0].substr(0, configs[0].size() - std::strlen(kWeightsConfig));
    parseConfig(configs[0], false);
    std::string constants = prefix_ + kConstantsConfig;
    if (kiln_archive_has_member(a, constants.c_str())) parseConfig(constants, true);
  } catch (...) {
    kiln_archive_close(a);
    archive_ = nullptr;
    throw;
  }
}

Pt2Weights::~Pt2Weights() { kiln_archive_close(A(archive_)); }

std::string Pt2Weights::readMember(const std::string &member, uint64_t limit) const {
  char *data = nullptr, *error = nullptr;
  uint64_t size = 0;
  if (kiln_archive_read(A(archive_), member.c_str(), limit, &data, &size, &error) != 0)
    throwArchiveError(path_, error);
  std::string bytes(data, (size_t)size);
  kiln_archive_free(data);
  return bytes;
}

std::string Pt2Weights::readJsonMember(const std::string &member) const {
  std::string text = readMember(member, kiln_limit_json_bytes());
  uint64_t depth = kiln_json_nesting_depth(text.data(), text.size());
  if (depth > kiln_limit_json_depth())
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "'" + path_ + "', " + member + ": JSON nested " + std::to_string(depth) +
                    " levels deep, more than kiln's limit of " +
                    std::to_string(kiln_limit_json_depth()) + " (KILN_MAX_JSON_DEPTH, docs/limits.md)");
  return text;
}

void Pt2Weights::parseConfig(const std::string &member, bool constants) {
  std::string where = "weights file '" + path_ + "', " + member;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readJsonMember(member));
  } catch (const nlohmann::json::exception &e) {
    throw Error(KILN_STATUS_INVALID_ARGUMENT, where + ": malformed JSON: " + e.what());
  }
  auto bad = [&](const std::string &name, const std::string &why) {
    return Error(KILN_STATUS_INVALID_ARGUMENT,
                 where + (name.empty() ? "" : ", entry '" + name + "'") + ": " + why);
  };
  try {
    checkSerdeIntegers(j, where);
  } catch (const std::runtime_error &e) {
    throw Error(KILN_STATUS_INVALID_ARGUMENT, e.what());
  }
  if (!j.is_object() || !j.contains("config") || !j["config"].is_object())
    throw bad("", "expected an object with a \"config\" object");
  std::string folder = prefix_ + (constants ? "data/constants/" : "data/weights/");
  for (auto it = j["config"].begin(); it != j["config"].end(); ++it) {
    const std::string &name = it.key();
    const nlohmann::json &e = it.value();
    Entry entry;
    entry.isConstant = constants;
    try {
      if (!e.is_object()) throw bad(name, "not an object");
      if (!e.contains("path_name") || !e["path_name"].is_string())
        throw bad(name, "missing string \"path_name\"");
      entry.member = folder + e["path_name"].get<std::string>();
      entry.isParam = e.value("is_param", false);
      entry.usePickle = e.value("use_pickle", false);
      if (entry.usePickle) {
        // Recorded, refused when read: kiln never unpickles anything.
        entries_[name] = entry;
        continue;
      }
      if (!e.contains("tensor_meta") || !e["tensor_meta"].is_object())
        throw bad(name, "missing \"tensor_meta\"");
      // A complex weight is read as its real pairs (decomp/Complex.cpp), as
      // the graph's complex values are.
      nlohmann::json tm = e["tensor_meta"];
      decomp::complexMetaToReal(tm);
      if (!tm.contains("dtype") || !tm["dtype"].is_number_integer())
        throw bad(name, "missing integer \"tensor_meta.dtype\"");
      int code = tm["dtype"].get<int>();
      if (!dtypeFromSerde(code, entry.dtype))
        throw bad(name, "unsupported dtype code " + std::to_string(code));
      auto ints = [&](const char *key, std::vector<int64_t> &out) {
        if (!tm.contains(key) || !tm[key].is_array())
          throw bad(name, std::string("missing array \"tensor_meta.") + key + "\"");
        for (const auto &s : tm[key]) {
          if (!s.is_object() || !s.contains("as_int") || !s["as_int"].is_number_integer())
            throw bad(name, std::string("\"tensor_meta.") + key +
                                "\" holds a non-integer (symbolic?) entry: " + s.dump());
          out.push_back(s["as_int"].get<int64_t>());
        }
      };
      ints("sizes", entry.sizes);
      if (tm.contains("strides")) ints("strides", entry.strides);
      else entry.strides = Tensor::contiguousStrides(entry.sizes);
      if (entry.strides.size() != entry.sizes.size())
        throw bad(name, "sizes and strides differ in length");
      for (size_t d = 0; d < entry.sizes.size(); ++d)
        if (entry.sizes[d] < 0 || entry.strides[d] < 0)
          throw bad(name, "negative size or stride");
      if (tm.contains("storage_offset")) {
        const auto &so = tm["storage_offset"];
        if (so.is_object() && so.contains("as_int") && so["as_int"].is_number_integer())
          entry.storageOffset = so["as_int"].get<int64_t>();
        else if (so.is_number_integer())
          entry.storageOffset = so.get<int64_t>();
        else
          throw bad(name, "bad \"tensor_meta.storage_offset\"");
        if (entry.storageOffset < 0) throw bad(name, "negative storage offset");
      }
    } catch (const nlohmann::json::exception &ex) {
      throw bad(name, std::string("malformed entry: ") + ex.what());
    }
    entries_[name] = std::move(entry);
  }
}

Tensor Pt2Weights::read(const std::string &name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw Error(KILN_STATUS_NOT_FOUND,
                "weights file '" + path_ + "' has no weight or constant named '" + name + "'");
  const Entry &e = it->second;
  if (e.usePickle)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "weights file '" + path_ + "': '" + name +
                    "' is stored pickled (use_pickle); kiln never unpickles data — re-export it "
                    "as a plain tensor");
  size_t elem = dtypeSize(e.dtype);
  // Elements the strided view reaches: offset + sum((size-1)*stride) + 1, and the
  // elements of the result; both checked against the limit before allocating.
  uint64_t numel = 1, extent = (uint64_t)e.storageOffset + 1, bytesNeeded = 0, outBytes = 0;
  bool overflow = false;
  for (size_t d = 0; d < e.sizes.size(); ++d) {
    uint64_t reach = 0;
    overflow |= __builtin_mul_overflow(numel, (uint64_t)e.sizes[d], &numel);
    if (e.sizes[d])
      overflow |= __builtin_mul_overflow((uint64_t)(e.sizes[d] - 1), (uint64_t)e.strides[d], &reach);
    overflow |= __builtin_add_overflow(extent, reach, &extent);
  }
  overflow |= __builtin_mul_overflow(extent, (uint64_t)elem, &bytesNeeded);
  overflow |= __builtin_mul_overflow(numel, (uint64_t)elem, &outBytes);
  if (overflow || outBytes > kiln_limit_tensor_bytes() ||
      (numel && bytesNeeded > kiln_limit_tensor_bytes()))
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "weights file '" + path_ + "': '" + name + "' of shape " + shapeToString(e.sizes) +
                    " is larger than kiln's limit of " + std::to_string(kiln_limit_tensor_bytes()) +
                    " bytes (KILN_MAX_TENSOR_BYTES, docs/limits.md)");
  if (numel == 0) return Tensor::empty(e.sizes, e.dtype);
  char *raw = nullptr, *error = nullptr;
  uint64_t rawSize = 0;
  if (kiln_archive_read(A(archive_), e.member.c_str(), 0, &raw, &rawSize, &error) != 0)
    throwArchiveError(path_, error);
  std::unique_ptr<char, void (*)(void *)> owned(raw, kiln_archive_free);
  if (bytesNeeded > rawSize)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "weights file '" + path_ + "': member '" + e.member + "' for '" + name + "' has " +
                    std::to_string(rawSize) + " bytes, but " + shapeToString(e.sizes) +
                    " of " + dtypeName(e.dtype) + " needs " + std::to_string(bytesNeeded));
  auto storage = Storage::allocate((size_t)rawSize);
  std::memcpy(storage->data(), raw, (size_t)rawSize);
  // Raw bytes are little-endian, as is every host kiln runs on.
  Tensor view = Tensor::view(storage, e.storageOffset, e.sizes, e.strides, e.dtype);
  Tensor out = Tensor::empty(e.sizes, e.dtype);
  out.copyFrom(view);
  return out;
}

} // namespace kiln
