// kiln runtime loader — default plugin loading through dlopen.
#include "Plugins.h"

#include <dlfcn.h>
#include <sys/stat.h>

namespace kiln {

__attribute__((weak)) bool loadPlugin(const std::string &path, std::string &err) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    err = "plugin '" + path + "' does not exist";
    return false;
  }
  // A bare file name would make dlopen search the library path: anchor it.
  std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  if (!::dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    const char *why = ::dlerror();
    err = "cannot load plugin '" + path + "': " + (why ? why : "unknown dlopen error");
    return false;
  }
  return true;
}

__attribute__((weak)) bool opDefined(const std::string &) { return true; }

} // namespace kiln
