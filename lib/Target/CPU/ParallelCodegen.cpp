//===- ParallelCodegen.cpp - a model's LLVM optimisation and code generation over threads ===//
#include "kiln/Target/CPU.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <atomic>
#include <sched.h>
#include <time.h>
#include <thread>

using namespace llvm;

namespace kiln {

unsigned availableCompileJobs() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

namespace {
/// Instructions of a function.
size_t functionSize(const Function &f) {
  size_t n = 0;
  for (const BasicBlock &bb : f)
    n += bb.size();
  return n;
}

/// What optimising and compiling a function costs, in instructions of
/// straight-line code: an instruction inside a loop counts twelve times. The
/// loop nests (the outlined parallel chunks and serial loops) are what LLVM's
/// vectorisers, unrolling and scheduling work on; straight-line code (the
/// entry's runtime calls and launches, `optnone`, and the C-interface
/// wrappers that unpack memref descriptors) is cheap per instruction.
/// ViT-B/16's entry, 14,264 instructions, took 0.64 s of CPU where its 331
/// loop functions, 4,138 instructions in all, took 2.09 s (kiln-compile
/// --timing's parts); counted by instructions alone, the entry filled one
/// part and the other thread did three quarters of the work, and
/// EfficientNet-B0's 3,447-instruction C-interface wrapper did the same
/// (docs/cli.md, --compile-jobs).
size_t functionCost(Function &f) {
  DominatorTree dt(f);
  LoopInfo loops(dt);
  size_t cost = 0;
  for (const BasicBlock &bb : f)
    cost += bb.size() * (loops.getLoopFor(&bb) ? 12 : 1);
  return cost;
}

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
} // namespace

mlir::LogicalResult emitObjects(Module &module, const CPUCodegenOptions &options, StringRef objBase,
                                unsigned jobs, std::vector<std::string> &objPaths, std::string &error) {
  objPaths.clear();
  // Identical loop nests (every layer of a transformer, the repeated blocks
  // of a CNN) were outlined into identical private functions: keep one of
  // each before optimising and compiling them all.
  MergeFunctionsPass::runOnModule(module);
  SmallVector<Function *> defined;
  for (Function &f : module)
    if (!f.isDeclaration())
      defined.push_back(&f);
  jobs = std::max(1u, std::min<unsigned>(jobs, defined.size()));
  if (jobs == 1) {
    objPaths.push_back((objBase + ".0.o").str());
    double cpuStart = threadCpuSeconds();
    size_t instructions = 0;
    for (Function *f : defined)
      instructions += functionSize(*f);
    mlir::LogicalResult r = emitObject(module, options, objPaths[0], error);
    if (options.onPartCompiled)
      options.onPartCompiled(0, defined.size(), instructions, threadCpuSeconds() - cpuStart);
    if (options.onPartDone)
      options.onPartDone(1, 1);
    return r;
  }

  // Parts refer to each other's functions and data by name: local symbols
  // become hidden globals (invisible outside the model's .so).
  unsigned anonymous = 0;
  for (GlobalValue &gv : module.global_values()) {
    if (!gv.hasLocalLinkage())
      continue;
    if (!gv.hasName())
      gv.setName("__kiln_local_" + Twine(anonymous++));
    gv.setLinkage(GlobalValue::ExternalLinkage);
    gv.setVisibility(GlobalValue::HiddenVisibility);
  }

  // Largest functions first, each to the part with the least so far.
  DenseMap<const Function *, size_t> cost;
  for (Function *f : defined)
    cost[f] = functionCost(*f);
  llvm::stable_sort(defined, [&](Function *a, Function *b) { return cost[a] > cost[b]; });
  DenseMap<const GlobalValue *, unsigned> partOf;
  std::vector<size_t> load(jobs, 0), functions(jobs, 0), instructions(jobs, 0);
  for (Function *f : defined) {
    unsigned best = std::min_element(load.begin(), load.end()) - load.begin();
    partOf[f] = best;
    load[best] += cost[f];
    functions[best] += 1;
    instructions[best] += functionSize(*f);
  }

  // Parts 1.. go through bitcode into contexts of their own; part 0, with
  // every global variable (the weights), stays in `module`.
  std::vector<SmallVector<char, 0>> bitcode(jobs);
  for (unsigned p = 1; p < jobs; ++p) {
    ValueToValueMapTy map;
    std::unique_ptr<Module> part = CloneModule(module, map, [&](const GlobalValue *gv) {
      auto it = partOf.find(gv);
      return it != partOf.end() && it->second == p;
    });
    // Lists such as llvm.used stay with part 0 only.
    for (GlobalVariable &gv : make_early_inc_range(part->globals()))
      if (gv.getName().starts_with("llvm.") && gv.isDeclaration())
        gv.eraseFromParent();
    raw_svector_ostream os(bitcode[p]);
    WriteBitcodeToFile(*part, os);
  }
  for (Function *f : defined)
    if (partOf[f] != 0)
      f->deleteBody();

  for (unsigned p = 0; p < jobs; ++p)
    objPaths.push_back((objBase + "." + Twine(p) + ".o").str());
  std::vector<std::string> errors(jobs);
  std::atomic<unsigned> partsDone{0};
  auto partDone = [&](unsigned p, double cpuStart) {
    if (options.onPartCompiled)
      options.onPartCompiled(p, functions[p], instructions[p], threadCpuSeconds() - cpuStart);
    unsigned done = ++partsDone;
    if (options.onPartDone)
      options.onPartDone(done, jobs);
  };
  std::vector<std::thread> threads;
  for (unsigned p = 1; p < jobs; ++p)
    threads.emplace_back([&, p] {
      double cpuStart = threadCpuSeconds();
      LLVMContext ctx;
      Expected<std::unique_ptr<Module>> part = parseBitcodeFile(
          MemoryBufferRef(StringRef(bitcode[p].data(), bitcode[p].size()), "part"), ctx);
      if (!part) {
        errors[p] = "reading back part " + std::to_string(p) + " of the module: " + toString(part.takeError());
        return;
      }
      CPUCodegenOptions partOptions = options;
      partOptions.defineSupportRoutines = false;
      if (failed(emitObject(**part, partOptions, objPaths[p], errors[p])) && errors[p].empty())
        errors[p] = "compiling part " + std::to_string(p) + " of the module failed";
      partDone(p, cpuStart);
    });
  double cpuStart = threadCpuSeconds();
  mlir::LogicalResult first = emitObject(module, options, objPaths[0], errors[0]);
  partDone(0, cpuStart);
  for (std::thread &t : threads)
    t.join();
  for (unsigned p = 0; p < jobs; ++p)
    if (!errors[p].empty()) {
      error = errors[p];
      return mlir::failure();
    }
  return first;
}

} // namespace kiln
