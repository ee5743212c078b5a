// kiln runtime loader — weights the caller holds, and the tensors a model
// derives or lays out from its weights at load (Model::bindCallerWeights,
// Model::deriveAndLayOut).
#include "DerivedWeights.h"
#include "Model.h"

#include "kiln/error.h"
#include "../cpu/Library.h"
#include "../gpu/Runtime.h"

#include <map>
#include <set>

namespace kiln {

void Model::bindCallerWeights(const ModelOptions &options) {
  if (!manifest_.externalWeights)
    throw Error(KILN_STATUS_FAILED_PRECONDITION,
                "model '" + path_ + "' embeds its weights; the caller's weights bind only to a model "
                "compiled with external weights (kiln-compile --weights=external)");
  std::map<std::string, const Tensor *> given;
  for (const auto &[name, t] : options.weights)
    if (!given.emplace(name, &t).second)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, "model '" + path_ + "': weight '" + name + "' is given twice");
  std::set<std::string> used;
  for (size_t ai : paramArgs_) {
    const ManifestValue &v = manifest_.args[ai];
    auto it = given.find(v.name);
    if (it == given.end())
      throw Error(KILN_STATUS_NOT_FOUND, "model '" + path_ + "': weight '" + v.name +
                                             "' is not among the " + std::to_string(given.size()) +
                                             " weights given (kiln_model_options_t.weight_names)");
    const Tensor &t = *it->second;
    std::vector<int64_t> sizes;
    for (const ManifestDim &d : v.dims) sizes.push_back(d.size);
    std::string who = "model '" + path_ + "': the weight given as '" + v.name + "'";
    if (!t.defined())
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " is undefined");
    if (t.dtype() != v.dtype || t.sizes() != sizes)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " is " + dtypeName(t.dtype()) + " " + t.shapeString() +
                                                    ", expected " + dtypeName(v.dtype) + " " + shapeToString(sizes));
    if (t.device().type != DeviceType::CPU && t.device().type != manifest_.device)
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " is on " + deviceTypeName(t.device().type) +
                                                    ", but the model runs on " + deviceTypeName(manifest_.device));
    if (!t.isContiguous())
      throw Error(KILN_STATUS_INVALID_ARGUMENT, who + " is not contiguous");
    weights_[ai] = t;
    used.insert(v.name);
  }
  for (const auto &[name, t] : given)
    if (!used.count(name))
      throw Error(KILN_STATUS_INVALID_ARGUMENT, "model '" + path_ + "' has no weight named '" + name + "'");
  callerWeights_ = true;
  // The CPU library keeps reordered copies of weights by address: the
  // caller's memory may hold new values at an address seen before.
  if (manifest_.device == DeviceType::CPU) cpu::forgetWeights();
  deriveAndLayOut();
}

void Model::deriveAndLayOut() {
  // What the derive lines and layouts read, on the host (a caller's device
  // weight is copied once; the others are the bound tensors themselves).
  std::vector<Tensor> host = weights_;
  auto onHost = [&](size_t ai) -> const Tensor & {
    Tensor &t = host[ai];
    if (t.defined() && t.device().type != DeviceType::CPU) {
      const gpu::Backend &b = gpu::backend(t.device().type);
      t = gpu::toHost(b, t, gpu::threadStream(b));
    }
    return t;
  };
  // Tensors derived from the weights (kiln-fold-batch-norm, kiln-concat-linear),
  // from the weights as stored, before any is permuted.
  for (size_t ai : derivedArgs_) {
    for (int k : manifest_.args[ai].from)
      if (k >= 0) onHost((size_t)k);
    weights_[ai] = host[ai] = deriveWeight(manifest_, manifest_.args[ai], host, path_);
  }
  // Weights the entry takes permuted: one packed copy in that order.
  std::vector<size_t> bound = paramArgs_;
  bound.insert(bound.end(), derivedArgs_.begin(), derivedArgs_.end());
  for (size_t ai : bound) {
    const ManifestValue &v = manifest_.args[ai];
    if (v.layout.empty()) continue;
    const Tensor &t = onHost(ai);
    std::vector<int64_t> sizes, strides;
    for (int64_t p : v.layout) {
      sizes.push_back(t.size(p));
      strides.push_back(t.stride(p));
    }
    weights_[ai] = Tensor::view(t.storage(), t.offset(), sizes, strides, t.dtype()).clone();
  }
}

} // namespace kiln
