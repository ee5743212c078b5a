//===- ATenReductionOps.cpp - verifiers of the aten reductions ------------===//
//
// Each verifier normalises the reduced dims as ATen does (negative dims count
// from the end, an absent or empty list reduces everything, a 0-d tensor
// accepts dim 0 and -1), infers the result shape (keepdim keeps unit dims) and
// checks the result element type against ATen's promotion for the op.
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;


namespace {
bool isIntOrBool(Type t) { return isa<IntegerType>(t); }

/// Reduced dims of a list reduction: sorted, in [0, rank); a 0-d input has none.
SmallVector<int64_t> listReducedDims(Value self, std::optional<ArrayRef<int64_t>> dim) {
  int64_t rank = rankedType(self).getRank();
  SmallVector<int64_t> dims;
  if (!dim || dim->empty()) {
    for (int64_t i = 0; i < rank; ++i)
      dims.push_back(i);
  } else if (rank > 0) {
    for (int64_t d : *dim)
      dims.push_back(d < 0 ? d + rank : d);
  }
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

/// Range and uniqueness of the dims, then the result shapes.
LogicalResult verifyListReduce(Operation *op, Value self, std::optional<ArrayRef<int64_t>> dim,
                               bool keepdim, ValueRange results) {
  auto inTy = rankedType(self);
  int64_t rank = inTy.getRank();
  if (dim) {
    SmallVector<int64_t> seen;
    for (int64_t d : *dim) {
      auto n = normalizeDim(op, d, rank);
      if (failed(n))
        return failure();
      if (llvm::is_contained(seen, *n))
        return op->emitOpError("dim ") << *n << " appears more than once in the list of dims";
      seen.push_back(*n);
    }
  }
  SmallVector<int64_t> shape = reducedShape(inTy.getShape(), listReducedDims(self, dim), keepdim);
  for (Value r : results)
    if (failed(verifyResult(op, r, shape)))
      return failure();
  return success();
}

/// Sum-like promotion: `dtype` if given, int64 for integer and bool inputs,
/// the input's type otherwise.
Type sumLikeType(Type in, std::optional<Type> dtype) {
  if (dtype)
    return *dtype;
  if (isIntOrBool(in))
    return IntegerType::get(in.getContext(), 64);
  return in;
}

LogicalResult verifyFloatResult(Operation *op, Type t) {
  if (!isa<FloatType>(t))
    return op->emitOpError("needs a floating-point result, got ") << t;
  return success();
}
} // namespace

#define KILN_REDUCED_DIMS(OP)                                                                  \
  SmallVector<int64_t> OP::getReducedDims() { return listReducedDims(getSelf(), getDim()); }
KILN_REDUCED_DIMS(SumDimIntListOp)
KILN_REDUCED_DIMS(MeanDimOp)
KILN_REDUCED_DIMS(ProdDimIntOp)
KILN_REDUCED_DIMS(AmaxOp)
KILN_REDUCED_DIMS(AminOp)
KILN_REDUCED_DIMS(AnyDimsOp)
KILN_REDUCED_DIMS(AllDimsOp)
KILN_REDUCED_DIMS(CountNonzeroOp)
KILN_REDUCED_DIMS(LogsumexpOp)
KILN_REDUCED_DIMS(LinalgVectorNormOp)
KILN_REDUCED_DIMS(VarCorrectionOp)
KILN_REDUCED_DIMS(StdCorrectionOp)
KILN_REDUCED_DIMS(VarMeanCorrectionOp)
KILN_REDUCED_DIMS(StdMeanCorrectionOp)
#undef KILN_REDUCED_DIMS

LogicalResult SumDimIntListOp::verify() {
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  return verifyElementType(*this, "result", getType().getElementType(),
                           sumLikeType(getSelf().getType().getElementType(), getDtype()));
}

LogicalResult MeanDimOp::verify() {
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  Type in = getSelf().getType().getElementType();
  if (!getDtype() && !isa<FloatType>(in))
    return emitOpError("of an integer or bool input needs a floating-point dtype");
  if (failed(verifyFloatResult(*this, getType().getElementType())))
    return failure();
  return verifyElementType(*this, "result", getType().getElementType(),
                           getDtype() ? *getDtype() : in);
}

LogicalResult ProdDimIntOp::verify() {
  if (getDim() && getDim()->size() > 1)
    return emitOpError("reduces at most one dim, got ") << getDim()->size();
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  return verifyElementType(*this, "result", getType().getElementType(),
                           sumLikeType(getSelf().getType().getElementType(), getDtype()));
}

template <typename OpT> static LogicalResult verifySameTypeReduce(OpT op) {
  if (failed(verifyListReduce(op, op.getSelf(), op.getDim(), op.getKeepdim(), op->getResults())))
    return failure();
  for (Value r : op->getResults())
    if (failed(verifyElementType(op, "result", rankedType(r).getElementType(),
                                 op.getSelf().getType().getElementType())))
      return failure();
  return success();
}

LogicalResult AmaxOp::verify() { return verifySameTypeReduce(*this); }
LogicalResult AminOp::verify() { return verifySameTypeReduce(*this); }

template <typename OpT> static LogicalResult verifyLogicalReduce(OpT op) {
  if (failed(verifyListReduce(op, op.getSelf(), op.getDim(), op.getKeepdim(), op.getResult())))
    return failure();
  Type in = op.getSelf().getType().getElementType();
  Builder b(op.getContext());
  Type expected = in.isUnsignedInteger(8) ? in : b.getI1Type();
  return verifyElementType(op, "result", op.getType().getElementType(), expected);
}

LogicalResult AnyDimsOp::verify() { return verifyLogicalReduce(*this); }
LogicalResult AllDimsOp::verify() { return verifyLogicalReduce(*this); }

LogicalResult CountNonzeroOp::verify() {
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  return verifyElementType(*this, "result", getType().getElementType(),
                           IntegerType::get(getContext(), 64));
}

LogicalResult LogsumexpOp::verify() {
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  Type in = getSelf().getType().getElementType(), out = getType().getElementType();
  if (failed(verifyFloatResult(*this, out)))
    return failure();
  if (isa<FloatType>(in))
    return verifyElementType(*this, "result", out, in);
  return success();
}

LogicalResult LinalgVectorNormOp::verify() {
  if (failed(verifyListReduce(*this, getSelf(), getDim(), getKeepdim(), getResult())))
    return failure();
  Type in = getSelf().getType().getElementType();
  if (!isa<FloatType>(in))
    return emitOpError("needs a floating-point input, got ") << in;
  return verifyElementType(*this, "result", getType().getElementType(),
                           getDtype() ? *getDtype() : in);
}

template <typename OpT> static LogicalResult verifyVarLike(OpT op) {
  if (!isa<FloatType>(op.getSelf().getType().getElementType()))
    return op.emitOpError("needs a floating-point input, got ")
           << op.getSelf().getType().getElementType();
  return verifySameTypeReduce(op);
}

LogicalResult VarCorrectionOp::verify() { return verifyVarLike(*this); }
LogicalResult StdCorrectionOp::verify() { return verifyVarLike(*this); }
LogicalResult VarMeanCorrectionOp::verify() { return verifyVarLike(*this); }
LogicalResult StdMeanCorrectionOp::verify() { return verifyVarLike(*this); }

template <typename OpT> static LogicalResult verifyExtremumDim(OpT op) {
  auto inTy = rankedType(op.getSelf());
  auto d = normalizeDim(op, op.getDim(), inTy.getRank());
  if (failed(d))
    return failure();
  SmallVector<int64_t> reduced;
  if (inTy.getRank() > 0)
    reduced.push_back(*d);
  SmallVector<int64_t> shape = reducedShape(inTy.getShape(), reduced, op.getKeepdim());
  if (failed(verifyResult(op, op.getValues(), shape, inTy.getElementType())) ||
      failed(verifyResult(op, op.getIndices(), shape)))
    return failure();
  return success();
}

LogicalResult MaxDimOp::verify() { return verifyExtremumDim(*this); }
LogicalResult MinDimOp::verify() { return verifyExtremumDim(*this); }

template <typename OpT> static LogicalResult verifyArgExtremum(OpT op) {
  auto inTy = rankedType(op.getSelf());
  SmallVector<int64_t> shape;
  if (op.getDim()) {
    auto d = normalizeDim(op, *op.getDim(), inTy.getRank());
    if (failed(d))
      return failure();
    SmallVector<int64_t> reduced;
    if (inTy.getRank() > 0)
      reduced.push_back(*d);
    shape = reducedShape(inTy.getShape(), reduced, op.getKeepdim());
  } else if (op.getKeepdim()) {
    shape.assign(inTy.getRank(), 1);
  }
  return verifyResult(op, op.getResult(), shape);
}

LogicalResult ArgmaxOp::verify() { return verifyArgExtremum(*this); }
LogicalResult ArgminOp::verify() { return verifyArgExtremum(*this); }

template <typename OpT> static LogicalResult verifyScan(OpT op) {
  auto inTy = rankedType(op.getSelf());
  if (failed(normalizeDim(op, op.getDim(), inTy.getRank())))
    return failure();
  if (failed(verifyResult(op, op.getResult(), inTy.getShape())))
    return failure();
  return verifyElementType(op, "result", op.getType().getElementType(),
                           sumLikeType(inTy.getElementType(), op.getDtype()));
}

LogicalResult CumsumOp::verify() { return verifyScan(*this); }
LogicalResult CumprodOp::verify() { return verifyScan(*this); }
