//===- GraphImporter.h - torch.export graphs to the aten dialect -*- C++ -*-===//
#ifndef KILN_IMPORT_GRAPHIMPORTER_H
#define KILN_IMPORT_GRAPHIMPORTER_H

#include "kiln/Import/WeightData.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

/// An imported program: a module with one public `func.func @forward` taking
/// every graph input (parameters, buffers, constants, then user inputs, in
/// signature order) and returning the user outputs, plus where the bytes of
/// every parameter, buffer and constant are (read when written out), keyed by
/// its state-dict name.
///
/// Argument attributes: `kiln.kind` ("param", "buffer", "constant", "input"),
/// `kiln.name`, and `kiln.dims` (per dim: its size or the symbol name). The
/// module carries `kiln.symbols`: symbol -> [min, max] (max -1 = unbounded).
/// How one graph node is handled, for `kiln-compile --explain`.
struct NodeDecision {
  std::string node, op, where;
  /// Decomposed: expanded by the composite table; the nodes it expands into
  /// follow it, each with its own decision.
  enum Kind { Compiled, Runtime, Unsupported, Decomposed } kind = Compiled;
  std::string why;
};

struct ImportedProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  WeightMap weights;
  std::vector<NodeDecision> decisions;
};

/// Schema versions of the exported-program JSON this importer reads.
constexpr int kMinSchemaMajor = 8, kMaxSchemaMajor = 8;

/// Imports a `.pt2`. Errors (malformed archive, unknown op, unsupported
/// signature entries) are emitted as diagnostics on `ctx`, located at the
/// archive or at the Python line of the offending node; all unknown ops are
/// reported, not only the first.
/// With `explainOnly`, unknown ops are recorded in `decisions` instead of
/// failing the import (the module is then incomplete and must not be compiled).
mlir::FailureOr<ImportedProgram> importPt2(mlir::MLIRContext &ctx, llvm::StringRef path,
                                           bool explainOnly = false);

} // namespace kiln

#endif
