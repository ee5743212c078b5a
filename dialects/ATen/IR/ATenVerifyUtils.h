//===- ATenVerifyUtils.h - helpers shared by the aten verifiers -*- C++ -*-===//
//
// Internal to dialects/ATen/IR: shape inference and checks that more than one
// op family's verifiers use. Each family's verifiers live in ATen<Family>Ops.cpp
// (or ATenOps.cpp for the first families).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENVERIFYUTILS_H
#define KILN_DIALECTS_ATEN_IR_ATENVERIFYUTILS_H

#include "ATen/IR/ATenDialect.h"

#include <optional>
#include <string>

namespace kiln::aten::detail {

using namespace mlir;

inline constexpr int64_t kDyn = ShapedType::kDynamic;

/// The ranked tensor type of `v`.
RankedTensorType rankedType(Value v);
/// "[2, ?, 4]".
std::string shapeStr(ArrayRef<int64_t> shape);
/// Checks `result` against the inferred `expected` shape (a dynamic dim on either
/// side matches anything) and, if given, element type.
LogicalResult verifyResult(Operation *op, Value result, ArrayRef<int64_t> expected,
                           Type expectedElem = {});
/// Checks a 2-entry attribute whose entries are all >= minV.
LogicalResult verifyPairAttr(Operation *op, StringRef name, ArrayRef<int64_t> v, int64_t minV);
/// Checks an `n`-entry attribute whose entries are all >= minV.
LogicalResult verifyWindowAttr(Operation *op, StringRef name, ArrayRef<int64_t> v, size_t n,
                               int64_t minV);
/// Checks that a pooling input has `spatial` spatial dims after C (and
/// optionally N): "expects a 4-d (NCHW) or 3-d (CHW) input, got rank R".
LogicalResult verifyPoolInput(Operation *op, StringRef what, Value input, int spatial);
/// Broadcast shape of `a` and `b` (numpy rules), or failure.
FailureOr<SmallVector<int64_t>> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b);
/// Two operands that broadcast, one int-or-float result of the broadcast shape.
LogicalResult verifyBinary(Operation *op);
/// `d` counted from the front of `rank` dims, or nullopt if out of range
/// ([-rank, rank); a rank-0 tensor accepts 0 and -1 as ATen does).
std::optional<int64_t> normalizeDim(int64_t d, int64_t rank);
/// The error "WHAT D is out of range for a tensor of rank R".
LogicalResult dimError(Operation *op, StringRef what, int64_t d, int64_t rank);
/// `dim` normalised to [0, rank) (a 0-d tensor accepts -1 and 0), or an error
/// "dim D is out of range for a tensor of rank R".
FailureOr<int64_t> normalizeDim(Operation *op, int64_t dim, int64_t rank);
/// Checks an element type against the expected one, naming `what`.
LogicalResult verifyElementType(Operation *op, StringRef what, Type actual, Type expected);
/// True if `shape` broadcasts to `target` without growing it (aligned right).
bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> target);
/// Shape of `shape` with the sorted `reduced` dims removed, or set to 1 with `keepdim`.
SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> reduced,
                                  bool keepdim);

/// How an elementwise op's result dtype follows from its operands (see
/// ATenElementwiseOps.td).
enum class Promotion { Same, IntToFloat, Bool, KeepSelf };
/// Which computation dtypes (the promoted operand dtype) an elementwise op accepts.
enum class Accepts { Any, NoBool, Float, Integral, IntOnly };
/// `operands` broadcast to the result shape, have accepted dtypes, and give
/// the result dtype by `promotion`.
LogicalResult verifyElementwise(Operation *op, ValueRange operands, Promotion promotion,
                                Accepts accepts);

} // namespace kiln::aten::detail

#endif
