//===- CompileMain.cpp - the kiln-compile driver --------------------------===//
//
// kiln-compile INPUT(.pt2|.mlir) -o OUT [--target=cpu|cuda|rocm] [--emit=so|obj|mlir|llvm]
//              [--weights=embed|external] [--dump-dir=DIR] [--timing]
//              [--gpu-arch=sm_NN|gfxNNN] [--gpu-binary=fatbin|cubin|ptx] [--cuda-gemm=cublas|kernel]
//              [--cuda-attention=fused|decomposed]
//              [--cuda-conv=cudnn|gemm|kernel] [--conv-layout=auto|nhwc|nchw] [--cpu-library=on|off]
//              [--cuda-grouped-layout=auto|nchw|nhwc] [--cuda-depthwise=kernel|cudnn]
//              [--cuda-tf32=conv|all|none] [--cuda-toolkit=DIR] [--rocm-path=DIR]
//              [--grad|--jvp|--jacobian|--hessian|--hvp|--train-step=sgd|adamw [--lr=R]
//               [--momentum=M] [--betas=B1,B2] [--eps=E] [--weight-decay=W]]
//
// The output is written to a temporary file beside OUT and renamed into place
// only when every stage succeeded; `-o -` writes to stdout. With --emit=mlir,
// `--mlir-print-debuginfo` prints the locations (the user's Python lines).
//
//===----------------------------------------------------------------------===//
#include "kiln/Compiler/CompileMain.h"
#include "kiln/Compiler/GraphPicture.h"

#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"
#include "ATen/Transforms/Passes.h"
#include "kiln/Conversion/AutogradToATen.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Import/GraphImporter.h"
#include "kiln/Import/RuntimeOps.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Registration.h"
#include "kiln/Target/CPU.h"
#include "llvm/TargetParser/Host.h"
#include "kiln/Transforms/Passes.h"
#ifdef KILN_ENABLE_ROCM
#include "kiln/Target/ROCm.h"
#endif
#ifdef KILN_ENABLE_CUDA
#include "kiln/Target/CUDA.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace kiln {
namespace {

enum class EmitKind { SO, Obj, MLIR, LLVM, Dot };

/// Writes the IR after every pass into DIR/NN-<pass>.mlir.
/// DIR/graph.dot (the picture of --emit=dot) and, when Graphviz's `dot` is on
/// the PATH, DIR/graph.svg.
void writeDumpPicture(StringRef dir, const ProgramPicture &picture, size_t maxNodes) {
  SmallString<256> dotPath(dir);
  llvm::sys::path::append(dotPath, "graph.dot");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dotPath, ec);
    if (ec) {
      llvm::errs() << "kiln-compile: warning: cannot write '" << dotPath << "': " << ec.message() << "\n";
      return;
    }
    writeDot(picture, os, maxNodes);
  }
  auto dot = llvm::sys::findProgramByName("dot");
  if (!dot)
    return;
  SmallString<256> svgPath(dir);
  llvm::sys::path::append(svgPath, "graph.svg");
  std::string out = "-o" + svgPath.str().str();
  StringRef args[] = {*dot, "-Tsvg", out, dotPath};
  if (llvm::sys::ExecuteAndWait(*dot, args) != 0)
    llvm::errs() << "kiln-compile: warning: Graphviz could not render '" << dotPath << "'\n";
}

class DumpDirPrinter : public PassManager::IRPrinterConfig {
public:
  DumpDirPrinter(std::string dir, unsigned &counter)
      : IRPrinterConfig(/*printModuleScope=*/true), dir(std::move(dir)), counter(counter) {}
  void printAfterIfEnabled(Pass *pass, Operation *op, PrintCallbackFn printCallback) override {
    std::string name = llvm::formatv("{0:d2}-{1}.mlir", counter++, pass->getArgument().empty()
                                                                       ? pass->getName()
                                                                       : pass->getArgument())
                           .str();
    std::error_code ec;
    llvm::raw_fd_ostream os(dir + "/" + name, ec);
    if (!ec)
      printCallback(os);
  }

private:
  std::string dir;
  unsigned &counter;
};

void dumpStage(const std::string &dir, unsigned &counter, StringRef stage,
               function_ref<void(llvm::raw_ostream &)> print) {
  if (dir.empty())
    return;
  std::error_code ec;
  llvm::raw_fd_ostream os(dir + "/" + llvm::formatv("{0:d2}-{1}", counter++, stage).str(), ec);
  if (!ec)
    print(os);
}

/// "file:line: error: message (node 'name')" for a user's Python line, or
/// "file: error: message" for a whole file.
void printDiagnostic(llvm::raw_ostream &os, Diagnostic &d) {
  std::string where, node;
  Location loc = d.getLocation();
  // A recomputed op's location wraps the original (Autograd/IR/Recompute.h).
  if (auto f = dyn_cast<FusedLoc>(loc); f && !f.getLocations().empty())
    loc = f.getLocations().front();
  if (auto n = dyn_cast<NameLoc>(loc)) {
    node = n.getName().str();
    loc = n.getChildLoc();
  }
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    where = f.getFilename().str();
    if (f.getLine())
      where += ":" + std::to_string(f.getLine());
  }
  const char *sev = d.getSeverity() == DiagnosticSeverity::Error     ? "error"
                    : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
                                                                     : "note";
  os << (where.empty() ? std::string("kiln-compile") : where) << ": " << sev << ": " << d.str();
  if (!node.empty())
    os << " [node '" << node << "']";
  os << "\n";
  for (Diagnostic &note : d.getNotes())
    printDiagnostic(os, note);
}

/// The public entry of the module: the only public func.func.
func::FuncOp findEntry(ModuleOp module) {
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal()) {
      if (entry)
        return {};
      entry = f;
    }
  return entry;
}

} // namespace

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
               "bias, which the runtime computes once at load), off, or auto (default: on for --target=cpu; "
               "off for GPUs, where the folded float32 convolutions measured slower)"),
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
  cl::opt<bool> timing("timing", cl::desc("Print the time of each stage and pass"),
                       cl::cat(cat));
  cl::opt<std::string> cpu("cpu", cl::desc("Target CPU (default: the host's)"),
                           cl::init("native"), cl::cat(cat));
  cl::opt<int> compileJobs("compile-jobs",
                           cl::desc("Optimise and compile the model's LLVM code on N threads "
                                    "(default: the cores available; --emit=obj uses 1)"),
                           cl::init(0), cl::cat(cat));
  // --mlir-print-debuginfo and friends, for --emit=mlir (hidden from --help).
  registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(cat);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "kiln-compile " KILN_VERSION_STRING " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv, "kiln ahead-of-time compiler\n", &llvm::errs()))
    return kExitBadInput;

  auto fail = [](const Twine &msg) {
    llvm::errs() << "kiln-compile: error: " << msg << "\n";
    return kExitBadInput;
  };
  if (compileJobs < 0 || compileJobs > 256)
    return fail("--compile-jobs expects a number of threads from 1 to 256, got " + Twine((int)compileJobs));
  if (output.empty() && !explain)
    return fail("no output file given (-o OUT)");
  std::string targets = "cpu";
#ifdef KILN_ENABLE_CUDA
  targets += ", cuda";
#endif
#ifdef KILN_ENABLE_ROCM
  targets += ", rocm";
#endif
  bool cuda = target == "cuda", rocm = target == "rocm";
  if (target != "cpu" && !cuda && !rocm)
    return fail("unknown target '" + target + "' (this build supports: " + targets + ")");
  if (gpuArch.empty())
    gpuArch = rocm ? "gfx90a" : "sm_90";
#ifdef KILN_ENABLE_ROCM
  ROCmPipelineOptions rocmOpts;
  if (rocm) {
    std::string err;
    ROCmCompileFlags flags{gpuArch, gpuBinary.getNumOccurrences() ? std::string(gpuBinary) : std::string(),
                           rocmPath};
    if (!setROCmCompileFlags(flags, rocmOpts, err))
      return fail(err);
  }
#else
  if (rocm)
    return fail("this kiln-compile was built without the ROCm backend (configure with the "
                "ROCm device libraries installed, or -DKILN_ENABLE_ROCM=ON "
                "-DKILN_ROCM_PATH=DIR)");
#endif
#ifdef KILN_ENABLE_CUDA
  CUDAPipelineOptions cudaOpts;
  if (cuda) {
    std::string err;
    CUDACompileFlags flags{gpuArch,    gpuBinary,         cudaGemm,      cudaAttention, cudaConv,
                           convLayout, cudaGroupedLayout, cudaDepthwise, cudaTf32,      cudaToolkit};
#ifdef KILN_HAVE_SDPA_KERNELS
    flags.haveFusedAttentionKernels = true;
#endif
    if (!setCUDACompileFlags(flags, cudaOpts, err))
      return fail(err);
  }
#else
  if (cuda)
    return fail("this kiln-compile was built without the CUDA backend (configure with "
                "-DKILN_ENABLE_CUDA=ON and a CUDA toolkit)");
#endif
  if (convLayout != "auto" && convLayout != "nhwc" && convLayout != "nchw")
    return fail("--conv-layout must be 'auto', 'nhwc' or 'nchw', got '" + convLayout + "'");
  if (convLayout == "nhwc" && target == "rocm")
    return fail("--conv-layout=nhwc is for --target=cpu and --target=cuda");
  if (foldBatchNorm != "on" && foldBatchNorm != "off" && foldBatchNorm != "auto")
    return fail("--fold-batch-norm must be 'on', 'off' or 'auto', got '" + foldBatchNorm + "'");
  bool foldBn = foldBatchNorm == "on" || (foldBatchNorm == "auto" && !cuda && !rocm);
  if (cpuLibrary != "on" && cpuLibrary != "off")
    return fail("--cpu-library must be 'on' or 'off', got '" + cpuLibrary + "'");
  aten::ATenInjectFaultOptions faultOptions;
  if (!injectFault.empty()) {
    SmallVector<StringRef, 3> parts;
    StringRef(injectFault).split(parts, ':');
    int64_t nth = 0;
    if (parts.size() < 2 || parts.size() > 3 || (parts.size() == 3 && parts[2].getAsInteger(10, nth)) ||
        nth < 0 || !llvm::is_contained({"wrong", "error", "crash"}, parts[0]))
      return fail("--inject-fault must be MODE:OP[:N] with MODE wrong, error or crash, got '" + injectFault +
                  "'");
    faultOptions.mode = parts[0].str();
    faultOptions.opName = parts[1].str();
    faultOptions.nth = nth;
  }
  if (weightsMode != "embed" && weightsMode != "external")
    return fail("--weights must be 'embed' or 'external', got '" + weightsMode + "'");
  bool embed = weightsMode == "embed";
  if (!dumpDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return fail("cannot create --dump-dir '" + dumpDir + "': " + ec.message());

  for (const std::string &p : plugins) {
    std::string err;
    if (!loadRuntimePlugin(p, err))
      return fail("cannot load plugin '" + p + "': " + err);
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  ScopedDiagnosticHandler diagHandler(&ctx, [](Diagnostic &d) {
    printDiagnostic(llvm::errs(), d);
    return success();
  });

  DefaultTimingManager tm;
  tm.setEnabled(timing);
  TimingScope root = tm.getRootScope();
  unsigned dumpCounter = 0;

  // 1. Import.
  OwningOpRef<ModuleOp> module;
  std::map<std::string, std::vector<char>> weights;
  {
    TimingScope t = root.nest("import");
    if (StringRef(input).ends_with(".mlir")) {
      module = parseSourceFile<ModuleOp>(input, sourceMgr, &ctx);
      if (!module)
        return fail("cannot parse '" + input + "'");
      // What the importer records on runtime calls of a .pt2 (their backward).
      recordRuntimeOpFacts(*module);
    } else {
      auto prog = importPt2(ctx, input, /*explainOnly=*/explain);
      if (failed(prog))
        return kExitBadInput;
      if (explain) {
        size_t compiled = 0, runtime = 0, unsupported = 0, decomposed = 0;
        for (const NodeDecision &d : prog->decisions) {
          const char *kind = d.kind == NodeDecision::Compiled     ? "compiled"
                             : d.kind == NodeDecision::Runtime    ? "runtime"
                             : d.kind == NodeDecision::Decomposed ? "decomposed"
                                                                  : "unsupported";
          (d.kind == NodeDecision::Compiled     ? compiled
           : d.kind == NodeDecision::Runtime    ? runtime
           : d.kind == NodeDecision::Decomposed ? decomposed
                                                : unsupported)++;
          llvm::outs() << llvm::formatv("{0,-12} {1,-40} {2,-28} {3}{4}\n", kind, d.op, d.node,
                                        d.why, d.where.empty() ? "" : "  (" + d.where + ")");
        }
        llvm::outs() << llvm::formatv("{0} ops: {1} compiled, {2} through the runtime, {3} "
                                      "unsupported ({4} composites decomposed into them)\n",
                                      prog->decisions.size() - decomposed, compiled, runtime,
                                      unsupported, decomposed);
        if (unsupported || (output.empty() && vmapSpec.empty()))
          return unsupported ? kExitBadInput : kExitOk;
        // Every op is handled: import again for real and compile.
        prog = importPt2(ctx, input);
        if (failed(prog))
          return kExitBadInput;
      }
      module = std::move(prog->module);
      weights = std::move(prog->weights);
    }
    if (failed(verify(*module)))
      return fail("the imported module does not verify");
  }
  dumpStage(dumpDir, dumpCounter, "import.mlir", [&](llvm::raw_ostream &os) {
    module->print(os, OpPrintingFlags().enableDebugInfo(true, true));
  });
  func::FuncOp entry = findEntry(*module);
  if (!entry)
    return fail("'" + input + "' must have exactly one public function with a body");
  // A model never writes into the caller's tensors (state changes are
  // `kiln.update` results): the arguments of a .mlir entry are read-only to
  // bufferization too, as the importer marks those of a .pt2.
  for (unsigned i = 0; i < entry.getNumArguments(); ++i)
    if (!entry.getArgAttr(i, "bufferization.writable"))
      entry.setArgAttr(i, "bufferization.writable", BoolAttr::get(&ctx, false));

  // --grad: differentiate the entry in the aten dialect (autograd.vjp, then
  // autograd-differentiate) after the composites are decomposed, so each
  // reverse rule sees one form of an op.
  if (remat && !grad && trainStep.empty())
    return fail("--remat applies to --grad and --train-step only");
  if ((int)grad + (int)jvp + (int)jacobian + (int)hessian + (int)hvp + (int)!trainStep.empty() > 1)
    return fail("--grad, --jvp, --jacobian, --hessian, --hvp and --train-step cannot be combined");
  if (!trainStep.empty() && trainStep != "sgd" && trainStep != "adamw")
    return fail("--train-step must be 'sgd' or 'adamw', got '" + trainStep + "'");
  if (!trainStep.empty() && weightsMode != "embed")
    return fail("--train-step needs --weights=embed (the model owns the weights it trains)");
  TrainStepOptions step;
  step.optimizer = trainStep == "adamw" ? TrainStepOptions::Optimizer::AdamW
                                        : TrainStepOptions::Optimizer::SGD;
  step.lr = lr.getNumOccurrences() || trainStep != "adamw" ? (double)lr : 1e-3;
  step.momentum = momentum;
  step.weightDecay =
      weightDecay.getNumOccurrences() || trainStep != "adamw" ? (double)weightDecay : 1e-2;
  step.eps = eps;
  {
    StringRef b1, b2;
    std::tie(b1, b2) = StringRef(betas).split(',');
    if (b1.trim().getAsDouble(step.beta1) || b2.trim().getAsDouble(step.beta2))
      return fail("--betas expects B1,B2, got '" + betas + "'");
  }
  if (!(step.lr > 0) || momentum < 0 || step.weightDecay < 0)
    return fail("--lr must be > 0, --momentum and --weight-decay >= 0");
  if (!(step.beta1 >= 0 && step.beta1 < 1) || !(step.beta2 >= 0 && step.beta2 < 1) ||
      !(step.eps >= 0))
    return fail("--betas must be in [0, 1) and --eps >= 0");
  if (trainStep == "adamw" && momentum.getNumOccurrences())
    return fail("--momentum applies to --train-step=sgd only");
  if (trainStep != "adamw" && (betas.getNumOccurrences() || eps.getNumOccurrences()))
    return fail("--betas and --eps apply to --train-step=adamw only");
  if (grad || jvp || jacobian || hessian || hvp || !trainStep.empty()) {
    TimingScope t = root.nest("differentiate");
    PassManager pre(&ctx);
    pre.enableTiming(t);
    pre.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    aten::ATenDecomposeCompositesOptions unrolled;
    unrolled.unrollRecurrent = true; // lstm/gru as aten ops that have reverse rules
    pre.nest<func::FuncOp>().addPass(aten::createATenDecomposeComposites(unrolled));
    if (failed(pre.run(*module)))
      return fail("compilation of '" + input + "' failed (see the errors above)");
    std::vector<AddedState> added;
    auto gradEntry = grad       ? buildGradEntry(*module, entry)
                     : jvp      ? buildJvpEntry(*module, entry)
                     : jacobian ? buildJacobianEntry(*module, entry)
                     : hessian  ? buildHessianEntry(*module, entry)
                     : hvp      ? buildHvpEntry(*module, entry)
                                : buildTrainStepEntry(*module, entry, step, added);
    if (failed(gradEntry))
      return kExitBadInput;
    entry = *gradEntry;
    // Optimizer state starts at zero.
    for (const AddedState &a : added)
      weights[a.name].assign(a.type.getNumElements() * (a.type.getElementTypeBitWidth() / 8), 0);
    PassManager pm(&ctx);
    pm.enableTiming(t);
    AutogradDifferentiateOptions diffOptions;
    diffOptions.remat = remat;
    pm.addPass(createAutogradDifferentiate(diffOptions));
    pm.addPass(createSymbolDCEPass());
    pm.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    pm.nest<func::FuncOp>().addPass(kiln::createKilnKeepRecomputed());
    pm.nest<func::FuncOp>().addPass(createCSEPass());
    if (failed(pm.run(*module)))
      return fail("cannot differentiate '" + input + "' (see the errors above)");
    // The forward values the backward reads (static estimate, docs/autograd.md).
    auto saved = (*module)->getAttrOfType<IntegerAttr>(kiln::attrs::kSavedActivationBytes);
    auto before = (*module)->getAttrOfType<IntegerAttr>(kiln::attrs::kSavedActivationBytesBeforeRemat);
    if (timing && saved) {
      llvm::errs() << "  saved activations: " << saved.getInt() << " bytes";
      if (before)
        llvm::errs() << " (" << before.getInt() << " without --remat)";
      llvm::errs() << "\n";
    }
    (*module)->removeAttr(kiln::attrs::kSavedActivationBytes);
    (*module)->removeAttr(kiln::attrs::kSavedActivationBytesBeforeRemat);
    dumpStage(dumpDir, dumpCounter, "grad.mlir", [&](llvm::raw_ostream &os) {
      module->print(os, OpPrintingFlags().enableDebugInfo(true, true));
    });
  }

  // --vmap: batch the entry (after differentiation, so --grad --vmap gives
  // per-sample gradients) with autograd.vmap and autograd-batch.
  if (!vmapSpec.empty()) {
    TimingScope t = root.nest("vmap");
    std::string error;
    auto spec = parseVmapSpec(vmapSpec, error);
    if (failed(spec))
      return fail("--vmap=" + vmapSpec + ": " + error);
    PassManager pre(&ctx);
    pre.enableTiming(t);
    pre.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    pre.nest<func::FuncOp>().addPass(aten::createATenDecomposeComposites());
    pre.addPass(createAutogradDifferentiate());
    if (failed(pre.run(*module)))
      return fail("compilation of '" + input + "' failed (see the errors above)");
    auto vmapEntry = buildVmapEntry(*module, entry, *spec);
    if (failed(vmapEntry))
      return kExitBadInput;
    entry = *vmapEntry;
    PassManager pm(&ctx);
    pm.enableTiming(t);
    pm.addPass(createAutogradBatch());
    pm.addPass(createSymbolDCEPass());
    pm.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    pm.nest<func::FuncOp>().addPass(createCSEPass());
    if (failed(pm.run(*module)))
      return fail("cannot batch '" + input + "' (see the errors above)");
    if (auto lines = (*module)->getAttrOfType<ArrayAttr>(kiln::attrs::kVmapExplain)) {
      if (explain) {
        size_t loops = 0;
        for (Attribute a : lines) {
          StringRef line = cast<StringAttr>(a).getValue();
          loops += line.starts_with("loop");
          llvm::outs() << "vmap " << line << "\n";
        }
        llvm::outs() << "vmap: " << lines.size() << " batched ops, " << lines.size() - loops
                     << " by batching rules, " << loops << " in a loop over the batch\n";
      }
      (*module)->removeAttr(kiln::attrs::kVmapExplain);
    }
    dumpStage(dumpDir, dumpCounter, "vmap.mlir", [&](llvm::raw_ostream &os) {
      module->print(os, OpPrintingFlags().enableDebugInfo(true, true));
    });
    if (output.empty())
      return kExitOk;
  }

  // Write to a temporary beside the output; rename only on success. "-" means
  // stdout: write a temporary elsewhere, then copy it out.
  auto writeOutput = [&](function_ref<LogicalResult(StringRef tmpPath)> write) -> int {
    SmallString<256> tmp;
    if (output == "-") {
      if (std::error_code ec = llvm::sys::fs::createTemporaryFile("kiln-compile", "out", tmp))
        return fail("cannot create a temporary file: " + ec.message());
      if (failed(write(tmp))) {
        llvm::sys::fs::remove(tmp);
        return kExitBadInput;
      }
      auto buf = llvm::MemoryBuffer::getFile(tmp, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
      llvm::sys::fs::remove(tmp);
      if (!buf)
        return fail("cannot read back '" + tmp + "': " + buf.getError().message());
      llvm::outs() << (*buf)->getBuffer();
      llvm::outs().flush();
      return kExitOk;
    }
    std::string model = output + ".tmp-%%%%%%";
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, tmp))
      return fail("cannot create '" + output + "': " + ec.message());
    if (failed(write(tmp))) {
      llvm::sys::fs::remove(tmp);
      return kExitBadInput;
    }
    if (std::error_code ec = llvm::sys::fs::rename(tmp, output)) {
      llvm::sys::fs::remove(tmp);
      return fail("cannot write '" + output + "': " + ec.message());
    }
    return kExitOk;
  };

  if (emit == EmitKind::MLIR)
    return writeOutput([&](StringRef tmp) -> LogicalResult {
      std::error_code ec;
      llvm::raw_fd_ostream os(tmp, ec);
      if (ec)
        return failure();
      module->print(os);
      return success();
    });

  // Inference entries: batch norm after a convolution becomes its filter
  // and bias, derived from the weights once, at load (kiln-fold-batch-norm).
  // Before the manifest, which lists the derived arguments.
  if (foldBn && !grad && !jvp && !jacobian && !hessian && !hvp && trainStep.empty() &&
      vmapSpec.empty()) {
    TimingScope t = root.nest("fold-batch-norm");
    PassManager pm(&ctx);
    pm.enableTiming(t);
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(createCanonicalizerPass());
    fpm.addPass(aten::createATenDecomposeComposites());
    fpm.addPass(kiln::createKilnFoldBatchNorm());
    if (failed(pm.run(*module)))
      return fail("compilation of '" + input + "' failed (see the errors above)");
  }

  // 2. Manifest (from the imported signature) and weight layout.
  WeightLayout layout;
  FailureOr<std::string> manifest;
  {
    TimingScope t = root.nest("manifest");
    manifest = buildManifest(*module, entry, weights, embed, layout,
                             cuda   ? "cuda " + gpuArch
                             : rocm ? "hip " + gpuArch
                                    : std::string(),
                             std::vector<std::string>(plugins.begin(), plugins.end()));
    if (failed(manifest))
      return kExitBadInput;
  }
  std::string entryName = entry.getName().str();
  entry->setAttr("llvm.emit_c_interface", UnitAttr::get(&ctx));

  // 3. The named pipeline of the target.
  ProgramPicture picture;
  {
    TimingScope t = root.nest("pipeline");
    PassManager pm(&ctx);
    pm.enableTiming(t);
    if (!dumpDir.empty()) {
      ctx.disableMultithreading();
      pm.enableIRPrinting(std::make_unique<DumpDirPrinter>(dumpDir, dumpCounter));
    }
    if (!injectFault.empty())
      pm.nest<func::FuncOp>().addPass(aten::createATenInjectFault(faultOptions));
    // The picture of --emit=dot and --dump-dir: the program as imported, and
    // the kernels the pipeline makes of it.
    if (emit == EmitKind::Dot || !dumpDir.empty()) {
      picture = readProgram(entry);
      pm.addInstrumentation(recordKernels(picture, entryName));
    }
#ifdef KILN_ENABLE_CUDA
    if (cuda)
      buildCUDAPipeline(pm, cudaOpts);
    else
#endif
#ifdef KILN_ENABLE_ROCM
        if (rocm)
      buildROCmPipeline(pm, rocmOpts);
    else
#endif
      // oneDNN's direct convolutions are NHWC kernels (docs/Rationale/cpu-library-calls.md).
      buildCPUPipeline(pm, convLayout == "nhwc" || (convLayout == "auto" && cpuLibrary == "on"),
                       cpuLibrary == "on");
    if (failed(pm.run(*module)))
      return fail("compilation of '" + input + "' failed (see the errors above)");
    if (!dumpDir.empty())
      writeDumpPicture(dumpDir, picture, dotMaxNodes);
    if (emit == EmitKind::Dot)
      return writeOutput([&](StringRef tmp) -> LogicalResult {
        std::error_code ec;
        llvm::raw_fd_ostream os(tmp, ec);
        if (ec)
          return failure();
        writeDot(picture, os, dotMaxNodes);
        return success();
      });
    // The entry's peak buffer bytes, recorded by kiln-early-dealloc (CPU and
    // GPU pipelines; on a GPU, device and host buffers together).
    if (Operation *fn = SymbolTable::lookupSymbolIn(*module, entryName)) {
      auto peak = fn->getAttrOfType<IntegerAttr>(kiln::attrs::kPeakBufferBytes);
      if (timing && peak)
        llvm::errs() << "  peak buffer bytes: " << peak.getInt()
                     << " (the most the entry's own buffers hold at once)\n";
    }
    // Weights the entry takes permuted (kiln-channels-last): the runtime
    // permutes them once, at load, as the manifest's `layout` lines say.
    if (Operation *fn = SymbolTable::lookupSymbolIn(*module, entryName))
      if (auto layouts = fn->getAttrOfType<DictionaryAttr>(kiln::attrs::kWeightLayouts)) {
        std::string lines;
        for (NamedAttribute l : layouts) {
          lines += "layout " + l.getName().str();
          for (int64_t p : cast<DenseI64ArrayAttr>(l.getValue()).asArrayRef())
            lines += " " + std::to_string(p);
          lines += "\n";
        }
        size_t end = manifest->rfind("end\n");
        manifest->insert(end == std::string::npos ? manifest->size() : end, lines);
      }
    module->walk([](Operation *op) {
      op->removeAttr(kiln::attrs::kPeakBufferBytes);
      op->removeAttr(kiln::attrs::kWeightLayouts);
    });
  }

  // 4. LLVM IR, the model ABI, optimisation, object code, link.
  const bool blobObject =
      embed && emit == EmitKind::SO && canWriteWeightsObject(llvm::Triple(llvm::sys::getDefaultTargetTriple()));
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    TimingScope t = root.nest("translate-to-llvm-ir");
    llvmModule = translateModuleToLLVMIR(*module, llvmCtx, "kiln_model");
    if (!llvmModule)
      return fail("translation to LLVM IR failed");
    std::string err;
    // A shared object gets the weight blob as an object file of its own
    // (writeWeightsObject), not as an LLVM constant to optimise and print.
    if (failed(addModelABI(*llvmModule, entryName, *manifest, layout, weights, embed && !blobObject, err)))
      return fail(err);
  }
  CPUCodegenOptions cg;
  cg.cpu = cpu;
  if (cuda || rocm) {
    // The host code of a GPU model only sizes buffers and queues launches;
    // for ShuffleNet's (300 launches in one function) LLVM's O3 pipeline with
    // the vectorizers and O3 code generation took 17 s of CPU time, O1
    // without vectorizers and fast code generation 2 s.
    cg.optLevel = 1;
    cg.codegenOptLevel = 0;
    cg.vectorize = false;
  }
  if (emit == EmitKind::LLVM)
    return writeOutput([&](StringRef tmp) -> LogicalResult {
      std::error_code ec;
      llvm::raw_fd_ostream os(tmp, ec);
      if (ec)
        return failure();
      llvmModule->print(os, nullptr);
      return success();
    });

  return writeOutput([&](StringRef tmp) -> LogicalResult {
    std::string err;
    if (emit == EmitKind::Obj) {
      TimingScope t = root.nest("llvm-opt-and-codegen");
      if (failed(emitObject(*llvmModule, cg, tmp, err)))
        return (void)fail(err), failure();
      dumpStage(dumpDir, dumpCounter, "optimized.ll",
                [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); });
      return success();
    }
    // Optimisation and code generation of parts of the module on threads
    // (the outlined parallel loop bodies are functions of their own).
    std::vector<std::string> objs;
    auto removeObjs = [&] {
      for (const std::string &o : objs)
        llvm::sys::fs::remove(o);
    };
    {
      // --dump-dir's optimized.ll shows the whole module: one part then.
      unsigned jobs = compileJobs > 0 ? (unsigned)compileJobs : availableCompileJobs();
      if (!dumpDir.empty())
        jobs = 1;
      TimingScope t = root.nest("llvm-opt-and-codegen");
      if (failed(emitObjects(*llvmModule, cg, tmp, jobs, objs, err))) {
        removeObjs();
        return (void)fail(err), failure();
      }
    }
    dumpStage(dumpDir, dumpCounter, "optimized.ll",
              [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); });
    if (blobObject) {
      TimingScope t = root.nest("weights-object");
      objs.push_back((tmp + ".weights.o").str());
      if (failed(writeWeightsObject(objs.back(), llvm::Triple(llvm::sys::getDefaultTargetTriple()), layout, weights,
                                    err))) {
        removeObjs();
        return (void)fail(err), failure();
      }
    }
    TimingScope t = root.nest("link");
    LogicalResult linked = linkSharedObject(objs, tmp, err);
    removeObjs();
    if (failed(linked))
      return (void)fail(err), failure();
    return success();
  });
}

} // namespace kiln
