// kiln runtime — what the CUDA and HIP backends share in loading their vendor library: opening
// the first library that loads, loading it once, and naming the library's error codes.
#ifndef KILN_RUNTIME_GPU_VENDORLIBRARY_H
#define KILN_RUNTIME_GPU_VENDORLIBRARY_H

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

namespace kiln::gpu {

/// dlopen's the first of `candidates` that loads. Null when none does; `why`
/// then holds what dlerror said of each, joined by "; ".
inline void *openFirstLibrary(const std::vector<std::string> &candidates, std::string &why) {
  for (const std::string &c : candidates) {
    if (void *lib = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    const char *e = ::dlerror();
    why += (why.empty() ? "" : "; ") + std::string(e ? e : c + ": not found");
  }
  return nullptr;
}

/// The one `State` of a backend, filled in by `load(state)` on the first call
/// only (once, whichever thread gets there first).
template <typename State, typename Load> State &loadOnce(Load load) {
  static State state;
  static std::once_flag once;
  std::call_once(once, [&] { load(state); });
  return state;
}

/// A vendor error code as a message: the library's `name` for it (else
/// "`vendor` error `code`"), then its description `text` in parentheses
/// unless there is none or it only repeats the name.
inline std::string errorMessage(const char *name, const char *text, const char *vendor, long code) {
  std::string s = name ? name : std::string(vendor) + " error " + std::to_string(code);
  if (text && (!name || std::string(text) != name)) s += std::string(" (") + text + ")";
  return s;
}

} // namespace kiln::gpu

#endif
