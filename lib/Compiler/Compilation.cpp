//===- Compilation.cpp - the compiler's first stages: import, differentiate --===//
//
// Compilation::create, importProgram and differentiate (with --vmap), and
// compile(), which runs every stage. lower() and emit() are in
// CompilationLower.cpp.
//
//===----------------------------------------------------------------------===//
#include "CompilationState.h"

#include "ATen/IR/AttrNames.h"
#include "kiln/Conversion/Passes.h"
#include "kiln/Import/GraphImporter.h"
#include "kiln/Import/RuntimeOps.h"
#include "kiln/Registration.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

namespace {

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

/// --explain: one line per op of the program, then the totals. Returns the
/// number of unsupported ops.
size_t printDecisions(llvm::raw_ostream &os, const std::vector<NodeDecision> &decisions) {
  size_t compiled = 0, runtime = 0, unsupported = 0, decomposed = 0;
  for (const NodeDecision &d : decisions) {
    const char *kind = d.kind == NodeDecision::Compiled     ? "compiled"
                       : d.kind == NodeDecision::Runtime    ? "runtime"
                       : d.kind == NodeDecision::Decomposed ? "decomposed"
                                                            : "unsupported";
    (d.kind == NodeDecision::Compiled     ? compiled
     : d.kind == NodeDecision::Runtime    ? runtime
     : d.kind == NodeDecision::Decomposed ? decomposed
                                          : unsupported)++;
    os << llvm::formatv("{0,-12} {1,-40} {2,-28} {3}{4}\n", kind, d.op, d.node, d.why,
                        d.where.empty() ? "" : "  (" + d.where + ")");
  }
  os << llvm::formatv("{0} ops: {1} compiled, {2} through the runtime, {3} "
                      "unsupported ({4} composites decomposed into them)\n",
                      decisions.size() - decomposed, compiled, runtime, unsupported, decomposed);
  return unsupported;
}

/// What follows a differentiation pass (the whole gradient, or one half of
/// it): unused functions dropped, then canonicalised and CSE'd, keeping the
/// values marked for recomputation where the differentiation put them.
void addCleanupAfterDifferentiation(PassManager &pm) {
  pm.addPass(createSymbolDCEPass());
  pm.nest<func::FuncOp>().addPass(createCanonicalizerPass());
  pm.nest<func::FuncOp>().addPass(kiln::createKilnKeepRecomputed());
  pm.nest<func::FuncOp>().addPass(createCSEPass());
}

void printModule(ModuleOp module, llvm::raw_ostream &os) {
  module.print(os, OpPrintingFlags().enableDebugInfo(true, true));
}

} // namespace

Compilation::Compilation(std::unique_ptr<State> state) : state(std::move(state)) {}
Compilation::~Compilation() = default;

std::unique_ptr<Compilation> Compilation::create(const CompileOptions &options) {
  auto s = std::make_unique<State>();
  s->options = options;
  s->diag = options.diagnostics ? options.diagnostics : &llvm::errs();
  s->out = options.out ? options.out : &llvm::outs();
  std::string error;
  if (!resolveOptions(options, s->resolved, error))
    return s->fail(error), nullptr;
  if (!options.dumpDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(options.dumpDir))
      return s->fail("cannot create --dump-dir '" + options.dumpDir + "': " + ec.message()), nullptr;
  for (const std::string &p : options.plugins)
    if (!loadRuntimePlugin(p, error))
      return s->fail("cannot load plugin '" + p + "': " + error), nullptr;

  registerAllDialects(s->registry);
  registerBuiltinDialectTranslation(s->registry);
  registerLLVMDialectTranslation(s->registry);
  s->ctx = std::make_unique<MLIRContext>(s->registry);
  s->ctx->loadAllAvailableDialects();
  State *state = s.get();
  s->diagHandler = std::make_unique<ScopedDiagnosticHandler>(s->ctx.get(), [state](Diagnostic &d) {
    if (state->progress)
      state->progress->finish();
    printDiagnostic(*state->diag, d);
    return success();
  });
  s->timingManager.setEnabled(options.timing);
  s->root = s->timingManager.getRootScope();
  // Signs of life for long compiles: on a terminal unless asked otherwise.
  bool terminal = s->diag->is_displayed();
  if (options.progress == "on" || (options.progress == "auto" && terminal))
    s->progress = std::make_unique<Progress>(*s->diag, /*redraw=*/terminal);
  return std::unique_ptr<Compilation>(new Compilation(std::move(s)));
}

MLIRContext &Compilation::context() { return *state->ctx; }
ModuleOp Compilation::module() { return state->module ? *state->module : ModuleOp(); }
const CompileOptions &Compilation::options() const { return state->options; }
bool Compilation::done() const { return state->done; }

int Compilation::importProgram() {
  State &s = *state;
  const CompileOptions &o = s.options;
  s.step("import", o.input);
  {
    TimingScope t = s.root.nest("import");
    if (StringRef(o.input).ends_with(".mlir")) {
      s.module = parseSourceFile<ModuleOp>(o.input, s.sourceMgr, s.ctx.get());
      if (!s.module)
        return s.fail("cannot parse '" + o.input + "'");
      // What the importer records on runtime calls of a .pt2 (their backward).
      recordRuntimeOpFacts(*s.module);
    } else {
      auto prog = importPt2(*s.ctx, o.input, /*explainOnly=*/o.explain);
      if (failed(prog))
        return kExitBadInput;
      if (o.explain) {
        size_t unsupported = printDecisions(*s.out, prog->decisions);
        if (unsupported || (o.output.empty() && o.vmap.empty())) {
          s.done = true;
          return unsupported ? kExitBadInput : kExitOk;
        }
        // Every op is handled: import again for real and compile.
        prog = importPt2(*s.ctx, o.input);
        if (failed(prog))
          return kExitBadInput;
      }
      s.module = std::move(prog->module);
      s.weights = std::move(prog->weights);
    }
    if (failed(verify(*s.module)))
      return s.fail("the imported module does not verify");
  }
  s.dumpStage("import.mlir", [&](llvm::raw_ostream &os) { printModule(*s.module, os); });
  s.entry = findEntry(*s.module);
  if (!s.entry)
    return s.fail("'" + o.input + "' must have exactly one public function with a body");
  // A model never writes into the caller's tensors (state changes are
  // `kiln.update` results): the arguments of a .mlir entry are read-only to
  // bufferization too, as the importer marks those of a .pt2.
  for (unsigned i = 0; i < s.entry.getNumArguments(); ++i)
    if (!s.entry.getArgAttr(i, "bufferization.writable"))
      s.entry.setArgAttr(i, "bufferization.writable", BoolAttr::get(s.ctx.get(), false));
  return kExitOk;
}

int Compilation::differentiate() {
  State &s = *state;
  const CompileOptions &o = s.options;
  ModuleOp module = *s.module;
  // The derivative is built in the aten dialect (autograd.vjp, then
  // autograd-differentiate) after the composites are decomposed, so each
  // reverse rule sees one form of an op.
  if (o.derivative != Derivative::None) {
    s.step("differentiate");
    TimingScope t = s.root.nest("differentiate");
    PassManager pre(s.ctx.get());
    pre.enableTiming(t);
    pre.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    aten::ATenDecomposeCompositesOptions unrolled;
    unrolled.unrollRecurrent = true; // lstm/gru as aten ops that have reverse rules
    pre.nest<func::FuncOp>().addPass(aten::createATenDecomposeComposites(unrolled));
    if (failed(pre.run(module)))
      return s.fail("compilation of '" + o.input + "' failed (see the errors above)");
    std::vector<AddedState> added;
    FailureOr<func::FuncOp> derived = failure();
    switch (o.derivative) {
    case Derivative::Grad: derived = buildGradEntry(module, s.entry); break;
    case Derivative::Jvp: derived = buildJvpEntry(module, s.entry); break;
    case Derivative::Jacobian: derived = buildJacobianEntry(module, s.entry); break;
    case Derivative::Hessian: derived = buildHessianEntry(module, s.entry); break;
    case Derivative::Hvp: derived = buildHvpEntry(module, s.entry); break;
    case Derivative::TrainStep: derived = buildTrainStepEntry(module, s.entry, s.resolved.step, added); break;
    case Derivative::None: llvm_unreachable("no derivative asked for");
    }
    if (failed(derived))
      return kExitBadInput;
    s.entry = *derived;
    // Optimizer state starts at zero.
    for (const AddedState &a : added)
      s.weights[a.name] =
          WeightData(std::vector<char>(a.type.getNumElements() * (a.type.getElementTypeBitWidth() / 8), 0));
    PassManager pm(s.ctx.get());
    pm.enableTiming(t);
    AutogradDifferentiateOptions diffOptions;
    diffOptions.remat = o.remat || !o.split.empty(); // the split cuts where remat chose
    pm.addPass(createAutogradDifferentiate(diffOptions));
    addCleanupAfterDifferentiation(pm);
    if (failed(pm.run(module)))
      return s.fail("cannot differentiate '" + o.input + "' (see the errors above)");
    if (!o.split.empty()) {
      // One half of the value and gradient (autograd-split-grad).
      PassManager split(s.ctx.get());
      split.enableTiming(t);
      AutogradSplitGradOptions splitOptions;
      splitOptions.half = o.split;
      split.addPass(createAutogradSplitGrad(splitOptions));
      addCleanupAfterDifferentiation(split);
      if (failed(split.run(module)))
        return s.fail("cannot split the gradient of '" + o.input + "' (see the errors above)");
      s.entry = findEntry(module);
      if (auto bytes = module->getAttrOfType<IntegerAttr>(kiln::attrs::kResidualBytes)) {
        if (o.timing)
          *s.diag << "  residuals: " << bytes.getInt() << " bytes returned by the forward\n";
        module->removeAttr(kiln::attrs::kResidualBytes);
      }
      if (o.vmap.empty())
        module->removeAttr(kiln::attrs::kSplitModelInputs);
    }
    // The forward values the backward reads (static estimate, docs/autograd.md).
    auto saved = module->getAttrOfType<IntegerAttr>(kiln::attrs::kSavedActivationBytes);
    auto before = module->getAttrOfType<IntegerAttr>(kiln::attrs::kSavedActivationBytesBeforeRemat);
    if (o.timing && saved) {
      *s.diag << "  saved activations: " << saved.getInt() << " bytes";
      if (before)
        *s.diag << " (" << before.getInt() << " without --remat)";
      *s.diag << "\n";
    }
    module->removeAttr(kiln::attrs::kSavedActivationBytes);
    module->removeAttr(kiln::attrs::kSavedActivationBytesBeforeRemat);
    s.dumpStage("grad.mlir", [&](llvm::raw_ostream &os) { printModule(module, os); });
  }

  // --vmap batches the entry after differentiation, so --grad --vmap gives
  // per-sample gradients (autograd.vmap and autograd-batch).
  if (!o.vmap.empty()) {
    s.step("vmap");
    TimingScope t = s.root.nest("vmap");
    std::string error;
    auto spec = parseVmapSpec(o.vmap, error);
    if (succeeded(spec) && !o.split.empty())
      spec = splitHalfVmapSpec(s.entry, *spec, o.split, error);
    module->removeAttr(kiln::attrs::kSplitModelInputs);
    if (failed(spec))
      return s.fail("--vmap=" + o.vmap + ": " + error);
    PassManager pre(s.ctx.get());
    pre.enableTiming(t);
    pre.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    pre.nest<func::FuncOp>().addPass(aten::createATenDecomposeComposites());
    pre.addPass(createAutogradDifferentiate());
    if (failed(pre.run(module)))
      return s.fail("compilation of '" + o.input + "' failed (see the errors above)");
    auto vmapEntry = buildVmapEntry(module, s.entry, *spec);
    if (failed(vmapEntry))
      return kExitBadInput;
    s.entry = *vmapEntry;
    PassManager pm(s.ctx.get());
    pm.enableTiming(t);
    pm.addPass(createAutogradBatch());
    pm.addPass(createSymbolDCEPass());
    pm.nest<func::FuncOp>().addPass(createCanonicalizerPass());
    pm.nest<func::FuncOp>().addPass(createCSEPass());
    if (failed(pm.run(module)))
      return s.fail("cannot batch '" + o.input + "' (see the errors above)");
    if (auto lines = module->getAttrOfType<ArrayAttr>(kiln::attrs::kVmapExplain)) {
      if (o.explain) {
        size_t loops = 0;
        for (Attribute a : lines) {
          StringRef line = cast<StringAttr>(a).getValue();
          loops += line.starts_with("loop");
          *s.out << "vmap " << line << "\n";
        }
        *s.out << "vmap: " << lines.size() << " batched ops, " << lines.size() - loops
               << " by batching rules, " << loops << " in a loop over the batch\n";
      }
      module->removeAttr(kiln::attrs::kVmapExplain);
    }
    s.dumpStage("vmap.mlir", [&](llvm::raw_ostream &os) { printModule(module, os); });
    if (o.output.empty())
      s.done = true;
  }
  return kExitOk;
}

int compile(const CompileOptions &options) {
  auto c = Compilation::create(options);
  if (!c)
    return kExitBadInput;
  for (int (Compilation::*stage)() :
       {&Compilation::importProgram, &Compilation::differentiate, &Compilation::lower, &Compilation::emit}) {
    int rc = (c.get()->*stage)();
    if (rc != kExitOk || c->done())
      return rc;
  }
  return kExitOk;
}

} // namespace kiln
