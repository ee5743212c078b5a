//===- Pt2Archive.cpp - reading torch.export .pt2 archives ----------------===//
// The zip itself is read by the runtime's one archive reader
// (kiln/abi/archive.h); this adds the archive's layout and llvm::json.
#include "kiln/Import/Pt2Archive.h"

#include "kiln/abi/archive.h"
#include "kiln/abi/limits.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace kiln {

/// An llvm::Error holding (and freeing) a message from the archive reader.
static Error archiveError(char *message) {
  std::string msg = message ? message : "unknown archive error";
  kiln_archive_free(message);
  return createStringError(inconvertibleErrorCode(), msg);
}

Pt2Archive::~Pt2Archive() { kiln_archive_close(archive_); }

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open(StringRef path) {
  char *error = nullptr;
  kiln_archive *archive = kiln_archive_open(path.str().c_str(), &error);
  if (!archive)
    return archiveError(error);
  std::unique_ptr<Pt2Archive> a(new Pt2Archive());
  a->path_ = path.str();
  a->archive_ = archive;
  // The graph lives at <prefix>models/model.json; the prefix is the top folder.
  for (size_t i = 0, n = kiln_archive_member_count(archive); i < n; ++i) {
    StringRef name = kiln_archive_member_name(archive, i);
    if (name.ends_with("models/model.json")) {
      a->prefix_ = name.drop_back(strlen("models/model.json")).str();
      return a;
    }
  }
  return createStringError(inconvertibleErrorCode(),
                           "'" + path + "' has no models/model.json member: not a torch.export archive");
}

bool Pt2Archive::hasMember(StringRef relative) const {
  return kiln_archive_has_member(archive_, (prefix_ + relative.str()).c_str()) != 0;
}

Expected<std::vector<char>> Pt2Archive::read(StringRef relative, uint64_t limit) const {
  std::vector<char> bytes;
  if (Error e = readInto(relative, bytes, limit))
    return std::move(e);
  return bytes;
}

Error Pt2Archive::readInto(StringRef relative, std::vector<char> &bytes, uint64_t limit) const {
  std::string full = prefix_ + relative.str();
  char *error = nullptr;
  uint64_t size = 0;
  // The reader's chunks: the vector never shrinks its capacity, so a member
  // no larger than one read before lands in memory already touched.
  auto grow = [](void *context, uint64_t n) -> void * {
    auto *v = static_cast<std::vector<char> *>(context);
    v->resize(n);
    return v->data();
  };
  if (kiln_archive_read_into(archive_, full.c_str(), limit, grow, &bytes, &size, &error) != 0)
    return archiveError(error);
  bytes.resize(size);
  return Error::success();
}

Expected<uint64_t> Pt2Archive::size(StringRef relative, uint64_t limit) const {
  std::string full = prefix_ + relative.str();
  char *error = nullptr;
  uint64_t size = 0;
  if (kiln_archive_member_size(archive_, full.c_str(), limit, &size, &error) != 0)
    return archiveError(error);
  return size;
}

Expected<json::Value> Pt2Archive::readJSON(StringRef relative) const {
  auto bytes = read(relative, kiln_limit_json_bytes());
  if (!bytes)
    return bytes.takeError();
  // llvm::json parses (and frees) recursively: refuse deep nesting first.
  uint64_t depth = kiln_json_nesting_depth(bytes->data(), bytes->size());
  if (depth > kiln_limit_json_depth())
    return createStringError(
        inconvertibleErrorCode(),
        formatv("member '{0}{1}' of '{2}' nests JSON {3} levels deep, more than "
                "kiln's limit of {4} (KILN_MAX_JSON_DEPTH, docs/limits.md)",
                prefix_, relative, path_, depth, kiln_limit_json_depth()));
  auto value = json::parse(StringRef(bytes->data(), bytes->size()));
  if (!value)
    return createStringError(inconvertibleErrorCode(), "member '" + prefix_ + relative + "' of '" +
                                                           path_ + "' is not valid JSON: " +
                                                           toString(value.takeError()));
  return value;
}

} // namespace kiln
