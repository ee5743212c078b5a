// kiln fuzz target — kiln-compile's .pt2 importer (archive, JSON graph, weights) and the verifier after it.
#include "FuzzUtil.h"
#include "Pt2MutatorHook.h"

#include "kiln/Import/GraphImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <memory>

namespace {
/// Inputs imported into one MLIR context before it is made afresh. Making a
/// context and loading the importer's dialects (their ops and interfaces) for
/// every input was a fixed cost of each execution (without it, 1.3-1.5 times
/// the executions a second); kiln-compile, too, imports into a context it
/// made before. What an import leaves in the
/// context is uniqued storage (types, attributes, locations, names), which
/// changes no later import's outcome but grows with every input's new
/// values, so a context serves a bounded number of inputs.
constexpr unsigned kInputsPerContext = 1000;

mlir::MLIRContext &contextForNextInput() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || uses == kInputsPerContext) {
    ctx.reset();
    ctx = std::make_unique<mlir::MLIRContext>(mlir::MLIRContext::Threading::DISABLED);
    // Errors are the expected outcome for most inputs: swallow them.
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) { return mlir::success(); });
    uses = 0;
  }
  ++uses;
  return *ctx;
}
} // namespace

KILN_FUZZ_INITIALIZE_WITH_LIMITS()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln::fuzz::MemFile file(data, size);
  mlir::MLIRContext &ctx = contextForNextInput();
  // One import per input (half the cost of running both modes on each): the
  // size's parity picks --explain's decision-only import or the full import
  // and verifier, and the mutator changes sizes, so both modes see every seed.
  bool explain = size % 2 == 1;
  auto prog = kiln::importPt2(ctx, file.path(), explain);
  if (mlir::succeeded(prog) && !explain && prog->module) {
    (void)mlir::verify(*prog->module);
    // The weights are read when kiln-compile writes them: read each here as
    // appendWeights does, so their members are fuzzed too.
    std::string error;
    for (const auto &[name, weight] : prog->weights)
      (void)weight.withBytes([](llvm::ArrayRef<char>) {}, error);
  }
  return 0;
}
