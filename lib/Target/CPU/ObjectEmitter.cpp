//===- ObjectEmitter.cpp - model ABI, LLVM optimisation, object, link -----===//
#include "kiln/Target/CPU.h"

#include "kiln/abi/model_format.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <chrono>
#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace kiln {

mlir::LogicalResult addModelABI(Module &module, StringRef entryName, StringRef manifest,
                                const WeightLayout &layout,
                                const WeightMap &weights,
                                bool embedWeights, std::string &error) {
  LLVMContext &ctx = module.getContext();
  Function *ciface = module.getFunction(("_mlir_ciface_" + entryName).str());
  if (!ciface) {
    error = "the lowered module has no _mlir_ciface_" + entryName.str();
    return mlir::failure();
  }
  PointerType *ptr = PointerType::getUnqual(ctx);
  for (Argument &a : ciface->args())
    if (!a.getType()->isPointerTy()) {
      error = "entry argument " + std::to_string(a.getArgNo()) + " is not a memref";
      return mlir::failure();
    }
  // void kiln_model_entry(void **args): args[i] is ciface's i-th pointer.
  auto *entry = Function::Create(FunctionType::get(Type::getVoidTy(ctx), {ptr}, false),
                                 GlobalValue::ExternalLinkage, KILN_SYM_ENTRY, module);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", entry));
  SmallVector<Value *> args;
  for (unsigned i = 0; i < ciface->arg_size(); ++i)
    args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, entry->getArg(0), i)));
  b.CreateCall(ciface, args);
  b.CreateRetVoid();

  auto *manifestInit = ConstantDataArray::getString(ctx, manifest, /*AddNull=*/true);
  new GlobalVariable(module, manifestInit->getType(), /*isConstant=*/true,
                     GlobalValue::ExternalLinkage, manifestInit, KILN_SYM_MANIFEST);

  if (embedWeights) {
    std::vector<uint8_t> blob(layout.totalBytes, 0);
    for (const WeightLayout::Entry &e : layout.entries) {
      std::string readError;
      auto it = weights.find(e.name);
      auto copy = [&](ArrayRef<char> data) { std::copy(data.begin(), data.end(), blob.begin() + e.offset); };
      if (it == weights.end() || !it->second.withBytes(copy, readError)) {
        error = "weight '" + e.name + "': " + (readError.empty() ? "no data" : readError);
        return mlir::failure();
      }
    }
    if (blob.empty())
      blob.push_back(0); // a zero-length array would not get a symbol
    auto *init = ConstantDataArray::get(ctx, ArrayRef<uint8_t>(blob));
    auto *gv = new GlobalVariable(module, init->getType(), /*isConstant=*/true,
                                  GlobalValue::ExternalLinkage, init, KILN_SYM_WEIGHTS);
    gv->setAlignment(Align(KILN_WEIGHT_ALIGNMENT));
  }
  return mlir::success();
}

/// Defines __truncsfbf2 (float -> bfloat16, round to nearest even, NaN kept
/// quiet) in the model, hidden. kiln expands its own bfloat16 conversions to
/// integer code before LLVM, but x86 instruction selection without native
/// bfloat16 still legalises some bfloat16 values (vector shuffles and
/// selects of loaded elements) through float and a call to this compiler-rt
/// routine, which the libgcc of many systems lacks: the model then failed to
/// load with an undefined symbol. The body is integer code, so selecting it
/// calls nothing.
static void defineBF16Truncation(Module &module) {
  if (Function *existing = module.getFunction("__truncsfbf2"); existing && !existing->isDeclaration())
    return;
  LLVMContext &ctx = module.getContext();
  Type *f32 = Type::getFloatTy(ctx), *bf16 = Type::getBFloatTy(ctx);
  Type *i32 = Type::getInt32Ty(ctx), *i16 = Type::getInt16Ty(ctx);
  Function *f = module.getFunction("__truncsfbf2");
  if (!f)
    f = Function::Create(FunctionType::get(bf16, {f32}, false), GlobalValue::ExternalLinkage,
                         "__truncsfbf2", module);
  f->setVisibility(GlobalValue::HiddenVisibility);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", f));
  Value *x = f->getArg(0);
  Value *bits = b.CreateBitCast(x, i32);
  Value *high = b.CreateLShr(bits, 16);
  Value *lsb = b.CreateAnd(high, 1);
  Value *rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(bits, b.getInt32(0x7fff)), lsb), 16);
  Value *quietNaN = b.CreateOr(high, b.getInt32(0x40));
  Value *r = b.CreateSelect(b.CreateFCmpUNO(x, x), quietNaN, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(r, i16), bf16));
  appendToCompilerUsed(module, {f});
}

/// Loads and stores of i1 (a boolean tensor's elements, one byte each in
/// memory) become byte loads and stores. LLVM's loop vectorizer does not
/// vectorize accesses to a type whose size in bits is not its size in
/// memory, so a loop that reads a boolean mask (an attention mask's select,
/// a where) loaded its mask one byte at a time and built the vector lane by
/// lane; as bytes it loads a vector of them. kiln stores booleans as 0 or 1
/// and PyTorch's bool tensors hold 0 or 1, so a nonzero byte is true.
static void booleanAccessesAsBytes(Module &module) {
  Type *i8 = Type::getInt8Ty(module.getContext());
  // Metadata that stays valid on the byte access: aliasing and the loop
  // annotations the vectorizer reads (not !range, which names i1 values).
  static const unsigned kept[] = {LLVMContext::MD_alias_scope, LLVMContext::MD_noalias,
                                  LLVMContext::MD_access_group, LLVMContext::MD_nontemporal,
                                  LLVMContext::MD_invariant_load, LLVMContext::MD_mem_parallel_loop_access};
  SmallVector<Instruction *> accesses;
  for (Function &f : module)
    for (Instruction &inst : instructions(f)) {
      if (auto *load = dyn_cast<LoadInst>(&inst); load && load->isSimple() && load->getType()->isIntegerTy(1))
        accesses.push_back(load);
      if (auto *store = dyn_cast<StoreInst>(&inst);
          store && store->isSimple() && store->getValueOperand()->getType()->isIntegerTy(1))
        accesses.push_back(store);
    }
  for (Instruction *inst : accesses) {
    IRBuilder<> b(inst);
    Instruction *bytes;
    if (auto *load = dyn_cast<LoadInst>(inst)) {
      bytes = b.CreateAlignedLoad(i8, load->getPointerOperand(), load->getAlign());
      load->replaceAllUsesWith(b.CreateICmpNE(bytes, b.getInt8(0)));
    } else {
      auto *store = cast<StoreInst>(inst);
      bytes = b.CreateAlignedStore(b.CreateZExt(store->getValueOperand(), i8), store->getPointerOperand(),
                                   store->getAlign());
    }
    for (unsigned kind : kept)
      if (MDNode *md = inst->getMetadata(kind))
        bytes->setMetadata(kind, md);
    inst->eraseFromParent();
  }
}

/// The vector width LLVM's vectorizers aim for: KILN_CPU_VECTOR_BITS (256
/// or 512) when set, else 512 on a CPU with AVX-512F (LLVM's tuning for
/// those CPUs prefers 256-bit vectors), else the target's own choice (0).
static mlir::LogicalResult preferredVectorBits(const TargetMachine &tm, unsigned &bits, std::string &error) {
  bits = 0;
  if (const char *env = std::getenv("KILN_CPU_VECTOR_BITS")) {
    StringRef text(env);
    if (text != "256" && text != "512") {
      error = "the environment variable KILN_CPU_VECTOR_BITS expects 256 or 512, got '" + text.str() + "'";
      return mlir::failure();
    }
    text.getAsInteger(10, bits);
    return mlir::success();
  }
  const MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  if (tm.getTargetTriple().isX86() && sti && sti->checkFeatures("+avx512f"))
    bits = 512;
  return mlir::success();
}

mlir::LogicalResult emitObject(Module &module, const CPUCodegenOptions &options,
                               StringRef objPath, std::string &error) {
  static std::once_flag targetsReady;
  std::call_once(targetsReady, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  Triple triple(sys::getDefaultTargetTriple());
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return mlir::failure();
  std::string cpu = options.cpu, features;
  if (cpu == "native") {
    cpu = sys::getHostCPUName().str();
    SubtargetFeatures f;
    for (auto &kv : sys::getHostCPUFeatures())
      f.AddFeature(kv.first(), kv.second);
    features = f.getString();
  }
  TargetOptions topts;
  // Constructors (a GPU model's kernel loading) go to .init_array, which every
  // linker runs; LLVM's default is the legacy .ctors, which lld does not.
  topts.UseInitArray = true;
  std::unique_ptr<TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, topts, Reloc::PIC_, std::nullopt,
      options.codegenOptLevel >= 3   ? CodeGenOptLevel::Aggressive
      : options.codegenOptLevel == 0 ? CodeGenOptLevel::None
                                     : CodeGenOptLevel::Default));
  if (!tm) {
    error = "cannot create a target machine for " + triple.str() + " / " + cpu;
    return mlir::failure();
  }
  module.setDataLayout(tm->createDataLayout());
  module.setTargetTriple(triple);
  booleanAccessesAsBytes(module);
  unsigned vectorBits = 0;
  if (failed(preferredVectorBits(*tm, vectorBits, error)))
    return mlir::failure();
  if (vectorBits)
    for (Function &f : module)
      if (!f.isDeclaration() && !f.hasFnAttribute("prefer-vector-width"))
        f.addFnAttr("prefer-vector-width", std::to_string(vectorBits));

  if (options.optLevel > 0) {
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    PipelineTuningOptions pto;
    pto.LoopVectorization = pto.SLPVectorization = options.vectorize;
    pto.LoopUnrolling = false;
    // --timing: the time of the passes that ran on each function, outermost
    // function-level passes only (a loop pass runs inside one).
    PassInstrumentationCallbacks pic;
    using Clock = std::chrono::steady_clock;
    unsigned fnDepth = 0;
    Clock::time_point fnStart;
    if (options.onFunctionOptimized) {
      pic.registerBeforeNonSkippedPassCallback([&](StringRef, Any ir) {
        if (any_cast<const Function *>(&ir) && fnDepth++ == 0)
          fnStart = Clock::now();
      });
      auto after = [&](Any ir) {
        const Function *const *f = any_cast<const Function *>(&ir);
        if (f && fnDepth && --fnDepth == 0)
          options.onFunctionOptimized((*f)->getName(),
                                      std::chrono::duration<double>(Clock::now() - fnStart).count());
      };
      pic.registerAfterPassCallback([after](StringRef, Any ir, const PreservedAnalyses &) { after(ir); });
      pic.registerAfterPassInvalidatedCallback([&](StringRef, const PreservedAnalyses &) {
        // The IR is gone; only its depth is known.
        if (fnDepth)
          --fnDepth;
      });
    }
    PassBuilder pb(tm.get(), pto, std::nullopt, options.onFunctionOptimized ? &pic : nullptr);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    OptimizationLevel level = options.optLevel >= 3   ? OptimizationLevel::O3
                              : options.optLevel == 2 ? OptimizationLevel::O2
                                                      : OptimizationLevel::O1;
    ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
    mpm.run(module, mam);
  }

  if (options.defineSupportRoutines)
    defineBF16Truncation(module);

  std::error_code ec;
  raw_fd_ostream os(objPath, ec, sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + objPath.str() + "': " + ec.message();
    return mlir::failure();
  }
  legacy::PassManager cg;
  if (tm->addPassesToEmitFile(cg, os, nullptr, CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return mlir::failure();
  }
  cg.run(module);
  os.flush();
  return mlir::success();
}

mlir::LogicalResult linkSharedObject(ArrayRef<std::string> objPaths, StringRef soPath, std::string &error) {
  std::string driver;
  if (const char *env = std::getenv("KILN_CC"))
    driver = env;
#ifdef KILN_DEFAULT_CC
  if (driver.empty() && sys::fs::can_execute(KILN_DEFAULT_CC))
    driver = KILN_DEFAULT_CC;
#endif
  if (driver.empty())
    for (const char *name : {"clang-22", "clang", "cc", "gcc"})
      if (auto p = sys::findProgramByName(name)) {
        driver = *p;
        break;
      }
  if (driver.empty()) {
    error = "no C compiler driver found to link the model (set KILN_CC)";
    return mlir::failure();
  }
  SmallString<128> errFile;
  sys::fs::createTemporaryFile("kiln-link", "txt", errFile);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(errFile), StringRef(errFile)};
  SmallVector<StringRef> args{driver, "-shared", "-o", soPath};
  // A clang driver links with lld where its own directory has one: the
  // embedded weights make the objects hundreds of MB, which GNU ld copied
  // with several times lld's CPU time (BERT-base: 2.0 s against 1.1 s).
  SmallString<256> real;
  if (sys::path::filename(driver).contains("clang") && !sys::fs::real_path(driver, real) &&
      sys::findProgramByName("ld.lld", {sys::path::parent_path(real)}))
    args.push_back("-fuse-ld=lld");
  for (const std::string &obj : objPaths)
    args.push_back(obj);
  args.append({"-lm", "-Wl,-z,noexecstack"});
  std::string execErr;
  int rc = sys::ExecuteAndWait(driver, args, std::nullopt, redirects, 0, 0, &execErr);
  if (rc != 0) {
    auto buf = MemoryBuffer::getFile(errFile);
    error = "linking the model with '" + driver + "' failed" +
            (execErr.empty() ? "" : ": " + execErr) +
            (buf ? "\n" + (*buf)->getBuffer().str() : "");
  }
  sys::fs::remove(errFile);
  return mlir::success(rc == 0);
}

} // namespace kiln
