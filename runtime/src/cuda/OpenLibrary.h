// kiln CUDA runtime — finding a vendor library (cuBLAS, cuBLASLt, cuDNN): the user's variable, else its usual names.
#ifndef KILN_RUNTIME_CUDA_OPENLIBRARY_H
#define KILN_RUNTIME_CUDA_OPENLIBRARY_H

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace kiln::cuda {

/// dlopen's the library the environment variable `envVar` names when it is
/// set (that one only: a user who names a library gets it or an error, never
/// another one found on the way), else the first of `names` that loads.
/// Null when none loads; `tried` then lists what was tried.
inline void *openLibrary(const char *envVar, std::initializer_list<const char *> names, std::string &tried) {
  const char *env = std::getenv(envVar);
  if (env && *env) {
    if (void *lib = ::dlopen(env, RTLD_NOW | RTLD_LOCAL)) return lib;
    tried = std::string(env) + " (from " + envVar + ": " + ::dlerror() + ")";
    return nullptr;
  }
  for (const char *name : names) {
    if (void *lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    tried += std::string(tried.empty() ? "" : ", ") + name;
  }
  return nullptr;
}

} // namespace kiln::cuda

#endif
