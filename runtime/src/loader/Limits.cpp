// kiln runtime loader — the size and nesting limits of kiln/abi/limits.h, read from the environment once.
#include "kiln/abi/limits.h"

#include <cstdlib>
#include <cstring>

namespace {
uint64_t fromEnv(const char *name, uint64_t dflt) {
  const char *s = std::getenv(name);
  if (!s || !*s)
    return dflt;
  char *end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  // A malformed or zero value keeps the default: a typo must not lift the limit.
  if (!end || *end != '\0' || v == 0)
    return dflt;
  return v;
}
} // namespace

extern "C" {

uint64_t kiln_limit_tensor_bytes(void) {
  static const uint64_t v = fromEnv("KILN_MAX_TENSOR_BYTES", uint64_t(32) << 30);
  return v;
}

uint64_t kiln_limit_json_bytes(void) {
  static const uint64_t v = fromEnv("KILN_MAX_JSON_BYTES", uint64_t(1) << 30);
  return v;
}

uint32_t kiln_limit_json_depth(void) {
  static const uint32_t v = (uint32_t)fromEnv("KILN_MAX_JSON_DEPTH", 256);
  return v;
}

uint64_t kiln_json_nesting_depth(const char *text, size_t length) {
  uint64_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < length; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // skip the escaped character
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest)
        deepest = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

} // extern "C"
