// kiln runtime — checks of a torch.export graph JSON before anything reads it.
#include "SerdeChecks.h"

#include "kiln/ivalue.h"

#include <vector>

namespace kiln {

namespace {
bool integerField(const std::string &key) {
  return key == "as_int" || key == "dtype" || key == "layout" || key == "as_scalar_type" ||
         key == "as_memory_format" || key == "as_layout";
}
} // namespace

void checkSerdeIntegers(const nlohmann::json &graph, const std::string &where) {
  std::vector<const nlohmann::json *> todo{&graph};
  while (!todo.empty()) {
    const nlohmann::json *j = todo.back();
    todo.pop_back();
    if (j->is_array()) {
      for (const auto &x : *j) todo.push_back(&x);
      continue;
    }
    if (!j->is_object()) continue;
    for (auto it = j->begin(); it != j->end(); ++it) {
      const nlohmann::json &v = it.value();
      bool bad = false;
      if (integerField(it.key()))
        bad = !v.is_number_integer();
      else if (it.key() == "as_ints") {
        bad = !v.is_array();
        for (const auto &x : v.is_array() ? v : nlohmann::json::array()) bad = bad || !x.is_number_integer();
      }
      if (bad) {
        std::string shown = v.dump();
        if (shown.size() > 80) shown = shown.substr(0, 80) + "...";
        throw Error("kiln: " + where + ": field \"" + it.key() + "\" holds " + shown +
                    ", where torch.export writes an integer");
      }
      if (v.is_structured()) todo.push_back(&v);
    }
  }
}

} // namespace kiln
