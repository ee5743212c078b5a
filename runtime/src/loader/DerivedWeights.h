// kiln runtime loader — tensors derived from the weights at load (`derive` lines).
#ifndef KILN_LOADER_DERIVEDWEIGHTS_H
#define KILN_LOADER_DERIVEDWEIGHTS_H

#include "Manifest.h"

#include <string>
#include <vector>

namespace kiln {

/// Computes the derived arg `v` (its `derive` line: recipe, eps, operands)
/// from `weights` (per manifest arg, the operands bound and unpermuted), on
/// the host, in double precision, rounded once to v's dtype. Throws
/// kiln::Error (INVALID_ARGUMENT) naming the model, the arg and the operand
/// when an operand's dtype or shape does not fit the recipe.
Tensor deriveWeight(const Manifest &m, const ManifestValue &v, const std::vector<Tensor> &weights,
                    const std::string &modelPath);

} // namespace kiln

#endif // KILN_LOADER_DERIVEDWEIGHTS_H
