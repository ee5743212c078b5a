// kiln runtime loader — the one .pt2 (zip) member reader (kiln/abi/archive.h), on libzip.
#include "kiln/abi/archive.h"
#include "kiln/abi/limits.h"

#include <zip.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unordered_set>
#include <vector>

struct kiln_archive {
  std::string path;
  zip_t *zip = nullptr;
  std::vector<std::string> names;
  std::unordered_set<std::string> nameSet;
};

namespace {
/// A malloc'd copy of `s` for the C caller.
char *dup(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}
int fail(char **error, const std::string &msg) {
  if (error) *error = dup(msg);
  return -1;
}
} // namespace

extern "C" kiln_archive *kiln_archive_open(const char *path, char **error) {
  if (error) *error = nullptr;
  std::string p = path ? path : "";
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) {
    fail(error, "no such file: '" + p + "'");
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    fail(error, "'" + p + "' is a directory, not a .pt2 archive");
    return nullptr;
  }
  int err = 0;
  zip_t *z = zip_open(p.c_str(), ZIP_RDONLY, &err);
  if (!z) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string why = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    fail(error, "'" + p + "' is not a readable .pt2 (zip) archive: " + why);
    return nullptr;
  }
  auto *a = new kiln_archive;
  a->path = p;
  a->zip = z;
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (const char *name = zip_get_name(z, (zip_uint64_t)i, 0)) {
      a->names.push_back(name);
      a->nameSet.insert(name);
    }
  return a;
}

extern "C" void kiln_archive_close(kiln_archive *a) {
  if (!a) return;
  if (a->zip) zip_discard(a->zip);
  delete a;
}

extern "C" const char *kiln_archive_path(const kiln_archive *a) { return a->path.c_str(); }

extern "C" size_t kiln_archive_member_count(const kiln_archive *a) { return a->names.size(); }

extern "C" const char *kiln_archive_member_name(const kiln_archive *a, size_t index) {
  return index < a->names.size() ? a->names[index].c_str() : nullptr;
}

extern "C" int kiln_archive_has_member(const kiln_archive *a, const char *member) {
  return member && a->nameSet.count(member) ? 1 : 0;
}

namespace {
/// The index and claimed size of `m`, checked against `limit`; -1 and *error if not.
int claimedSize(const kiln_archive *a, const std::string &m, uint64_t limit, zip_int64_t &idx, zip_stat_t &st,
                char **error) {
  idx = zip_name_locate(a->zip, m.c_str(), 0);
  if (idx < 0) return fail(error, "'" + a->path + "' has no member '" + m + "'");
  zip_stat_init(&st);
  if (zip_stat_index(a->zip, (zip_uint64_t)idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
    return fail(error, "cannot read the size of member '" + m + "' of '" + a->path + "'");
  if (!limit) limit = kiln_limit_tensor_bytes();
  // The size in the zip directory is only a claim: refuse what exceeds the
  // limit before allocating, and grow the buffer only as data really arrives.
  if (st.size > limit)
    return fail(error, "member '" + m + "' of '" + a->path + "' claims " + std::to_string(st.size) +
                           " bytes, more than kiln's limit of " + std::to_string(limit) +
                           " (KILN_MAX_TENSOR_BYTES / KILN_MAX_JSON_BYTES, docs/limits.md)");
  return 0;
}
} // namespace

extern "C" int kiln_archive_member_size(const kiln_archive *a, const char *member, uint64_t limit, uint64_t *size,
                                        char **error) {
  if (error) *error = nullptr;
  *size = 0;
  zip_int64_t idx;
  zip_stat_t st;
  if (claimedSize(a, member ? member : "", limit, idx, st, error) != 0) return -1;
  *size = (uint64_t)st.size;
  return 0;
}

extern "C" int kiln_archive_read_into(const kiln_archive *a, const char *member, uint64_t limit,
                                      kiln_archive_grow_fn grow, void *context, uint64_t *size, char **error) {
  if (error) *error = nullptr;
  *size = 0;
  std::string m = member ? member : "";
  zip_int64_t idx;
  zip_stat_t st;
  if (claimedSize(a, m, limit, idx, st, error) != 0) return -1;
  zip_file_t *f = zip_fopen_index(a->zip, (zip_uint64_t)idx, 0);
  if (!f)
    return fail(error, "cannot open member '" + m + "' of '" + a->path + "': " + zip_strerror(a->zip));
  // Read straight into the caller's buffer, grown chunk by chunk as data
  // arrives (the claim is believed no further than that).
  constexpr zip_uint64_t kChunk = 16u << 20;
  zip_int64_t got = 0;
  bool oom = false;
  while ((zip_uint64_t)got < st.size) {
    zip_uint64_t want = std::min<zip_uint64_t>(kChunk, st.size - (zip_uint64_t)got);
    char *out = static_cast<char *>(grow(context, (uint64_t)got + want));
    if (!out) {
      oom = true;
      break;
    }
    zip_int64_t n = zip_fread(f, out + got, want);
    if (n <= 0) {
      if (n < 0) got = -1;
      break;
    }
    got += n;
  }
  std::string why = got < 0 ? zip_file_strerror(f) : "";
  zip_fclose(f);
  if (oom) return fail(error, "out of memory reading member '" + m + "' of '" + a->path + "'");
  if (got < 0 || (zip_uint64_t)got != st.size)
    return fail(error, "member '" + m + "' of '" + a->path + "' is truncated or corrupt" +
                           (why.empty() ? std::string() : ": " + why));
  *size = (uint64_t)got;
  return 0;
}

namespace {
void *reallocGrow(void *context, uint64_t size) {
  char **buffer = static_cast<char **>(context);
  char *grown = static_cast<char *>(std::realloc(*buffer, size ? (size_t)size : 1));
  if (grown) *buffer = grown;
  return grown;
}
} // namespace

extern "C" int kiln_archive_read(const kiln_archive *a, const char *member, uint64_t limit, char **data,
                                 uint64_t *size, char **error) {
  *data = nullptr;
  char *buffer = nullptr;
  if (kiln_archive_read_into(a, member, limit, reallocGrow, &buffer, size, error) != 0) {
    std::free(buffer);
    return -1;
  }
  // An empty member still gives a buffer to free.
  if (!buffer && !reallocGrow(&buffer, 1))
    return fail(error, "out of memory reading member '" + std::string(member ? member : "") + "' of '" + a->path + "'");
  *data = buffer;
  return 0;
}

extern "C" void kiln_archive_free(void *p) { std::free(p); }
