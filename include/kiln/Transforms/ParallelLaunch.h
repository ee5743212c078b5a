//===- ParallelLaunch.h - attributes between the CPU parallel loop passes -*- C++ -*-===//
#ifndef KILN_TRANSFORMS_PARALLELLAUNCH_H
#define KILN_TRANSFORMS_PARALLELLAUNCH_H

#include "llvm/ADT/StringRef.h"

namespace kiln {
/// On a launch declaration made by kiln-outline-parallel-loops: the symbol of
/// its body function (read by kiln-lower-parallel-launches).
constexpr llvm::StringLiteral kParallelBodyAttr = "kiln.parallel_body";
/// On a body function: the positions of its LLVM-level arguments (after the
/// conversion to the LLVM dialect) that are noalias pointers.
constexpr llvm::StringLiteral kParallelNoAliasAttr = "kiln.noalias_args";

/// On a function holding a serial loop that kiln-outline-parallel-loops
/// moved out of its caller: kiln-lower-parallel-launches gives it internal
/// linkage (and its kParallelNoAliasAttr arguments noalias).
constexpr llvm::StringLiteral kSerialLoopAttr = "kiln.serial_loop";
} // namespace kiln

#endif
