// kiln runtime — kiln::Error, the one exception type the runtime throws: the loader,
// the dispatcher, the schema parser and the eager kernels all use it, and the C ABI
// turns it into a kiln_status_t carrying its status code.
#ifndef KILN_ERROR_H
#define KILN_ERROR_H

#include "kiln/kiln.h"

#include <stdexcept>
#include <string>

namespace kiln {

/// A runtime failure with the kiln_status_code_t it maps to at the C ABI. Errors
/// raised without a code (the dispatcher's, the eager kernels') are internal ones.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : Error(KILN_STATUS_INTERNAL, message) {}
  explicit Error(const char *message) : Error(KILN_STATUS_INTERNAL, std::string(message)) {}
  Error(kiln_status_code_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  kiln_status_code_t code() const { return code_; }

private:
  kiln_status_code_t code_;
};

} // namespace kiln

#endif // KILN_ERROR_H
