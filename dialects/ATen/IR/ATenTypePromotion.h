//===- ATenTypePromotion.h - PyTorch's dtype promotion rules ----*- C++ -*-===//
//
// Element types stand for ATen dtypes: i1 is bool, ui8 is uint8, the other
// integers are signless and signed, f16/bf16/f32/f64 the floats. Used by the
// verifiers, the importer (to type Python scalars) and the lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENTYPEPROMOTION_H
#define KILN_DIALECTS_ATEN_IR_ATENTYPEPROMOTION_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/ValueRange.h"

namespace kiln::aten {

/// PyTorch's dtype categories, ordered: bool < integer < float.
enum class DTypeCategory { Bool, Integer, Float };

/// True for the element types kiln uses as dtypes.
bool isDType(mlir::Type t);
/// The category of a dtype.
DTypeCategory categoryOf(mlir::Type t);
/// True for dtypes whose integer values are unsigned (bool and uint8).
bool isUnsignedDType(mlir::Type t);
/// torch.promote_types for two dtypes (null if either is null: the other).
mlir::Type promoteTypes(mlir::Type a, mlir::Type b);
/// torch.result_type: dimensioned tensors beat zero-dim tensors, which beat
/// Python scalars, unless the weaker group is of a higher category. Python
/// scalars are given as i1 (bool), i64 (int) or the default float (float).
mlir::Type resultType(llvm::ArrayRef<mlir::Type> dimensioned, llvm::ArrayRef<mlir::Type> zeroDim,
                      llvm::ArrayRef<mlir::Type> scalars = {});
/// torch.result_type of ranked tensor values (rank 0 counts as zero-dim).
mlir::Type resultTypeOf(mlir::ValueRange tensors);
/// "float32", "int64", "uint8", "bool", ... (the name PyTorch prints).
std::string dtypeName(mlir::Type t);

} // namespace kiln::aten

#endif
