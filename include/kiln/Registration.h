//===- Registration.h - register kiln's dialects, passes, pipelines -------===//
//
// What an embedding compiler calls to make kiln's dialects, passes and named
// pipelines available in its own MLIRContext and pass-pipeline parser.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REGISTRATION_H
#define KILN_REGISTRATION_H

namespace mlir {
class DialectRegistry;
}

namespace kiln {
/// Adds the aten dialect and the upstream dialects kiln's pipelines create.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers kiln's passes and named pipelines (idempotent).
void registerAllPasses();
} // namespace kiln

#endif
