//===- Recompute.h - marking the ops that recompute forward values -*- C++ -*-===//
//
// Rematerialisation (autograd-differentiate with remat) rebuilds some forward
// values in the backward. Those copies must stay apart from the forward ops
// they duplicate, or CSE merges them back and the forward value stays alive
// until the backward. The copies carry a location marker (kept by every
// rewrite that builds ops at the location of the op it replaces, so it
// survives the lowering to linalg) and, before each CSE,
// kiln-keep-recomputed turns the marker into the discardable attribute
// `autograd.recomputed`, which CSE compares. docs/Rationale/rematerialisation.md.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_AUTOGRAD_IR_RECOMPUTE_H
#define KILN_DIALECTS_AUTOGRAD_IR_RECOMPUTE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

namespace kiln::autograd {

/// The name of the marker: the metadata of the fused location and the
/// discardable unit attribute of a recomputing op.
inline constexpr llvm::StringLiteral kRecomputedName = "autograd.recomputed";

/// `loc` marked as the location of an op that recomputes a forward value.
inline mlir::Location recomputedLoc(mlir::Location loc) {
  mlir::MLIRContext *ctx = loc.getContext();
  return mlir::FusedLoc::get(ctx, {loc}, mlir::StringAttr::get(ctx, kRecomputedName));
}

/// Whether `loc` (or a location fused into it) carries the marker.
inline bool isRecomputedLoc(mlir::Location loc) {
  return loc
      ->walk([](mlir::Location l) {
        auto fused = llvm::dyn_cast<mlir::FusedLoc>(l);
        auto meta = fused ? llvm::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata())
                          : mlir::StringAttr();
        return meta && meta.getValue() == kRecomputedName ? mlir::WalkResult::interrupt()
                                                          : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

/// Marks `op` as recomputing a forward value (location and attribute).
inline void markRecomputed(mlir::Operation *op) {
  if (!isRecomputedLoc(op->getLoc()))
    op->setLoc(recomputedLoc(op->getLoc()));
  op->setAttr(kRecomputedName, mlir::UnitAttr::get(op->getContext()));
}

} // namespace kiln::autograd

#endif
