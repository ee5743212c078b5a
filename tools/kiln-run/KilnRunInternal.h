// kiln-run — what the tool's files share beyond KilnRun.h.
#ifndef KILN_TOOLS_KILNRUNINTERNAL_H
#define KILN_TOOLS_KILNRUNINTERNAL_H
#include "KilnRun.h"

#include <ostream>
#include <string>
#include <vector>

namespace kiln::run {

/// Throws RunError(kExitUsage, msg).
[[noreturn]] void usageError(const std::string &msg);

/// "min -1.2 max 3.4 mean 0.1" for floating-point outputs (with counts of NaN
/// and infinite elements where there are any); min and max for the others.
std::string describeOutput(const Tensor &t);

/// --gradcheck: every grads/input<k> output of `exe` against central
/// differences of sum_k sum(output_k * cotangent_k), on seeded random inputs.
int gradcheck(Executable &exe, const Options &o, const std::vector<bool> &isGrad, std::ostream &out);

} // namespace kiln::run

#endif // KILN_TOOLS_KILNRUNINTERNAL_H
