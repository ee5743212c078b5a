// kiln runtime loader — loading plugin libraries (custom op kernels) before a model.
#ifndef KILN_LOADER_PLUGINS_H
#define KILN_LOADER_PLUGINS_H

#include <string>

namespace kiln {

/// Loads the shared library at `path` so its static registrations run. The default
/// definition (Plugins.cpp) is weak: it dlopens with RTLD_NOW | RTLD_GLOBAL and never
/// unloads; the dispatcher may supply a strong definition that also records what the
/// plugin registered. Returns false and sets `err` (naming the path) on failure.
/// Thread-safe.
bool loadPlugin(const std::string &path, std::string &err);
/// Whether an op ("ns::name[.overload]") is defined, for a model's `op` lines.
/// The default definition (Plugins.cpp) is weak and says yes (without a
/// dispatcher nothing can be checked); the dispatcher's looks it up.
bool opDefined(const std::string &qualifiedName);

} // namespace kiln

#endif // KILN_LOADER_PLUGINS_H
