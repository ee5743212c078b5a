//===- CompileMain.cpp - the kiln-compile command line ---------------------===//
//
// kiln-compile INPUT(.pt2|.mlir) -o OUT [--target=cpu|cuda|rocm] [--emit=so|obj|mlir|llvm|dot]
//              [--weights=embed|external] [--dump-dir=DIR] [--timing]
//              [--gpu-arch=sm_NN|gfxNNN] [--gpu-binary=fatbin|cubin|ptx] [--cuda-gemm=cublas|kernel]
//              [--cuda-attention=fused|decomposed]
//              [--cuda-conv=cudnn|gemm|kernel] [--conv-layout=auto|nhwc|nchw] [--cpu-library=on|off]
//              [--cuda-grouped-layout=auto|nchw|nhwc] [--cuda-depthwise=kernel|cudnn]
//              [--cuda-tf32=conv|all|none] [--cuda-toolkit=DIR] [--rocm-path=DIR]
//              [--grad|--jvp|--jacobian|--hessian|--hvp|--train-step=sgd|adamw [--lr=R]
//               [--momentum=M] [--betas=B1,B2] [--eps=E] [--weight-decay=W]]
//
// The options become a CompileOptions and the compiler library
// (kiln/Compiler/Compiler.h) does the rest. The output is written to a
// temporary file beside OUT and renamed into place only when every stage
// succeeded; `-o -` writes to stdout. With --emit=mlir,
// `--mlir-print-debuginfo` prints the locations (the user's Python lines).
//
//===----------------------------------------------------------------------===//
#include "kiln/Compiler/CompileMain.h"
#include "kiln/Compiler/Compiler.h"

#include "mlir/IR/AsmState.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace kiln {
int kilnCompileMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  static cl::OptionCategory cat("kiln-compile options");
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.pt2 | module.mlir>"),
                             cl::Required, cl::cat(cat));
  cl::opt<std::string> output("o", cl::desc("Output file"), cl::value_desc("OUT"), cl::cat(cat));
  cl::list<std::string> plugins("plugin",
                                cl::desc("Load a custom-op plugin (its schemas and fake "
                                         "functions) before importing"),
                                cl::value_desc("LIB.so"), cl::cat(cat));
  cl::opt<bool> explain("explain",
                        cl::desc("List each op of the model: compiled by kiln, or run by "
                                 "the runtime dispatcher, or unsupported, and why"),
                        cl::cat(cat));
  cl::opt<std::string> target("target",
                              cl::desc("Target: cpu, cuda (NVIDIA GPUs) or rocm (AMD GPUs)"),
                              cl::init("cpu"), cl::cat(cat));
  cl::opt<std::string> gpuArch("gpu-arch",
                               cl::desc("GPU architecture: sm_NN for --target=cuda (default "
                                        "sm_90), gfxNNN for --target=rocm (default gfx90a)"),
                               cl::value_desc("ARCH"), cl::cat(cat));
  cl::opt<std::string> gpuBinary(
      "gpu-binary",
      cl::desc("Kernel code embedded for --target=cuda: fatbin (cubin + PTX, default), cubin, "
               "or ptx (compiled by the driver at load)"),
      cl::init("fatbin"), cl::cat(cat));
  cl::opt<std::string> cudaGemm("cuda-gemm",
                                cl::desc("Large matmuls for --target=cuda: cublas (the runtime loads "
                                         "cuBLAS, default) or kernel (generated)"),
                                cl::init("cublas"), cl::cat(cat));
  cl::opt<std::string> cudaAttention(
      "cuda-attention",
      cl::desc("scaled_dot_product_attention for --target=cuda: fused (the runtime's fused kernel where it "
               "applies; the default when kiln was built with nvcc) or decomposed (generated kernels)"),
#ifdef KILN_HAVE_SDPA_KERNELS
      cl::init("fused"),
#else
      cl::init("decomposed"),
#endif
      cl::cat(cat));
  cl::opt<std::string> cudaConv("cuda-conv",
                                cl::desc("Large convolutions for --target=cuda: cudnn (the runtime loads "
                                         "cuDNN, default), gemm (im2col and cuBLAS) or kernel (generated)"),
                                cl::init("cudnn"), cl::cat(cat));
  cl::opt<std::string> convLayout("conv-layout",
                                  cl::desc("Layout of 2-d convolutions and the ops around them: auto (nhwc "
                                           "for --target=cuda with cuDNN convolutions and for --target=cpu "
                                           "with --cpu-library=on, else nchw), nhwc (channels last) or nchw"),
                                  cl::init("auto"), cl::cat(cat));
  cl::opt<std::string> cudaGroupedLayout(
      "cuda-grouped-layout",
      cl::desc("Layout of grouped and depthwise 2-d convolutions for --target=cuda with channels-last "
               "convolutions: auto (default: grouped ones with several input channels per group NHWC, "
               "depthwise ones NCHW), nhwc (all) or nchw (all)"),
      cl::init("auto"), cl::cat(cat));
  cl::opt<std::string> cudaDepthwise(
      "cuda-depthwise",
      cl::desc("Depthwise convolutions for --target=cuda with --cuda-conv=cudnn: kernel (generated "
               "kernels, default) or cudnn"),
      cl::init("kernel"), cl::cat(cat));
  cl::opt<std::string> cpuLibrary("cpu-library",
                                  cl::desc("Large float32 matmuls and convolutions of --target=cpu: on (the "
                                           "runtime runs them with oneDNN, default) or off (generated loops)"),
                                  cl::init("on"), cl::cat(cat));
  cl::opt<std::string> foldBatchNorm(
      "fold-batch-norm",
      cl::desc("Inference batch norm after a convolution: on (folded into the convolution's filter and "
               "bias, which the runtime computes once at load), off, or auto (default: on for --target=cpu "
               "and for --target=cuda with cuDNN convolutions; off for ROCm)"),
      cl::init("auto"), cl::cat(cat));
  cl::opt<std::string> concatLinear(
      "concat-linear",
      cl::desc("Inference linear layers that read one input: on (one product, their weights and biases "
               "stacked once at load, the results sliced), off, or auto (default: on for --target=cuda)"),
      cl::init("auto"), cl::cat(cat));
  cl::opt<unsigned> dotMaxNodes("dot-max-nodes",
                                 cl::desc("--emit=dot and --dump-dir's graph.dot: a program with more nodes "
                                          "is drawn one box per kernel (default 400)"),
                                 cl::init(400), cl::cat(cat));
  // Test-only (hidden from --help): plant a known bug, for kiln-reduce's tests.
  cl::opt<std::string> injectFault("inject-fault",
                                   cl::desc("Test only: MODE:OP[:N] breaks the N-th op OP (aten-inject-fault)"),
                                   cl::Hidden, cl::cat(cat));
  cl::opt<std::string> cudaTf32("cuda-tf32",
                                cl::desc("Where float32 GEMMs of --target=cuda may use TF32: conv "
                                         "(convolutions, PyTorch's default), all, or none"),
                                cl::init("conv"), cl::cat(cat));
  cl::opt<std::string> cudaToolkit("cuda-toolkit",
                                   cl::desc("CUDA toolkit for --target=cuda (ptxas, fatbinary, "
                                            "libdevice)"),
                                   cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<std::string> rocmPath("rocm-path",
                                cl::desc("ROCm root for --target=rocm (amdgcn/bitcode device "
                                         "libraries, llvm/bin/ld.lld)"),
                                cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<EmitKind> emit(
      "emit", cl::desc("What to write"), cl::init(EmitKind::SO),
      cl::values(clEnumValN(EmitKind::SO, "so", "a model shared object (default)"),
                 clEnumValN(EmitKind::Obj, "obj", "the model's object file"),
                 clEnumValN(EmitKind::MLIR, "mlir", "the imported aten-dialect MLIR"),
                 clEnumValN(EmitKind::LLVM, "llvm", "the model's LLVM IR"),
                 clEnumValN(EmitKind::Dot, "dot",
                            "a Graphviz picture of the program: its nodes, the fused kernels they "
                            "joined, library and runtime calls")),
      cl::cat(cat));
  cl::opt<std::string> weightsMode("weights",
                                   cl::desc("embed: weights inside the .so (default); external: "
                                            "read from a .pt2 at load time"),
                                   cl::init("embed"), cl::cat(cat));
  cl::opt<std::string> dumpDir("dump-dir", cl::desc("Write the IR after import and each pass"),
                               cl::value_desc("DIR"), cl::cat(cat));
  cl::opt<bool> grad("grad",
                     cl::desc("Compile the value and gradient: the entry takes the inputs plus one "
                              "cotangent per output and returns the outputs, then the gradient of "
                              "every floating-point user input, then of every parameter "
                              "(docs/autograd.md)"),
                     cl::cat(cat));
  cl::opt<bool> jvp("jvp",
                    cl::desc("Compile the value and Jacobian-vector product: the entry takes the "
                             "inputs plus one tangent per floating-point user input and returns "
                             "the outputs, then their tangents (docs/autograd.md)"),
                    cl::cat(cat));
  cl::opt<bool> jacobian("jacobian",
                         cl::desc("Compile the output and its Jacobian with respect to each "
                                  "floating-point user input (one tensor output, static shapes; "
                                  "docs/autograd.md)"),
                         cl::cat(cat));
  cl::opt<bool> hessian("hessian",
                        cl::desc("Compile the output and the Hessian of its sum with respect to "
                                 "the floating-point user inputs (docs/autograd.md)"),
                        cl::cat(cat));
  cl::opt<bool> hvp("hvp",
                    cl::desc("Compile the output and the Hessian (of its sum)-vector product: "
                             "the entry takes the inputs plus one vector per floating-point user "
                             "input (docs/autograd.md)"),
                    cl::cat(cat));
  cl::opt<std::string> trainStep(
      "train-step",
      cl::desc("Compile one training step (sgd or adamw, as torch.optim's): the loaded model "
               "owns its parameters and optimizer state and updates them in place on each run "
               "from the loss sum(output * cotangent)"),
      cl::value_desc("sgd|adamw"), cl::cat(cat));
  cl::opt<double> lr("lr", cl::desc("--train-step learning rate (default 0.01 for sgd, 0.001 for "
                                    "adamw)"),
                     cl::init(0.01), cl::cat(cat));
  cl::opt<std::string> betas("betas",
                             cl::desc("--train-step=adamw betas B1,B2 (default 0.9,0.999)"),
                             cl::init("0.9,0.999"), cl::cat(cat));
  cl::opt<double> eps("eps", cl::desc("--train-step=adamw eps (default 1e-8)"), cl::init(1e-8),
                      cl::cat(cat));
  cl::opt<double> momentum("momentum", cl::desc("--train-step=sgd momentum (default 0)"),
                           cl::init(0.0), cl::cat(cat));
  cl::opt<double> weightDecay("weight-decay",
                              cl::desc("--train-step weight decay (default 0 for sgd, 0.01 "
                                       "for adamw)"),
                              cl::init(0.0),
                              cl::cat(cat));
  cl::opt<std::string> vmapSpec(
      "vmap",
      cl::desc("Batch the program as torch.func.vmap does (after --grad, --jvp, ...: per-sample "
               "gradients): IN_DIMS lists, per user input (with --grad the cotangents count), the "
               "dim that is the batch or 'none' (one entry: all inputs); OUT_DIMS where the batch "
               "goes in each result (default 0). The batch size is dynamic (docs/vmap.md)"),
      cl::value_desc("IN[:OUT]"), cl::cat(cat));
  cl::opt<bool> remat("remat",
                      cl::desc("With --grad or --train-step: recompute cheap forward values "
                               "(views, elementwise ops) in the backward instead of keeping them, "
                               "as a minimum cut by bytes chooses (docs/autograd.md)"),
                      cl::cat(cat));
  cl::opt<std::string> split(
      "split",
      cl::desc("With --grad: compile one half of the value and gradient, cut where the backward "
               "reads the forward (--remat's cut): 'forward' returns the outputs and the residuals "
               "(residuals/<i>), 'backward' takes the residuals and the cotangents and returns the "
               "gradients (docs/autograd.md); with --vmap, each half batched as the whole program "
               "would be (per-sample gradients in two halves)"),
      cl::value_desc("forward|backward"), cl::cat(cat));
  cl::opt<bool> timing("timing", cl::desc("Print the time of each stage and pass, and the 10 functions slowest to compile"),
                       cl::cat(cat));
  cl::opt<bool> quiet("quiet", cl::desc("No progress lines (the same as --progress=off)"), cl::cat(cat));
  cl::opt<std::string> progress("progress",
                                cl::desc("Progress lines on stderr (stage, pass k of n, LLVM's parts): auto "
                                         "(default: one line redrawn on a terminal, none otherwise), on (a "
                                         "line each off a terminal) or off"),
                                cl::init("auto"), cl::cat(cat));
  cl::opt<std::string> cpu("cpu", cl::desc("Target CPU (default: the host's)"),
                           cl::init("native"), cl::cat(cat));
  cl::opt<int> compileJobs("compile-jobs",
                           cl::desc("Optimise and compile the model's LLVM code on N threads "
                                    "(default: the cores available; --emit=obj uses 1)"),
                           cl::init(0), cl::cat(cat));
  // --mlir-print-debuginfo and friends, for --emit=mlir (hidden from --help).
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(cat);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "kiln-compile " KILN_VERSION_STRING " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "kiln ahead-of-time compiler\n", &llvm::errs()))
    return kExitBadInput;
  if ((int)grad + (int)jvp + (int)jacobian + (int)hessian + (int)hvp + (int)!trainStep.empty() > 1) {
    llvm::errs() << "kiln-compile: error: --grad, --jvp, --jacobian, --hessian, --hvp and --train-step "
                    "cannot be combined\n";
    return kExitBadInput;
  }
  CompileOptions o;
  o.input = input;
  o.output = output;
  o.target = target;
  o.emit = emit;
  o.weights = weightsMode;
  o.plugins.assign(plugins.begin(), plugins.end());
  o.explain = explain;
  o.dumpDir = dumpDir;
  o.dotMaxNodes = dotMaxNodes;
  o.timing = timing;
  o.progress = quiet ? std::string("off") : std::string(progress);
  o.injectFault = injectFault;
  o.cpu = cpu;
  o.compileJobs = compileJobs;
  o.cpuLibrary = cpuLibrary;
  o.convLayout = convLayout;
  o.foldBatchNorm = foldBatchNorm;
  o.concatLinear = concatLinear;
  o.gpuArch = gpuArch;
  if (gpuBinary.getNumOccurrences() || target != "rocm")
    o.gpuBinary = gpuBinary;
  o.cudaGemm = cudaGemm;
  o.cudaAttention = cudaAttention;
  o.cudaConv = cudaConv;
  o.cudaGroupedLayout = cudaGroupedLayout;
  o.cudaDepthwise = cudaDepthwise;
  o.cudaTf32 = cudaTf32;
  o.cudaToolkit = cudaToolkit;
  o.rocmPath = rocmPath;
  o.derivative = grad       ? Derivative::Grad
                 : jvp      ? Derivative::Jvp
                 : jacobian ? Derivative::Jacobian
                 : hessian  ? Derivative::Hessian
                 : hvp      ? Derivative::Hvp
                 : !trainStep.empty() ? Derivative::TrainStep
                                      : Derivative::None;
  if (!trainStep.empty())
    o.optimizer = trainStep;
  if (lr.getNumOccurrences())
    o.lr = lr;
  if (momentum.getNumOccurrences())
    o.momentum = momentum;
  if (weightDecay.getNumOccurrences())
    o.weightDecay = weightDecay;
  if (eps.getNumOccurrences())
    o.eps = eps;
  if (betas.getNumOccurrences())
    o.betas = betas;
  o.remat = remat;
  o.split = split;
  o.vmap = vmapSpec;
  return compile(o);
}

} // namespace kiln
