//===- AutogradOps.cpp - verifiers of the autograd transforms -------------===//
//
// The transforms are checked against their callee's signature when symbols
// are verified: primal types, one cotangent per result (vjp) or one tangent
// per differentiated argument (jvp), floating-point `wrt` arguments, and the
// result list (callee results, then gradients or tangents).
//
//===----------------------------------------------------------------------===//
#include "Autograd/IR/AutogradDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::autograd;

#define GET_OP_CLASSES
#include "Autograd/IR/AutogradOps.cpp.inc"

namespace {

/// The callee and the checks every transform shares: primals and `wrt`.
FailureOr<func::FuncOp> verifyCall(Operation *op, SymbolTableCollection &symbols,
                                   FlatSymbolRefAttr callee, TypeRange primals,
                                   ArrayRef<int64_t> wrt) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(op, callee);
  if (!fn || fn.isExternal())
    return op->emitOpError("'") << callee.getValue() << "' does not name a function with a body";
  FunctionType ft = fn.getFunctionType();
  if (ft.getNumInputs() != primals.size())
    return op->emitOpError("expects ") << ft.getNumInputs() << " primals for '"
                                       << callee.getValue() << "', got " << primals.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(primals, ft.getInputs())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError("primal #") << i << " has type " << std::get<0>(pair) << ", '"
                                         << callee.getValue() << "' takes "
                                         << std::get<1>(pair);
  int64_t prev = -1;
  for (int64_t w : wrt) {
    if (w <= prev || w >= (int64_t)primals.size())
      return op->emitOpError("expects wrt indices in increasing order within [0, ")
             << primals.size() << ")";
    if (!isFloatTensor(primals[w]))
      return op->emitOpError("wrt argument #") << w << " of type " << primals[w]
                                               << " is not a floating-point tensor";
    prev = w;
  }
  return fn;
}

LogicalResult verifyResults(Operation *op, ArrayRef<Type> expected) {
  if (op->getNumResults() != expected.size())
    return op->emitOpError("expects ") << expected.size() << " results, got "
                                       << op->getNumResults();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(op->getResultTypes(), expected)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError("result #") << i << " has type " << std::get<0>(pair)
                                         << ", expected " << std::get<1>(pair);
  return success();
}
} // namespace

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = verifyCall(*this, symbols, getCalleeAttr(), getPrimals().getTypes(), getWrt());
  if (failed(fn))
    return failure();
  TypeRange results = fn->getFunctionType().getResults();
  if (getCotangents().size() != results.size())
    return emitOpError("expects one cotangent per result of '")
           << getCallee() << "' (" << results.size() << "), got " << getCotangents().size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getCotangents().getTypes(), results)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("cotangent #") << i << " has type " << std::get<0>(pair)
                                        << ", result #" << i << " of '" << getCallee()
                                        << "' is " << std::get<1>(pair);
  SmallVector<Type> expected(results);
  for (int64_t w : getWrt())
    expected.push_back(getPrimals()[w].getType());
  return verifyResults(*this, expected);
}

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = verifyCall(*this, symbols, getCalleeAttr(), getPrimals().getTypes(), getWrt());
  if (failed(fn))
    return failure();
  TypeRange results = fn->getFunctionType().getResults();
  if (results.size() != 1 || !isFloatTensor(results[0]) ||
      cast<RankedTensorType>(results[0]).getRank() != 0)
    return emitOpError("expects '") << getCallee()
                                    << "' to return one 0-d floating-point tensor";
  SmallVector<Type> expected(results);
  for (int64_t w : getWrt())
    expected.push_back(getPrimals()[w].getType());
  return verifyResults(*this, expected);
}

LogicalResult JvpOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = verifyCall(*this, symbols, getCalleeAttr(), getPrimals().getTypes(), getWrt());
  if (failed(fn))
    return failure();
  if (getTangents().size() != getWrt().size())
    return emitOpError("expects one tangent per wrt argument (")
           << getWrt().size() << "), got " << getTangents().size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getTangents().getTypes(), getWrt())))
    if (std::get<0>(pair) != getPrimals()[std::get<1>(pair)].getType())
      return emitOpError("tangent #") << i << " has type " << std::get<0>(pair)
                                      << ", argument #" << std::get<1>(pair) << " is "
                                      << getPrimals()[std::get<1>(pair)].getType();
  TypeRange results = fn->getFunctionType().getResults();
  for (auto [i, t] : llvm::enumerate(results))
    if (!isFloatTensor(t))
      return emitOpError("result #") << i << " of '" << getCallee() << "' is " << t
                                     << ", not a floating-point tensor";
  SmallVector<Type> expected(results);
  expected.append(results.begin(), results.end());
  return verifyResults(*this, expected);
}

/// A batched type: `t` with a dim of size `batch` inserted at `dim`.
static Type insertBatchDim(Type t, int64_t dim, int64_t batch) {
  auto tt = cast<RankedTensorType>(t);
  SmallVector<int64_t> shape(tt.getShape());
  shape.insert(shape.begin() + dim, batch);
  return RankedTensorType::get(shape, tt.getElementType());
}

LogicalResult VmapOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!fn || fn.isExternal())
    return emitOpError("'") << getCallee() << "' does not name a function with a body";
  FunctionType ft = fn.getFunctionType();
  if (ft.getNumInputs() != getArgs().size() || getInDims().size() != getArgs().size())
    return emitOpError("expects ") << ft.getNumInputs() << " arguments and in_dims for '"
                                   << getCallee() << "', got " << getArgs().size() << " and "
                                   << getInDims().size();
  if (getOutDims().size() != ft.getNumResults())
    return emitOpError("expects one out_dims entry per result of '")
           << getCallee() << "' (" << ft.getNumResults() << "), got " << getOutDims().size();
  int64_t batch = ShapedType::kDynamic - 1; // none seen yet
  for (auto [i, dim] : llvm::enumerate(getInDims())) {
    Type t = getArgs()[i].getType();
    if (dim < 0) {
      if (dim != -1 || t != ft.getInput(i))
        return emitOpError("argument #") << i << " has type " << t << ", '" << getCallee()
                                         << "' takes " << ft.getInput(i);
      continue;
    }
    auto tt = dyn_cast<RankedTensorType>(ft.getInput(i));
    if (!tt || dim > tt.getRank())
      return emitOpError("in_dims entry ") << dim << " of argument #" << i
                                           << " is not a dim of a batched " << ft.getInput(i);
    int64_t b = cast<RankedTensorType>(t).getShape()[dim];
    if (t != insertBatchDim(tt, dim, b))
      return emitOpError("argument #") << i << " has type " << t << ", expected "
                                       << ft.getInput(i) << " with a batch dim at " << dim;
    if (batch != ShapedType::kDynamic - 1 && b != batch && !ShapedType::isDynamic(b) &&
        !ShapedType::isDynamic(batch))
      return emitOpError("batched arguments disagree on the batch size: ") << batch << " and " << b;
    if (batch == ShapedType::kDynamic - 1 || ShapedType::isDynamic(batch))
      batch = b;
  }
  if (batch == ShapedType::kDynamic - 1)
    return emitOpError("expects at least one batched argument");
  SmallVector<Type> expected;
  for (auto [i, t] : llvm::enumerate(ft.getResults())) {
    auto tt = dyn_cast<RankedTensorType>(t);
    int64_t dim = getOutDims()[i];
    if (!tt || dim < 0 || dim > tt.getRank())
      return emitOpError("out_dims entry ") << dim << " of result #" << i
                                            << " is not a dim of a batched " << t;
    Type r = getResult(i).getType();
    int64_t b = isa<RankedTensorType>(r) && cast<RankedTensorType>(r).getRank() > dim
                    ? cast<RankedTensorType>(r).getShape()[dim]
                    : batch;
    if (!ShapedType::isDynamic(b) && !ShapedType::isDynamic(batch) && b != batch)
      return emitOpError("result #") << i << " has batch size " << b << ", the arguments " << batch;
    expected.push_back(insertBatchDim(tt, dim, b));
  }
  return verifyResults(*this, expected);
}
