// kiln runtime loader — the exception type the loader throws, carrying a C ABI status code.
#ifndef KILN_LOADER_ERROR_H
#define KILN_LOADER_ERROR_H

#include "kiln/kiln.h"

#include <stdexcept>
#include <string>

namespace kiln {

/// A loader/runtime failure with the kiln_status_code_t it maps to at the C ABI.
class Error : public std::runtime_error {
public:
  Error(kiln_status_code_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  kiln_status_code_t code() const { return code_; }

private:
  kiln_status_code_t code_;
};

} // namespace kiln

#endif // KILN_LOADER_ERROR_H
