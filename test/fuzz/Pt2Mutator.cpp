// kiln fuzz targets — the structure-aware .pt2 mutator: unzip, mutate one member's JSON tree or bytes, rezip.
#include "Pt2Mutator.h"

#include <nlohmann/json.hpp>
#include <zip.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace kiln::fuzz {
namespace {

using json = nlohmann::json;
using Members = std::vector<std::pair<std::string, std::string>>;

bool unzip(const uint8_t *data, size_t size, Members &out) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(data, size, 0, &ze);
  if (!src)
    return false;
  zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &ze);
  if (!z) {
    zip_source_free(src);
    return false;
  }
  bool ok = true;
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; ok && i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) ||
        !(st.valid & ZIP_STAT_SIZE) || st.size > size * 4 + (1 << 20)) {
      ok = false;
      break;
    }
    std::string bytes(st.size, '\0');
    zip_file_t *f = zip_fopen_index(z, i, 0);
    ok = f && zip_fread(f, bytes.data(), st.size) == (zip_int64_t)st.size;
    if (f)
      zip_fclose(f);
    out.emplace_back(st.name, std::move(bytes));
  }
  zip_discard(z);
  return ok;
}

bool rezip(const Members &members, std::string &out) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *buf = zip_source_buffer_create(nullptr, 0, 0, &ze);
  if (!buf)
    return false;
  zip_source_keep(buf);
  zip_t *z = zip_open_from_source(buf, ZIP_TRUNCATE, &ze);
  if (!z) {
    zip_source_free(buf);
    return false;
  }
  for (const auto &[name, bytes] : members) {
    // libzip frees a buffer it was given (freep = 1) only when it is not empty.
    void *copy = bytes.empty() ? nullptr : std::malloc(bytes.size());
    if (copy)
      std::memcpy(copy, bytes.data(), bytes.size());
    zip_source_t *s = zip_source_buffer(z, copy, bytes.size(), 1);
    zip_int64_t idx = s ? zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE) : -1;
    if (idx < 0) {
      if (s)
        zip_source_free(s);
      zip_discard(z);
      zip_source_free(buf);
      return false;
    }
    zip_set_file_compression(z, idx, ZIP_CM_STORE, 0);
  }
  if (zip_close(z) != 0) {
    zip_discard(z);
    zip_source_free(buf);
    return false;
  }
  bool ok = zip_source_open(buf) == 0;
  zip_stat_t st;
  zip_stat_init(&st);
  ok = ok && zip_source_stat(buf, &st) == 0 && (st.valid & ZIP_STAT_SIZE);
  if (ok) {
    out.resize(st.size);
    ok = zip_source_read(buf, out.data(), st.size) == (zip_int64_t)st.size;
  }
  zip_source_close(buf);
  zip_source_free(buf);
  return ok;
}

/// Every value of the tree, in document order.
void collect(json &j, std::vector<json *> &out) {
  std::vector<json *> stack{&j};
  while (!stack.empty()) {
    json *v = stack.back();
    stack.pop_back();
    out.push_back(v);
    if (v->is_structured())
      for (auto &c : *v)
        stack.push_back(&c);
  }
}

json interestingInt(std::mt19937 &rng) {
  static const int64_t values[] = {0, -1, 1, 2, 3, 7, 255, 65536, (int64_t)1 << 31,
                                   (int64_t)1 << 40, (int64_t)1 << 62,
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  return values[rng() % (sizeof(values) / sizeof(values[0]))];
}

void mutateJson(json &root, std::mt19937 &rng) {
  std::vector<json *> all;
  collect(root, all);
  json &v = *all[rng() % all.size()];
  switch (rng() % 11) {
  case 0: v = nullptr; break;
  case 1: v = interestingInt(rng); break;
  case 2: v = (rng() % 2) ? 1e308 : -0.5; break;
  case 3: v = (rng() % 2) ? std::string() : std::string("Symbol('s0', positive=True)"); break;
  case 4: v = (rng() % 2) ? json::array() : json::object(); break;
  case 5: v = json::array({v}); break; // a list where an object was expected
  case 6:
    if (v.is_object() && !v.empty()) {
      auto it = v.begin();
      std::advance(it, rng() % v.size());
      v.erase(it);
    } else if (v.is_array() && !v.empty()) {
      v.erase(v.begin() + rng() % v.size());
    }
    break;
  case 7:
    if (v.is_array() && !v.empty())
      v.push_back(v[rng() % v.size()]);
    else if (v.is_object() && !v.empty())
      v[v.begin().key() + "_"] = v.begin().value();
    break;
  case 8: { // swap in another value of the document
    json other = *all[rng() % all.size()];
    v = std::move(other);
    break;
  }
  case 9: { // deep nesting
    unsigned depth = 100 + rng() % 2000;
    json nest = json::array();
    for (unsigned i = 0; i < depth; ++i)
      nest = json::array({std::move(nest)});
    v = std::move(nest);
    break;
  }
  case 10:
    if (v.is_number_integer())
      v = (int64_t)((uint64_t)v.get<int64_t>() + rng() % 5 - 2); // wraps at the ends on purpose
    else
      v = interestingInt(rng);
    break;
  }
}

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

} // namespace

size_t mutatePt2(uint8_t *data, size_t size, size_t maxSize, unsigned seed) {
  std::mt19937 rng(seed);
  Members members;
  if (!unzip(data, size, members) || members.empty())
    return LLVMFuzzerMutate(data, size, maxSize);
  std::vector<size_t> jsonMembers;
  for (size_t i = 0; i < members.size(); ++i)
    if (endsWith(members[i].first, ".json"))
      jsonMembers.push_back(i);
  unsigned what = rng() % 10;
  if (what < 7 && !jsonMembers.empty()) {
    // A model.json twice as often as any other JSON member.
    size_t pick = jsonMembers[rng() % jsonMembers.size()];
    for (size_t i : jsonMembers)
      if (endsWith(members[i].first, "models/model.json") && rng() % 2)
        pick = i;
    std::string &text = members[pick].second;
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      size_t len = text.size();
      text.resize(len + 64);
      text.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(text.data()), len, len + 64));
    } else {
      unsigned rounds = 1 + rng() % 3;
      for (unsigned r = 0; r < rounds; ++r)
        mutateJson(j, rng);
      text = j.dump();
    }
  } else if (what < 8) {
    // Truncate or grow a raw member (a weight shorter than its metadata).
    std::string &bytes = members[rng() % members.size()].second;
    bytes.resize(bytes.empty() ? 1 + rng() % 64 : rng() % (bytes.size() * 2));
  } else if (what < 9 && members.size() > 1) {
    members.erase(members.begin() + rng() % members.size());
  } else {
    std::string &bytes = members[rng() % members.size()].second;
    size_t len = bytes.size();
    bytes.resize(len + 64);
    bytes.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(bytes.data()), len, len + 64));
  }
  std::string out;
  if (!rezip(members, out) || out.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

} // namespace kiln::fuzz
