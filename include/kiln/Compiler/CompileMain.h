//===- CompileMain.h - the kiln-compile driver ------------------*- C++ -*-===//
#ifndef KILN_COMPILER_COMPILEMAIN_H
#define KILN_COMPILER_COMPILEMAIN_H

namespace kiln {
/// Exit codes shared by kiln's tools.
enum ExitCode { kExitOk = 0, kExitMismatch = 1, kExitBadInput = 2 };

/// The whole `kiln-compile` command line: import, pipeline, object, link.
/// Returns an ExitCode; never leaves a partial output file behind.
int kilnCompileMain(int argc, char **argv);
} // namespace kiln

#endif
