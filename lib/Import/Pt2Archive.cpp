//===- Pt2Archive.cpp - reading torch.export .pt2 archives ----------------===//
#include "kiln/Import/Pt2Archive.h"

#include "kiln/abi/limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <zip.h>

#include <algorithm>

using namespace llvm;

namespace kiln {

static Error archiveError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

Pt2Archive::~Pt2Archive() {
  if (zip_)
    zip_discard(zip_);
}

Expected<std::unique_ptr<Pt2Archive>> Pt2Archive::open(StringRef path) {
  if (!sys::fs::exists(path))
    return archiveError("no such file: '" + path + "'");
  if (sys::fs::is_directory(path))
    return archiveError("'" + path + "' is a directory, not a .pt2 archive");
  int err = 0;
  zip_t *z = zip_open(path.str().c_str(), ZIP_RDONLY, &err);
  if (!z) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string msg = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    return archiveError("'" + path + "' is not a readable .pt2 (zip) archive: " + msg);
  }
  std::unique_ptr<Pt2Archive> a(new Pt2Archive());
  a->path_ = path.str();
  a->zip_ = z;
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (const char *name = zip_get_name(z, i, 0))
      a->names_.push_back(name);
  // The graph lives at <prefix>models/model.json; the prefix is the top folder.
  for (const std::string &name : a->names_) {
    StringRef s(name);
    if (s.ends_with("models/model.json")) {
      a->prefix_ = s.drop_back(strlen("models/model.json")).str();
      return a;
    }
  }
  return archiveError("'" + path + "' has no models/model.json member: not a torch.export archive");
}

bool Pt2Archive::hasMember(StringRef relative) const {
  std::string full = prefix_ + relative.str();
  return llvm::is_contained(names_, full);
}

Expected<std::vector<char>> Pt2Archive::read(StringRef relative, uint64_t limit) const {
  std::string full = prefix_ + relative.str();
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(zip_, full.c_str(), 0, &st) != 0)
    return archiveError("'" + path_ + "' has no member '" + full + "'");
  if (!limit)
    limit = kiln_limit_tensor_bytes();
  // The size in the zip directory is only a claim: refuse what exceeds the
  // limit before allocating, and grow the buffer only as data really arrives.
  if (!(st.valid & ZIP_STAT_SIZE) || st.size > limit)
    return archiveError(formatv("member '{0}' of '{1}' claims {2} bytes, more than kiln's limit "
                                "of {3} (KILN_MAX_TENSOR_BYTES / KILN_MAX_JSON_BYTES, "
                                "docs/limits.md)",
                                full, path_, st.size, limit));
  zip_file_t *f = zip_fopen(zip_, full.c_str(), 0);
  if (!f)
    return archiveError("cannot open member '" + full + "' of '" + path_ +
                        "': " + zip_strerror(zip_));
  std::vector<char> data;
  constexpr zip_uint64_t kChunk = 16u << 20;
  zip_int64_t got = 0;
  while ((zip_uint64_t)got < st.size) {
    zip_uint64_t want = std::min<zip_uint64_t>(kChunk, st.size - got);
    data.resize(got + want);
    zip_int64_t n = zip_fread(f, data.data() + got, want);
    if (n <= 0) {
      if (n < 0)
        got = -1;
      break;
    }
    got += n;
  }
  std::string ferr = got < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (got < 0 || (zip_uint64_t)got != st.size)
    return archiveError(formatv("member '{0}' of '{1}' is truncated or corrupt{2}", full, path_,
                                ferr.empty() ? "" : ": " + ferr));
  data.resize(got);
  return data;
}

Expected<json::Value> Pt2Archive::readJSON(StringRef relative) const {
  auto bytes = read(relative, kiln_limit_json_bytes());
  if (!bytes)
    return bytes.takeError();
  // llvm::json parses (and frees) recursively: refuse deep nesting first.
  uint64_t depth = kiln_json_nesting_depth(bytes->data(), bytes->size());
  if (depth > kiln_limit_json_depth())
    return archiveError(formatv("member '{0}{1}' of '{2}' nests JSON {3} levels deep, more than "
                                "kiln's limit of {4} (KILN_MAX_JSON_DEPTH, docs/limits.md)",
                                prefix_, relative, path_, depth, kiln_limit_json_depth()));
  auto value = json::parse(StringRef(bytes->data(), bytes->size()));
  if (!value)
    return archiveError("member '" + prefix_ + relative + "' of '" + path_ +
                        "' is not valid JSON: " + toString(value.takeError()));
  return value;
}

} // namespace kiln
