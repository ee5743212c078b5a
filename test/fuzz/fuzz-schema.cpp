// kiln fuzz target — the dispatcher's op schema parser (plugins' KILN_LIBRARY definitions, kiln.library).
#include "kiln/schema.h"

#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  for (bool nameOnly : {false, true}) {
    try {
      kiln::FunctionSchema s = kiln::parseSchema(text, "fuzz", nameOnly);
      // A parsed schema prints to text that parses to the same schema.
      std::string printed = s.str();
      kiln::FunctionSchema again = kiln::parseSchema(printed, "fuzz", nameOnly);
      if (again.str() != printed)
        __builtin_trap();
    } catch (const std::exception &) {
    }
  }
  return 0;
}
