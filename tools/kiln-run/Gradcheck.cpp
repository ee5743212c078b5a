// kiln-run --gradcheck: a --grad model's gradients against central differences.
#include "KilnRunInternal.h"
#include "kiln/abi/io_names.h"

#include "kiln/gpu.h"
#include "kiln/dispatcher.h"
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"


#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <iomanip>
#include <ostream>
#include <sstream>


namespace kiln::run {

namespace {

double elementAt(const Tensor &t, int64_t i) {
  return t.dtype() == DType::Float64 ? t.data<double>()[i] : (double)t.data<float>()[i];
}
void setElement(Tensor &t, int64_t i, double v) {
  if (t.dtype() == DType::Float64) t.data<double>()[i] = v;
  else t.data<float>()[i] = (float)v;
}

} // namespace

/// --gradcheck: every grads/input<k> output against central differences of
/// L = sum_k sum(output_k * cotangent_k), on seeded random inputs.
int gradcheck(Executable &exe, const Options &o, const std::vector<bool> &isGrad, std::ostream &out) {
  size_t numGrads = std::count(isGrad.begin(), isGrad.end(), true);
  size_t primal = exe.numOutputs() - numGrads;
  bool forward = exe.outputLabel(primal).rfind(KILN_TANGENTS_PREFIX, 0) == 0;
  // Inputs the check perturbs: all but the seeds (cotangent<i> / tangent<i>).
  size_t userInputs = 0;
  while (userInputs < exe.numInputs() &&
         exe.inputLabel(userInputs).rfind(forward ? KILN_TANGENT_PREFIX : KILN_COTANGENT_PREFIX, 0) != 0)
    ++userInputs;
  std::mt19937_64 rng(0);
  auto randomTensor = [&](const std::vector<int64_t> &dims, DType dt, double lo, double hi,
                          const std::string &what) {
    if (dt != DType::Float64 && dt != DType::Float32)
      usageError("--gradcheck needs floating-point tensors; " + what + " is " + dtypeName(dt));
    for (int64_t d : dims)
      if (d < 0) usageError("--gradcheck needs static shapes; " + what + " has a dynamic dim");
    Tensor t = Tensor::empty(dims, dt);
    std::uniform_real_distribution<double> u(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) setElement(t, i, u(rng));
    return t;
  };
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < userInputs; ++i)
    inputs.push_back(randomTensor(exe.inputDims(i), exe.inputDType(i), o.gradLo, o.gradHi, exe.inputName(i)));
  const double h = 1e-6, atol = 1e-5, rtol = 1e-3;
  if (forward) {
    // tangent<i> moves user input i; the tangents of the outputs against
    // (f(x + h t) - f(x - h t)) / 2h.
    std::vector<std::pair<size_t, size_t>> moves; // (input, tangent input)
    for (size_t j = userInputs; j < exe.numInputs(); ++j) {
      size_t i = std::stoul(exe.inputLabel(j).substr(7));
      inputs.push_back(randomTensor(exe.inputDims(j), exe.inputDType(j), -1.0, 1.0, exe.inputName(j)));
      moves.push_back({i, j});
    }
    std::vector<Tensor> analytic = exe.run(inputs);
    auto shifted = [&](double s) {
      std::vector<Tensor> in = inputs;
      for (auto [i, j] : moves) {
        Tensor x = inputs[i].contiguous().clone();
        for (int64_t e = 0; e < x.numel(); ++e)
          setElement(x, e, elementAt(x, e) + s * elementAt(inputs[j], e));
        in[i] = x;
      }
      return exe.run(in);
    };
    std::vector<Tensor> plus = shifted(h), minus = shifted(-h);
    int code = kExitOk;
    for (size_t k = 0; k < primal; ++k) {
      Tensor t = analytic[primal + k].contiguous(), p = plus[k].contiguous(), m = minus[k].contiguous();
      double maxErr = 0;
      int64_t bad = -1;
      for (int64_t e = 0; e < t.numel(); ++e) {
        double n = (elementAt(p, e) - elementAt(m, e)) / (2 * h), a = elementAt(t, e);
        maxErr = std::max(maxErr, std::fabs(a - n));
        if (std::fabs(a - n) > atol + rtol * std::fabs(n) && bad < 0) bad = e;
      }
      out << "jvpcheck " << exe.outputLabel(primal + k) << ": " << t.numel()
          << " elements, max abs error " << maxErr << (bad >= 0 ? ": MISMATCH\n" : ": OK\n");
      if (bad >= 0) code = kExitMismatch;
    }
    return code;
  }
  for (size_t k = 0; k < primal; ++k)
    inputs.push_back(randomTensor(exe.outputDims(k), exe.outputDType(k), -1.0, 1.0, exe.outputName(k)));
  std::vector<Tensor> analytic = exe.run(inputs);
  auto loss = [&]() {
    std::vector<Tensor> outs = exe.run(inputs);
    double l = 0;
    for (size_t k = 0; k < primal; ++k) {
      Tensor y = outs[k].contiguous();
      for (int64_t i = 0; i < y.numel(); ++i) l += elementAt(y, i) * elementAt(inputs[userInputs + k], i);
    }
    return l;
  };
  int code = kExitOk;
  size_t checked = 0;
  for (size_t j = primal; j < exe.numOutputs(); ++j) {
    std::string label = exe.outputLabel(j);
    if (label.rfind(KILN_GRADS_INPUT_PREFIX, 0) != 0) continue;
    size_t k = std::stoul(label.substr(11));
    Tensor g = analytic[j].contiguous();
    Tensor &x = inputs[k];
    double maxErr = 0;
    int64_t bad = -1;
    double badA = 0, badN = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = elementAt(x, i);
      setElement(x, i, v + h);
      double lp = loss();
      setElement(x, i, v - h);
      double lm = loss();
      setElement(x, i, v);
      double n = (lp - lm) / (2 * h), a = elementAt(g, i);
      double err = std::fabs(a - n);
      maxErr = std::max(maxErr, err);
      if (err > atol + rtol * std::fabs(n) && bad < 0) {
        bad = i;
        badA = a;
        badN = n;
      }
    }
    out << "gradcheck " << label << ": " << x.numel() << " elements, max abs error " << maxErr;
    if (bad >= 0) {
      out << ", first bad element " << bad << ": analytic " << badA << ", numeric " << badN << ": MISMATCH\n";
      code = kExitMismatch;
    } else {
      out << ": OK\n";
    }
    ++checked;
  }
  if (!checked) usageError("--gradcheck: '" + o.model + "' has no gradient of a user input (grads/input<i>)");
  return code;
}

} // namespace kiln::run
