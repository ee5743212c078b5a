// kiln runtime — kiln::vmap: one op over a batch, by its registered batching rule or a loop.
#include "kiln/library.h"

#include <stdexcept>

namespace kiln {

namespace {
int64_t wrapDim(int64_t d, int64_t rank, const std::string &what) {
  int64_t w = d < 0 ? d + rank : d;
  if (w < 0 || w >= rank)
    throw Error("kiln: " + what + ": dim " + std::to_string(d) + " is out of range for a tensor of rank " +
                std::to_string(rank));
  return w;
}

/// `t` with a new leading dim of size `n` that every index reads the same data through.
Tensor expandFront(const Tensor &t, int64_t n) {
  std::vector<int64_t> sizes{n}, strides{0};
  sizes.insert(sizes.end(), t.sizes().begin(), t.sizes().end());
  strides.insert(strides.end(), t.strides().begin(), t.strides().end());
  return Tensor::view(t.storage(), t.offset(), sizes, strides, t.dtype());
}
} // namespace

Tensor moveDim(const Tensor &t, int64_t from, int64_t to) {
  int64_t rank = t.dim();
  from = wrapDim(from, rank, "moveDim");
  to = wrapDim(to, rank, "moveDim");
  if (from == to) return t;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  std::vector<int64_t> sizes, strides;
  for (int64_t p : perm) {
    sizes.push_back(t.size(p));
    strides.push_back(t.stride(p));
  }
  return Tensor::view(t.storage(), t.offset(), sizes, strides, t.dtype());
}

Tensor selectDim(const Tensor &t, int64_t dim, int64_t i) {
  dim = wrapDim(dim, t.dim(), "selectDim");
  if (i < 0 || i >= t.size(dim))
    throw Error("kiln: selectDim: index " + std::to_string(i) + " out of range for size " +
                std::to_string(t.size(dim)));
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return Tensor::view(t.storage(), t.offset() + i * t.stride(dim), sizes, strides, t.dtype());
}

Stack vmap(const OperatorHandle &op, const InDims &inDims, Stack args, VmapMode mode) {
  const FunctionSchema &s = op.schema();
  const std::string name = op.name();
  if (!s.varArgs) {
    if (args.size() > s.arguments.size())
      throw Error("kiln: vmap of " + name + ": " + std::to_string(args.size()) +
                  " arguments, the op takes " + std::to_string(s.arguments.size()));
    for (size_t i = args.size(); i < s.arguments.size(); ++i) {
      if (!s.arguments[i].defaultValue)
        throw Error("kiln: vmap of " + name + ": missing argument '" + s.arguments[i].name + "'");
      args.push_back(*s.arguments[i].defaultValue);
    }
  }
  if (inDims.size() > args.size())
    throw Error("kiln: vmap of " + name + ": " + std::to_string(inDims.size()) + " in_dims for " +
                std::to_string(args.size()) + " arguments");
  InDims dims = inDims;
  dims.resize(args.size());
  int64_t batch = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!dims[i]) continue;
    std::string what = "vmap of " + name + ", argument " + std::to_string(i);
    if (!args[i].isTensor() || !args[i].toTensor().defined())
      throw Error("kiln: " + what + " has in_dim " + std::to_string(*dims[i]) +
                  " but is not a tensor (" + args[i].repr() + ")");
    const Tensor &t = args[i].toTensor();
    dims[i] = wrapDim(*dims[i], t.dim(), what);
    int64_t n = t.size(*dims[i]);
    if (batch >= 0 && n != batch)
      throw Error("kiln: " + what + ": batch size " + std::to_string(n) + " at dim " +
                  std::to_string(*dims[i]) + ", another batched argument has " + std::to_string(batch));
    batch = n;
  }
  if (batch < 0) throw Error("kiln: vmap of " + name + ": no argument is batched");

  VmapFn rule = mode == VmapMode::Rule ? op.vmapRule() : VmapFn();
  Stack results;
  AutoGradMode noGrad(false);
  if (rule) {
    VmapResult r = rule(VmapInfo{batch}, dims, args);
    if (r.outputs.size() != s.returns.size())
      throw Error("kiln: the batching rule of " + name + " returned " + std::to_string(r.outputs.size()) +
                  " results, the op has " + std::to_string(s.returns.size()));
    if (r.outDims.size() != r.outputs.size())
      throw Error("kiln: the batching rule of " + name + " returned " + std::to_string(r.outDims.size()) +
                  " out_dims for " + std::to_string(r.outputs.size()) + " results");
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      std::string what = "the batching rule of " + name + ", result " + std::to_string(i);
      if (!r.outputs[i].isTensor() || !r.outputs[i].toTensor().defined())
        throw Error("kiln: " + what + " is not a tensor (" + r.outputs[i].repr() + ")");
      Tensor t = r.outputs[i].toTensor();
      if (!r.outDims[i]) {
        results.emplace_back(expandFront(t, batch));
        continue;
      }
      int64_t d = wrapDim(*r.outDims[i], t.dim(), what + " out_dim");
      if (t.size(d) != batch)
        throw Error("kiln: " + what + " has size " + std::to_string(t.size(d)) + " at its out_dim " +
                    std::to_string(d) + " (shape " + t.shapeString() + "), the batch is " +
                    std::to_string(batch));
      results.emplace_back(moveDim(t, d, 0));
    }
    return results;
  }

  // The loop: one call per sample, the results stacked along a new dim 0.
  if (batch == 0) throw Error("kiln: vmap of " + name + ": the batch is empty (size 0)");
  std::vector<std::vector<Tensor>> perSample;
  for (int64_t b = 0; b < batch; ++b) {
    Stack sample;
    for (size_t i = 0; i < args.size(); ++i)
      sample.push_back(dims[i] ? IValue(selectDim(args[i].toTensor(), *dims[i], b)) : args[i]);
    op.callBoxed(sample);
    if (perSample.empty()) perSample.resize(sample.size());
    for (size_t j = 0; j < sample.size(); ++j) {
      if (!sample[j].isTensor() || !sample[j].toTensor().defined())
        throw Error("kiln: vmap of " + name + ": result " + std::to_string(j) +
                    " is not a tensor (" + sample[j].repr() + ")");
      perSample[j].push_back(sample[j].toTensor());
    }
  }
  for (size_t j = 0; j < perSample.size(); ++j) {
    const Tensor &first = perSample[j][0];
    std::vector<int64_t> sizes{batch};
    sizes.insert(sizes.end(), first.sizes().begin(), first.sizes().end());
    Tensor out = Tensor::empty(sizes, first.dtype());
    for (int64_t b = 0; b < batch; ++b) {
      const Tensor &t = perSample[j][b];
      if (t.sizes() != first.sizes() || t.dtype() != first.dtype())
        throw Error("kiln: vmap of " + name + ": result " + std::to_string(j) + " of sample " +
                    std::to_string(b) + " is " + t.shapeString() + " " + dtypeName(t.dtype()) +
                    ", sample 0's is " + first.shapeString() + " " + dtypeName(first.dtype()));
      Tensor dst = selectDim(out, 0, b);
      dst.copyFrom(t);
    }
    results.emplace_back(out);
  }
  return results;
}

} // namespace kiln
