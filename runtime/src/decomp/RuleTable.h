// kiln runtime — the parsed composite-op rule table (internal to decomp/).
#ifndef KILN_RUNTIME_DECOMP_RULETABLE_H
#define KILN_RUNTIME_DECOMP_RULETABLE_H

#include "kiln/schema.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln::decomp {

/// A literal or reference in a rule: `self`, 3.0, 'tanh', [0, 1], None, dtype(x),
/// others(x d) (every dim of x but d).
struct Val {
  enum Kind { Ref, Int, Float, Bool, None, Str, List, DtypeOf, DtypeName, SizesOf, BcastSizesOf, DimsExcept } kind = None;
  std::string s;
  int64_t i = 0;
  double f = 0;
  std::vector<Val> items;
};

struct Meta {
  enum Kind { Like, Bcast, Reduce, Dims, Index, Halve, Trailing1 } kind = Like;
  std::vector<std::string> refs; ///< Like/Reduce/Dims: [X]; Bcast: the operands
  Val dims, keepdim;             ///< Reduce
  std::vector<std::string> entries; ///< Dims: "3" or "@k"
  std::string as;                ///< dtype override ("" = none)
};

struct Step {
  std::vector<std::string> results;
  std::string target; ///< "torch.ops.aten.add.Tensor"
  std::vector<std::pair<std::string, Val>> args;
  std::vector<Meta> metas;
};

struct Cond {
  enum Kind { IsNone, NotNone, Eq, Ne, IsFloat, IsInt, IsNumeric, RankEq, RankGe, RankLe, LenEq } kind = IsNone;
  std::string ref;
  Val v;
  int64_t n = 0;
};

struct Rule {
  FunctionSchema schema;
  std::string family, target;
  std::vector<Cond> conds;
  std::vector<Step> steps;
  std::vector<std::string> returns;
};

/// Every rule of every family, parsed once (throws kiln::Error on a malformed rule).
const std::vector<Rule> &table();

} // namespace kiln::decomp

#endif
