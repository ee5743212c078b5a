//===- GraphImporter.h - torch.export graphs to the aten dialect -*- C++ -*-===//
#ifndef KILN_IMPORT_GRAPHIMPORTER_H
#define KILN_IMPORT_GRAPHIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

/// An imported program: a module with one public `func.func @forward` taking
/// every graph input (parameters, buffers, constants, then user inputs, in
/// signature order) and returning the user outputs, plus the raw bytes of
/// every parameter, buffer and constant keyed by its state-dict name.
///
/// Argument attributes: `kiln.kind` ("param", "buffer", "constant", "input"),
/// `kiln.name`, and `kiln.dims` (per dim: its size or the symbol name). The
/// module carries `kiln.symbols`: symbol -> [min, max] (max -1 = unbounded).
struct ImportedProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::map<std::string, std::vector<char>> weights;
};

/// Schema versions of the exported-program JSON this importer reads.
constexpr int kMinSchemaMajor = 8, kMaxSchemaMajor = 8;

/// Imports a `.pt2`. Errors (malformed archive, unknown op, unsupported
/// signature entries) are emitted as diagnostics on `ctx`, located at the
/// archive or at the Python line of the offending node; all unknown ops are
/// reported, not only the first.
mlir::FailureOr<ImportedProgram> importPt2(mlir::MLIRContext &ctx, llvm::StringRef path);

/// The ATen ops the importer understands ("aten::linear", ...), for --explain.
std::vector<std::string> supportedOps();

} // namespace kiln

#endif
