// kiln runtime — opcheck: tests an op's kernels, schema annotations, fake
// function, backward formula and batching rule against each other.
#ifndef KILN_OPCHECK_H
#define KILN_OPCHECK_H

#include "kiln/dispatcher.h"
#include "kiln/ivalue.h"

#include <string>
#include <vector>

namespace kiln {

struct OpcheckOptions {
  /// Number of generated samples when `samples` is empty.
  int numSamples = 3;
  /// Explicit sample argument lists (schema order; trailing defaults may be
  /// left out). Empty: generated from the schema.
  std::vector<Stack> samples;
  unsigned seed = 1234;
  /// Tolerances of the gradient check (double precision; float32 ops get
  /// looser ones automatically).
  double gradAtol = 1e-5, gradRtol = 1e-4;
};

struct OpcheckResult {
  std::string test;    ///< test_schema, test_faketensor, test_autograd, test_dispatch, test_vmap
  int sample = -1;     ///< sample index, -1 when not sample-specific
  bool passed = true;
  bool skipped = false;
  std::string message;
};

struct OpcheckReport {
  std::string op;
  std::vector<OpcheckResult> results;
  /// True if no test failed (skips do not fail).
  bool ok() const;
  /// One line per result: "PASS test_schema [sample 0]" / "FAIL ...: why".
  std::string str() const;
  std::vector<OpcheckResult> failures() const;
};

/// Runs test_schema (mutation/alias annotations vs what the kernel does),
/// test_faketensor (Meta kernel shapes/dtypes vs the real kernel),
/// test_autograd (backward formula vs central finite differences in
/// double precision), test_dispatch (every registered runtime key this
/// process can run) and test_vmap (the registered batching rule against
/// running the op once per sample, batched at dim 0 and at the last dim). Throws Error only if the op does not exist.
OpcheckReport opcheck(const std::string &op, const OpcheckOptions &opts = {});

/// Sample arguments generated from an op's schema (what opcheck uses when
/// given none): random tensors of a few shapes, scalars from defaults.
std::vector<Stack> generateSamples(const FunctionSchema &schema, int n, unsigned seed);

} // namespace kiln

#endif // KILN_OPCHECK_H
