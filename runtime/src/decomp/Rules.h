// kiln runtime — the composite-op rule texts, one family per file (internal to decomp/).
#ifndef KILN_RUNTIME_DECOMP_RULES_H
#define KILN_RUNTIME_DECOMP_RULES_H

#include <vector>

namespace kiln::decomp {

/// One family's rules, in the table syntax Expander.cpp describes.
struct RuleText {
  const char *family;
  const char *text;
};

extern const char *const kActivationRules;
extern const char *const kElementwiseRules;
extern const char *const kReductionRules;
extern const char *const kLossRules;
extern const char *const kClassificationLossRules;
extern const char *const kAttentionRules;
extern const char *const kPoolingRules;
extern const char *const kNormalizationRules;
extern const char *const kShapeRules;
extern const char *const kLinearRules;
extern const char *const kReshapeRules;
extern const char *const kSpecialRules;

/// Every family, in the order rules are tried.
inline const std::vector<RuleText> &ruleTexts() {
  static const std::vector<RuleText> all = {
      {"activation", kActivationRules},  {"elementwise", kElementwiseRules},
      {"reduction", kReductionRules},    {"loss", kLossRules},
      {"classification loss", kClassificationLossRules}, {"pooling", kPoolingRules},
      {"normalization", kNormalizationRules},
      {"shape", kShapeRules},            {"reshape", kReshapeRules},
      {"linear algebra", kLinearRules}, {"special", kSpecialRules},
      {"attention", kAttentionRules},
  };
  return all;
}

} // namespace kiln::decomp

#endif
