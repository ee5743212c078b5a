// kiln runtime — loads LAPACK with dlopen at the first linear-algebra call (see Lapack.h).
#include "Lapack.h"

#include "kiln/ivalue.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>

namespace kiln::cpu {
namespace {

struct Loaded {
  Lapack api{};
  std::string error; ///< empty once loaded
};

template <typename F> bool bind(void *lib, const char *name, F &fn, std::string &missing) {
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (!fn) missing += std::string(missing.empty() ? "" : ", ") + name;
  return fn != nullptr;
}

Loaded load() {
  Loaded l;
  std::string tried;
  void *lib = nullptr;
  const char *env = std::getenv("KILN_LAPACK");
  for (const char *name : {env, "liblapack.so.3", "liblapack.so", "libopenblas.so.0"}) {
    if (!name || !*name) continue;
    tried += std::string(tried.empty() ? "" : ", ") + name;
    if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  }
  if (!lib) {
    l.error = "no LAPACK library could be loaded (tried " + tried +
              "; install Debian's liblapack3 or name one with KILN_LAPACK)";
    return l;
  }
  std::string missing;
  Lapack &a = l.api;
  bind(lib, "dgetrf_", a.dgetrf, missing);
  bind(lib, "dgetrs_", a.dgetrs, missing);
  bind(lib, "dpotrf_", a.dpotrf, missing);
  bind(lib, "dpotrs_", a.dpotrs, missing);
  bind(lib, "dpotri_", a.dpotri, missing);
  bind(lib, "dsytrf_", a.dsytrf, missing);
  bind(lib, "dsytrs_", a.dsytrs, missing);
  bind(lib, "dtrtrs_", a.dtrtrs, missing);
  bind(lib, "dgeqrf_", a.dgeqrf, missing);
  bind(lib, "dorgqr_", a.dorgqr, missing);
  bind(lib, "dormqr_", a.dormqr, missing);
  bind(lib, "dsyevd_", a.dsyevd, missing);
  bind(lib, "dgesdd_", a.dgesdd, missing);
  if (!missing.empty()) l.error = "the LAPACK library lacks " + missing;
  return l;
}

} // namespace

const Lapack &lapack(const char *op) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) throw Error(std::string("kiln: ") + op + ": " + loaded.error);
  return loaded.api;
}

} // namespace kiln::cpu
