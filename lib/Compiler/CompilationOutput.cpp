//===- CompilationOutput.cpp - what a compilation writes besides its model --===//
//
// Diagnostics in the user's terms, --dump-dir's files, and the output file
// written to a temporary and renamed into place only on success.
//
//===----------------------------------------------------------------------===//
#include "CompilationState.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

namespace {

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

} // namespace

std::unique_ptr<PassManager::IRPrinterConfig> dumpDirPrinter(std::string dir, unsigned &counter) {
  return std::make_unique<DumpDirPrinter>(std::move(dir), counter);
}

void writeDumpPicture(StringRef dir, const ProgramPicture &picture, size_t maxNodes, llvm::raw_ostream &diag) {
  SmallString<256> dotPath(dir);
  llvm::sys::path::append(dotPath, "graph.dot");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dotPath, ec);
    if (ec) {
      diag << "kiln-compile: warning: cannot write '" << dotPath << "': " << ec.message() << "\n";
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
    diag << "kiln-compile: warning: Graphviz could not render '" << dotPath << "'\n";
}

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

int Compilation::State::fail(const llvm::Twine &msg) {
  if (progress)
    progress->finish();
  *diag << "kiln-compile: error: " << msg << "\n";
  return kExitBadInput;
}

void Compilation::State::dumpStage(StringRef stage, function_ref<void(llvm::raw_ostream &)> print) {
  if (options.dumpDir.empty())
    return;
  std::error_code ec;
  llvm::raw_fd_ostream os(options.dumpDir + "/" + llvm::formatv("{0:d2}-{1}", dumpCounter++, stage).str(), ec);
  if (!ec)
    print(os);
}

int Compilation::State::writeOutput(function_ref<LogicalResult(StringRef tmpPath)> write) {
  const std::string &output = options.output;
  SmallString<256> tmp;
  if (output == "-") {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("kiln-compile", "out", tmp))
      return fail("cannot create a temporary file: " + ec.message());
    if (failed(write(tmp))) {
      llvm::sys::fs::remove(tmp);
      return kExitBadInput;
    }
    auto buf = llvm::MemoryBuffer::getFile(tmp, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    llvm::sys::fs::remove(tmp);
    if (!buf)
      return fail("cannot read back '" + tmp + "': " + buf.getError().message());
    *out << (*buf)->getBuffer();
    out->flush();
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
}

bool Compilation::State::differentiating() const {
  return options.derivative != Derivative::None || !options.vmap.empty();
}

} // namespace kiln
