// kiln runtime — ATen's alias op names (multiply, greater, arccos, special_expit, ...) and the
// ops they name, so the eager interpreter runs an exported alias through its canonical kernel.
#include "Aliases.h"

#include <unordered_map>

namespace kiln::eager {

std::string canonicalOpName(const std::string &qualified) {
  // name -> canonical name; the overload (after the last '.') is the same for both.
  static const std::unordered_map<std::string, std::string> aliases = {
      {"aten::multiply", "aten::mul"},          {"aten::subtract", "aten::sub"},
      {"aten::divide", "aten::div"},            {"aten::true_divide", "aten::div"},
      {"aten::greater", "aten::gt"},            {"aten::greater_equal", "aten::ge"},
      {"aten::less", "aten::lt"},               {"aten::less_equal", "aten::le"},
      {"aten::not_equal", "aten::ne"},          {"aten::absolute", "aten::abs"},
      {"aten::negative", "aten::neg"},          {"aten::clip", "aten::clamp"},
      {"aten::fix", "aten::trunc"},             {"aten::arccos", "aten::acos"},
      {"aten::arcsin", "aten::asin"},           {"aten::arctan", "aten::atan"},
      {"aten::arccosh", "aten::acosh"},         {"aten::arcsinh", "aten::asinh"},
      {"aten::arctanh", "aten::atanh"},         {"aten::arctan2", "aten::atan2"},
      {"aten::special_expit", "aten::sigmoid"}, {"aten::special_erf", "aten::erf"},
      {"aten::special_erfc", "aten::erfc"},     {"aten::special_erfinv", "aten::erfinv"},
      {"aten::special_exp2", "aten::exp2"},     {"aten::special_expm1", "aten::expm1"},
      {"aten::special_log1p", "aten::log1p"},   {"aten::special_logit", "aten::logit"},
  };
  size_t dot = qualified.rfind('.');
  std::string name = dot == std::string::npos ? qualified : qualified.substr(0, dot);
  auto it = aliases.find(name);
  if (it == aliases.end()) return {};
  return dot == std::string::npos ? it->second : it->second + qualified.substr(dot);
}

} // namespace kiln::eager
