//===- BufferRoots.h - the allocation a buffer view comes from ------------===//
#ifndef KILN_LIB_TRANSFORMS_BUFFERROOTS_H
#define KILN_LIB_TRANSFORMS_BUFFERROOTS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace kiln {

/// The buffer `v` is a view of: follows view-like ops and
/// extract_strided_metadata back to an allocation, argument or global.
inline mlir::Value rootBuffer(mlir::Value v) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    if (auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    if (auto meta = llvm::dyn_cast<mlir::memref::ExtractStridedMetadataOp>(def)) {
      v = meta.getSource();
      continue;
    }
    break;
  }
  return v;
}

} // namespace kiln

#endif // KILN_LIB_TRANSFORMS_BUFFERROOTS_H
