//===- CompilationLower.cpp - the compiler's last stages: lower, emit ------===//
//
// lower(): batch norm folded into convolutions, the manifest, the target's
// named pipeline. emit(): the output of --emit (MLIR, a picture, LLVM IR, an
// object file or the linked model).
//
//===----------------------------------------------------------------------===//
#include "CompilationState.h"

#include "ATen/IR/AttrNames.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace kiln {

namespace {

/// Writes `print`'s text into the temporary the output is renamed from.
LogicalResult writeText(StringRef path, function_ref<void(llvm::raw_ostream &)> print) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return failure();
  print(os);
  return success();
}

/// The `layout` lines of the weights the entry takes permuted
/// (kiln-channels-last): the runtime permutes them once, at load.
void addLayoutLines(Operation *fn, std::string &manifest) {
  auto layouts = fn->getAttrOfType<DictionaryAttr>(kiln::attrs::kWeightLayouts);
  if (!layouts)
    return;
  std::string lines;
  for (NamedAttribute l : layouts) {
    lines += "layout " + l.getName().str();
    for (int64_t p : cast<DenseI64ArrayAttr>(l.getValue()).asArrayRef())
      lines += " " + std::to_string(p);
    lines += "\n";
  }
  size_t end = manifest.rfind("end\n");
  manifest.insert(end == std::string::npos ? manifest.size() : end, lines);
}

} // namespace

int Compilation::lower() {
  State &s = *state;
  const CompileOptions &o = s.options;
  const ResolvedOptions &r = s.resolved;
  if (o.emit == EmitKind::MLIR)
    return kExitOk; // the aten-dialect program is the output
  ModuleOp module = *s.module;

  // Inference entries: batch norm after a convolution becomes its filter
  // and bias, derived from the weights once, at load (kiln-fold-batch-norm).
  // Before the manifest, which lists the derived arguments.
  // Linear layers that read one input become one, their weights stacked at
  // load (kiln-concat-linear).
  if ((r.foldBn || r.concatLinear) && !s.differentiating()) {
    s.step("fold-weights");
    TimingScope t = s.root.nest("fold-weights");
    PassManager pm(s.ctx.get());
    pm.enableTiming(t);
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(createCanonicalizerPass());
    fpm.addPass(aten::createATenDecomposeComposites());
    // 16-bit convolutions fold where cuDNN's fused call takes their bias
    // (and ReLU): elsewhere their bias would be a float32 broadcast the
    // convolution accumulates onto, slower than the unfolded norm.
    kiln::KilnFoldBatchNormOptions fold;
    fold.sixteenBit = r.cuda && o.cudaConv == "cudnn";
    if (r.foldBn)
      fpm.addPass(kiln::createKilnFoldBatchNorm(fold));
    if (r.concatLinear)
      fpm.addPass(kiln::createKilnConcatLinear());
    if (failed(pm.run(module)))
      return s.fail("compilation of '" + o.input + "' failed (see the errors above)");
  }

  // The manifest (from the imported signature) and the weight layout.
  {
    TimingScope t = s.root.nest("manifest");
    // A shared object gets its weights appended after its code, written
    // once; an object file or LLVM IR carries them as an LLVM constant.
    WeightPlacement placement = !r.embed                  ? WeightPlacement::External
                                : o.emit == EmitKind::SO ? WeightPlacement::Appended
                                                         : WeightPlacement::Embedded;
    auto manifest = buildManifest(module, s.entry, s.weights, placement, s.layout,
                                  r.cuda   ? "cuda " + r.gpuArch
                                  : r.rocm ? "hip " + r.gpuArch
                                           : std::string(),
                                  o.plugins);
    if (failed(manifest))
      return kExitBadInput;
    s.manifest = std::move(*manifest);
  }
  s.entryName = s.entry.getName().str();
  s.entry->setAttr("llvm.emit_c_interface", UnitAttr::get(s.ctx.get()));

  // The named pipeline of the target.
  s.step("pipeline", o.target);
  TimingScope t = s.root.nest("pipeline");
  PassManager pm(s.ctx.get());
  pm.enableTiming(t);
  if (!o.dumpDir.empty()) {
    s.ctx->disableMultithreading();
    pm.enableIRPrinting(dumpDirPrinter(o.dumpDir, s.dumpCounter));
  }
  if (!o.injectFault.empty())
    pm.nest<func::FuncOp>().addPass(aten::createATenInjectFault(r.faultOptions));
  // The picture of --emit=dot and --dump-dir: the program as imported, and
  // the kernels the pipeline makes of it.
  if (o.emit == EmitKind::Dot || !o.dumpDir.empty()) {
    s.picture = readProgram(s.entry);
    pm.addInstrumentation(recordKernels(s.picture, s.entryName));
  }
#ifdef KILN_ENABLE_CUDA
  if (r.cuda)
    buildCUDAPipeline(pm, r.cudaOpts);
  else
#endif
#ifdef KILN_ENABLE_ROCM
      if (r.rocm)
    buildROCmPipeline(pm, r.rocmOpts);
  else
#endif
    // oneDNN's direct convolutions are NHWC kernels (docs/Rationale/cpu-library-calls.md).
    buildCPUPipeline(pm, o.convLayout == "nhwc" || (o.convLayout == "auto" && o.cpuLibrary == "on"),
                     o.cpuLibrary == "on");
  if (s.progress)
    pm.addInstrumentation(s.progress->passes(pm, "pipeline"));
  if (o.timing)
    pm.addInstrumentation(s.functionTimes.instrumentation());
  if (failed(pm.run(module)))
    return s.fail("compilation of '" + o.input + "' failed (see the errors above)");
  if (!o.dumpDir.empty())
    writeDumpPicture(o.dumpDir, s.picture, o.dotMaxNodes, *s.diag);
  if (Operation *fn = SymbolTable::lookupSymbolIn(module, s.entryName)) {
    // The entry's peak buffer bytes, recorded by kiln-early-dealloc (CPU and
    // GPU pipelines; on a GPU, device and host buffers together).
    auto peak = fn->getAttrOfType<IntegerAttr>(kiln::attrs::kPeakBufferBytes);
    if (o.timing && peak)
      *s.diag << "  peak buffer bytes: " << peak.getInt()
              << " (the most the entry's own buffers hold at once)\n";
    addLayoutLines(fn, s.manifest);
  }
  module->walk([](Operation *op) {
    op->removeAttr(kiln::attrs::kPeakBufferBytes);
    op->removeAttr(kiln::attrs::kWeightLayouts);
  });
  return kExitOk;
}

int Compilation::emit() {
  State &s = *state;
  const CompileOptions &o = s.options;
  const ResolvedOptions &r = s.resolved;
  s.done = true;
  if (o.emit == EmitKind::MLIR)
    return s.writeOutput(
        [&](StringRef tmp) { return writeText(tmp, [&](llvm::raw_ostream &os) { s.module->print(os); }); });
  if (o.emit == EmitKind::Dot)
    return s.writeOutput([&](StringRef tmp) {
      return writeText(tmp, [&](llvm::raw_ostream &os) { writeDot(s.picture, os, o.dotMaxNodes); });
    });

  // LLVM IR, the model ABI, optimisation, object code, link.
  const bool appendBlob = r.embed && o.emit == EmitKind::SO;
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> llvmModule;
  s.step("translate-to-llvm-ir");
  {
    TimingScope t = s.root.nest("translate-to-llvm-ir");
    llvmModule = translateModuleToLLVMIR(*s.module, llvmCtx, "kiln_model");
    if (!llvmModule)
      return s.fail("translation to LLVM IR failed");
    std::string err;
    // A shared object gets the weight blob appended after linking
    // (appendWeights), not as an LLVM constant to optimise and print.
    if (failed(addModelABI(*llvmModule, s.entryName, s.manifest, s.layout, s.weights, r.embed && !appendBlob,
                           err)))
      return s.fail(err);
  }
  CPUCodegenOptions cg;
  cg.cpu = o.cpu;
  if (r.cuda || r.rocm) {
    // The host code of a GPU model only sizes buffers and queues launches;
    // for ShuffleNet's (300 launches in one function) LLVM's O3 pipeline with
    // the vectorizers and O3 code generation took 17 s of CPU time, O1
    // without vectorizers and fast code generation 2 s.
    cg.optLevel = 1;
    cg.codegenOptLevel = 0;
    cg.vectorize = false;
  }
  if (o.timing) {
    cg.onFunctionOptimized = [&s](StringRef fn, double seconds) { s.functionTimes.add(1, fn, seconds); };
    cg.onPartCompiled = [&s](unsigned part, size_t functions, size_t instructions, double cpu) {
      s.functionTimes.addPart(part, functions, instructions, cpu);
    };
  }
  if (s.progress)
    cg.onPartDone = [&s](unsigned done, unsigned total) {
      s.progress->report("llvm", llvm::formatv("part {0} of {1} compiled", done, total).str(), true);
    };
  if (o.emit == EmitKind::LLVM)
    return s.writeOutput(
        [&](StringRef tmp) { return writeText(tmp, [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); }); });

  auto printOptimized = [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); };
  s.step("llvm", "optimising and compiling");
  int rc = s.writeOutput([&](StringRef tmp) -> LogicalResult {
    std::string err;
    if (o.emit == EmitKind::Obj) {
      TimingScope t = s.root.nest("llvm-opt-and-codegen");
      if (failed(emitObject(*llvmModule, cg, tmp, err)))
        return (void)s.fail(err), failure();
      s.dumpStage("optimized.ll", printOptimized);
      return success();
    }
    // Optimisation and code generation of parts of the module on threads
    // (the outlined parallel loop bodies are functions of their own).
    std::vector<std::string> objs;
    auto removeObjs = [&] {
      for (const std::string &obj : objs)
        llvm::sys::fs::remove(obj);
    };
    {
      // --dump-dir's optimized.ll shows the whole module: one part then.
      unsigned jobs = o.compileJobs > 0 ? (unsigned)o.compileJobs : availableCompileJobs();
      if (!o.dumpDir.empty())
        jobs = 1;
      TimingScope t = s.root.nest("llvm-opt-and-codegen");
      if (failed(emitObjects(*llvmModule, cg, tmp, jobs, objs, err))) {
        removeObjs();
        return (void)s.fail(err), failure();
      }
    }
    s.dumpStage("optimized.ll", printOptimized);
    s.step("link");
    {
      TimingScope t = s.root.nest("link");
      LogicalResult linked = linkSharedObject(objs, tmp, err);
      removeObjs();
      if (failed(linked))
        return (void)s.fail(err), failure();
    }
    if (appendBlob) {
      TimingScope t = s.root.nest("append-weights");
      if (failed(appendWeights(tmp, s.layout, s.weights, err)))
        return (void)s.fail(err), failure();
    }
    return success();
  });
  if (s.progress)
    s.progress->finish();
  if (o.timing)
    s.functionTimes.print(*s.diag);
  return rc;
}

} // namespace kiln
