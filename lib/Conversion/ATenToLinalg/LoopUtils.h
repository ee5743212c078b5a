//===- LoopUtils.h - linalg.generic builders for reductions and products -*- C++ -*-===//
//
// Internal to lib/Conversion/ATenToLinalg: the reductions, normalisations,
// matrix products and attention build their linalg.generic ops through
// these. An operand is described by the loop each of its dims walks;
// static size-1 dims of a longer loop broadcast.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_ATENTOLINALG_LOOPUTILS_H
#define KILN_LIB_CONVERSION_ATENTOLINALG_LOOPUTILS_H

#include "Utils.h"

namespace kiln::detail {
using namespace mlir;

/// The type ATen's CPU kernels compute `elem` in: float32 for float16 and
/// bfloat16, `elem` otherwise.
Type computeType(Type elem);
/// Converts a scalar to `to` as ATen's casts do (bool and unsigned integers
/// convert as unsigned; to bool means "is non-zero").
Value convertScalarTo(OpBuilder &b, Location loc, Value v, Type to);
/// The smallest / largest value of `type` (-inf / +inf for floats).
Value lowestValue(OpBuilder &b, Location loc, Type type);
Value highestValue(OpBuilder &b, Location loc, Type type);

/// An operand and the loop walked by each of its dims.
struct LoopOperand {
  Value value;
  SmallVector<int64_t> loops;
};
/// Size of each loop, read from the operands (a dim that is not a static 1
/// wins; a loop no operand walks has size 1).
SmallVector<OpFoldResult> loopSizes(OpBuilder &b, Location loc, ArrayRef<LoopOperand> operands,
                                    int64_t numLoops);
/// A linalg.generic over `numLoops` loops reading `inputs` and accumulating into
/// `init`, whose dims walk `outLoops`; the other loops are reductions. `body`
/// gets the input elements then the accumulator and returns the new value.
Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<LoopOperand> inputs, Value init,
                   ArrayRef<int64_t> outLoops, int64_t numLoops,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// An elementwise generic over the loops of `inputs` (each loop in some
/// input's dims), writing a fresh tensor of `elem` over `outLoops`.
Value buildMap(OpBuilder &b, Location loc, ArrayRef<LoopOperand> inputs,
               ArrayRef<int64_t> outLoops, int64_t numLoops, Type elem,
               function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// Identity loops [0, rank).
SmallVector<int64_t> identityLoops(int64_t rank);
/// The loops of `rank` dims without the sorted `reduced` ones.
SmallVector<int64_t> keptLoops(int64_t rank, ArrayRef<int64_t> reduced);

/// Reduces `input` over the sorted `reduced` dims into a tensor of `acc`
/// filled with `initValue` first; `combine(acc, x)` gets the input element.
Value reduceDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced, Type acc,
                 Value initValue,
                 function_ref<Value(OpBuilder &, Location, Value acc, Value x)> combine);
/// Number of elements in the `reduced` dims of `input`, as a scalar of `type`.
Value reducedCount(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced,
                   Type type);
/// Puts the `reduced` dims of `input` (rank `rank`) back into `v` as unit dims.
Value restoreReducedDims(OpBuilder &b, Location loc, Value v, Value input,
                         ArrayRef<int64_t> reduced);
/// Converts every element of `v` to `to` (nothing if it already is).
Value convertTensor(OpBuilder &b, Location loc, Value v, Type to);
/// `v` as a value of the tensor type `type`: its elements converted to
/// type's element type (convertTensor), then its shape cast (castTo).
Value convertAndCastTo(OpBuilder &b, Location loc, Value v, Type type);
} // namespace kiln::detail

#endif
