//===- CompileOptions.cpp - checks a CompileOptions before anything runs --===//
//
// Every message names the option as kiln-compile spells it. The GPU targets
// check their own flags (lib/Target/CUDA/CompileFlags.cpp, lib/Target/ROCm).
//
//===----------------------------------------------------------------------===//
#include "CompilationState.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace kiln {

namespace {

bool checkTarget(const CompileOptions &o, ResolvedOptions &r, std::string &error) {
  std::string targets = "cpu";
#ifdef KILN_ENABLE_CUDA
  targets += ", cuda";
#endif
#ifdef KILN_ENABLE_ROCM
  targets += ", rocm";
#endif
  r.cuda = o.target == "cuda";
  r.rocm = o.target == "rocm";
  if (o.target != "cpu" && !r.cuda && !r.rocm) {
    error = "unknown target '" + o.target + "' (this build supports: " + targets + ")";
    return false;
  }
  r.gpuArch = !o.gpuArch.empty() ? o.gpuArch : r.rocm ? "gfx90a" : "sm_90";
#ifdef KILN_ENABLE_ROCM
  if (r.rocm) {
    ROCmCompileFlags flags{r.gpuArch, o.gpuBinary.value_or(std::string()), o.rocmPath};
    if (!setROCmCompileFlags(flags, r.rocmOpts, error))
      return false;
  }
#else
  if (r.rocm) {
    error = "this kiln-compile was built without the ROCm backend (configure with the ROCm device "
            "libraries installed, or -DKILN_ENABLE_ROCM=ON -DKILN_ROCM_PATH=DIR)";
    return false;
  }
#endif
#ifdef KILN_ENABLE_CUDA
  if (r.cuda) {
    std::string attention = o.cudaAttention;
    if (attention.empty())
#ifdef KILN_HAVE_SDPA_KERNELS
      attention = "fused";
#else
      attention = "decomposed";
#endif
    CUDACompileFlags flags{r.gpuArch,    o.gpuBinary.value_or("fatbin"), o.cudaGemm,
                           attention,    o.cudaConv,                     o.convLayout,
                           o.cudaGroupedLayout, o.cudaDepthwise,         o.cudaTf32,
                           o.cudaToolkit};
#ifdef KILN_HAVE_SDPA_KERNELS
    flags.haveFusedAttentionKernels = true;
#endif
    if (!setCUDACompileFlags(flags, r.cudaOpts, error))
      return false;
  }
#else
  if (r.cuda) {
    error = "this kiln-compile was built without the CUDA backend (configure with "
            "-DKILN_ENABLE_CUDA=ON and a CUDA toolkit)";
    return false;
  }
#endif
  return true;
}

bool checkDerivative(const CompileOptions &o, ResolvedOptions &r, std::string &error) {
  const bool training = o.derivative == Derivative::TrainStep;
  const bool adamw = training && o.optimizer == "adamw";
  if (o.remat && o.derivative != Derivative::Grad && !training)
    return error = "--remat applies to --grad and --train-step only", false;
  if (!o.split.empty() && o.split != "forward" && o.split != "backward")
    return error = "--split must be 'forward' or 'backward', got '" + o.split + "'", false;
  if (!o.split.empty() && training)
    return error = "--split cannot be combined with --train-step: a train step is one call that runs the "
                   "forward, the backward and the optimizer and updates the weights it owns, so there is no "
                   "point between them to hand residuals back at; use --train-step alone, or --grad --split "
                   "and apply the optimizer to the backward half's gradients",
           false;
  if (!o.split.empty() && o.derivative != Derivative::Grad)
    return error = "--split applies to --grad only (it cuts a value and gradient into a forward and a "
                   "backward half)",
           false;
  if (training && o.optimizer != "sgd" && o.optimizer != "adamw")
    return error = "--train-step must be 'sgd' or 'adamw', got '" + o.optimizer + "'", false;
  if (training && !r.embed)
    return error = "--train-step needs --weights=embed (the model owns the weights it trains)", false;
  TrainStepOptions &step = r.step;
  step.optimizer = adamw ? TrainStepOptions::Optimizer::AdamW : TrainStepOptions::Optimizer::SGD;
  step.lr = o.lr.value_or(adamw ? 1e-3 : 0.01);
  step.momentum = o.momentum.value_or(0.0);
  step.weightDecay = o.weightDecay.value_or(adamw ? 1e-2 : 0.0);
  step.eps = o.eps.value_or(1e-8);
  std::string betas = o.betas.value_or("0.9,0.999");
  auto [b1, b2] = llvm::StringRef(betas).split(',');
  if (b1.trim().getAsDouble(step.beta1) || b2.trim().getAsDouble(step.beta2))
    return error = "--betas expects B1,B2, got '" + betas + "'", false;
  if (!(step.lr > 0) || step.momentum < 0 || step.weightDecay < 0)
    return error = "--lr must be > 0, --momentum and --weight-decay >= 0", false;
  if (!(step.beta1 >= 0 && step.beta1 < 1) || !(step.beta2 >= 0 && step.beta2 < 1) || !(step.eps >= 0))
    return error = "--betas must be in [0, 1) and --eps >= 0", false;
  if (adamw && o.momentum)
    return error = "--momentum applies to --train-step=sgd only", false;
  if (!adamw && (o.betas || o.eps))
    return error = "--betas and --eps apply to --train-step=adamw only", false;
  return true;
}

} // namespace

bool resolveOptions(const CompileOptions &o, ResolvedOptions &r, std::string &error) {
  if (o.compileJobs < 0 || o.compileJobs > 256)
    return error = "--compile-jobs expects a number of threads from 1 to 256, got " +
                   std::to_string(o.compileJobs),
           false;
  if (o.input.empty())
    return error = "no input file given", false;
  if (o.output.empty() && !o.explain)
    return error = "no output file given (-o OUT)", false;
  if (!checkTarget(o, r, error))
    return false;
  if (o.convLayout != "auto" && o.convLayout != "nhwc" && o.convLayout != "nchw")
    return error = "--conv-layout must be 'auto', 'nhwc' or 'nchw', got '" + o.convLayout + "'", false;
  if (o.convLayout == "nhwc" && r.rocm)
    return error = "--conv-layout=nhwc is for --target=cpu and --target=cuda", false;
  if (o.foldBatchNorm != "on" && o.foldBatchNorm != "off" && o.foldBatchNorm != "auto")
    return error = "--fold-batch-norm must be 'on', 'off' or 'auto', got '" + o.foldBatchNorm + "'", false;
  // auto: on the CPU (oneDNN takes the bias and activation) and on CUDA with
  // cuDNN convolutions (its fused bias-and-ReLU call); not where the folded
  // bias would be a broadcast the convolution accumulates onto (docs/cuda.md).
  r.foldBn = o.foldBatchNorm == "on" ||
             (o.foldBatchNorm == "auto" && !r.rocm && (!r.cuda || o.cudaConv == "cudnn"));
  if (o.concatLinear != "on" && o.concatLinear != "off" && o.concatLinear != "auto")
    return error = "--concat-linear must be 'on', 'off' or 'auto', got '" + o.concatLinear + "'", false;
  // auto: on CUDA, where one larger GEMM beats several small launches; the
  // CPU's and ROCm's products were not measured stacked.
  r.concatLinear = o.concatLinear == "on" || (o.concatLinear == "auto" && r.cuda);
  if (o.progress != "auto" && o.progress != "on" && o.progress != "off")
    return error = "--progress must be 'auto', 'on' or 'off', got '" + o.progress + "'", false;
  if (o.cpuLibrary != "on" && o.cpuLibrary != "off")
    return error = "--cpu-library must be 'on' or 'off', got '" + o.cpuLibrary + "'", false;
  if (!o.injectFault.empty()) {
    llvm::SmallVector<llvm::StringRef, 3> parts;
    llvm::StringRef(o.injectFault).split(parts, ':');
    int64_t nth = 0;
    if (parts.size() < 2 || parts.size() > 3 || (parts.size() == 3 && parts[2].getAsInteger(10, nth)) ||
        nth < 0 || !llvm::is_contained({"wrong", "error", "crash"}, parts[0]))
      return error = "--inject-fault must be MODE:OP[:N] with MODE wrong, error or crash, got '" +
                     o.injectFault + "'",
             false;
    r.faultOptions.mode = parts[0].str();
    r.faultOptions.opName = parts[1].str();
    r.faultOptions.nth = nth;
  }
  if (o.weights != "embed" && o.weights != "external")
    return error = "--weights must be 'embed' or 'external', got '" + o.weights + "'", false;
  r.embed = o.weights == "embed";
  return checkDerivative(o, r, error);
}

} // namespace kiln
