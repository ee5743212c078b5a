//===- ATenLinalgOps.cpp - verifiers of the aten matrix products ----------===//
//
// Shapes of linear, addmm, mm, bmm, mv, dot, outer, matmul (every rank
// combination, broadcast batch dims), baddbmm, addmv and einsum; operands of
// one element type, as ATen requires.
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {
/// Both operands (and the result) of one element type.
LogicalResult verifySameElements(Operation *op) {
  Type elem = rankedType(op->getOperand(0)).getElementType();
  for (Value v : op->getOperands())
    if (rankedType(v).getElementType() != elem)
      return op->emitOpError("expects operands of one element type, got ")
             << elem << " and " << rankedType(v).getElementType();
  return success();
}

LogicalResult verifyRanks(Operation *op, int64_t lhsRank, int64_t rhsRank) {
  auto a = rankedType(op->getOperand(op->getNumOperands() - 2));
  auto b = rankedType(op->getOperand(op->getNumOperands() - 1));
  if (a.getRank() != lhsRank || b.getRank() != rhsRank)
    return op->emitOpError("expects operands of rank ")
           << lhsRank << " and " << rhsRank << ", got " << a.getRank() << " and "
           << b.getRank();
  return success();
}

/// Sizes that must agree (a dynamic size agrees with anything).
LogicalResult verifyMatch(Operation *op, StringRef what, int64_t a, int64_t b) {
  if (a != kDyn && b != kDyn && a != b)
    return op->emitOpError() << what << " sizes do not match (" << a << " vs " << b << ")";
  return success();
}

/// `self` of an add-product op broadcasts to the product's shape.
LogicalResult verifyAddend(Operation *op, Value self, ArrayRef<int64_t> productShape) {
  auto s = rankedType(self).getShape();
  if (!broadcastsTo(s, productShape))
    return op->emitOpError("self of shape ")
           << shapeStr(s) << " does not broadcast to the product's shape "
           << shapeStr(productShape);
  return success();
}
} // namespace

LogicalResult LinearOp::verify() {
  auto inTy = rankedType(getInput()), wTy = rankedType(getWeight());
  if (inTy.getRank() < 1)
    return emitOpError("expects an input of rank >= 1");
  if (wTy.getRank() != 2 && wTy.getRank() != 1)
    return emitOpError("expects a 1-d or 2-d weight, got rank ") << wTy.getRank();
  int64_t k = inTy.getShape().back(), wk = wTy.getShape().back();
  if (k != kDyn && wk != kDyn && k != wk)
    return emitOpError("input features ") << k << " do not match weight features " << wk;
  SmallVector<int64_t> shape(inTy.getShape().drop_back());
  if (wTy.getRank() == 2)
    shape.push_back(wTy.getDimSize(0));
  if (getBias()) {
    auto bs = rankedType(getBias()).getShape();
    if (!broadcastsTo(bs, shape))
      return emitOpError("bias of shape ")
             << shapeStr(bs) << " does not broadcast to the output's shape "
             << shapeStr(shape);
  }
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult AddmmOp::verify() {
  auto a = rankedType(getMat1()), b = rankedType(getMat2());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("expects 2-d mat1 and mat2");
  if (a.getDimSize(1) != kDyn && b.getDimSize(0) != kDyn && a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("mat1 and mat2 shapes cannot be multiplied (")
           << a.getDimSize(0) << "x" << a.getDimSize(1) << " and " << b.getDimSize(0) << "x"
           << b.getDimSize(1) << ")";
  if (rankedType(getSelf()).getRank() > 2)
    return emitOpError("expects self of rank <= 2 (broadcast to the product)");
  if (failed(verifySameElements(*this)))
    return failure();
  return verifyResult(*this, getResult(), {a.getDimSize(0), b.getDimSize(1)},
                      a.getElementType());
}

LogicalResult MmOp::verify() {
  if (failed(verifyRanks(*this, 2, 2)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  if (failed(verifyMatch(*this, "contracted", a.getDimSize(1), b.getDimSize(0))))
    return failure();
  return verifyResult(*this, getResult(), {a.getDimSize(0), b.getDimSize(1)},
                      a.getElementType());
}

LogicalResult BmmOp::verify() {
  if (failed(verifyRanks(*this, 3, 3)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  if (failed(verifyMatch(*this, "batch", a.getDimSize(0), b.getDimSize(0))) ||
      failed(verifyMatch(*this, "contracted", a.getDimSize(2), b.getDimSize(1))))
    return failure();
  int64_t batch = a.getDimSize(0) == kDyn ? b.getDimSize(0) : a.getDimSize(0);
  return verifyResult(*this, getResult(), {batch, a.getDimSize(1), b.getDimSize(2)},
                      a.getElementType());
}

LogicalResult MvOp::verify() {
  if (failed(verifyRanks(*this, 2, 1)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  if (failed(verifyMatch(*this, "contracted", a.getDimSize(1), b.getDimSize(0))))
    return failure();
  return verifyResult(*this, getResult(), {a.getDimSize(0)}, a.getElementType());
}

LogicalResult DotOp::verify() {
  if (failed(verifyRanks(*this, 1, 1)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  if (failed(verifyMatch(*this, "contracted", a.getDimSize(0), b.getDimSize(0))))
    return failure();
  return verifyResult(*this, getResult(), {}, a.getElementType());
}

LogicalResult OuterOp::verify() {
  if (failed(verifyRanks(*this, 1, 1)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  return verifyResult(*this, getResult(), {a.getDimSize(0), b.getDimSize(0)},
                      a.getElementType());
}

LogicalResult MatmulOp::verify() {
  if (failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getSelf()), b = rankedType(getOther());
  int64_t ra = a.getRank(), rb = b.getRank();
  if (ra < 1 || rb < 1)
    return emitOpError("expects operands of rank >= 1, got ") << ra << " and " << rb;
  int64_t kA = a.getShape().back(), kB = rb == 1 ? b.getDimSize(0) : b.getDimSize(rb - 2);
  if (failed(verifyMatch(*this, "contracted", kA, kB)))
    return failure();
  SmallVector<int64_t> shape;
  if (ra >= 2 || rb >= 2) {
    ArrayRef<int64_t> batchA = ra >= 2 ? a.getShape().drop_back(2) : ArrayRef<int64_t>();
    ArrayRef<int64_t> batchB = rb >= 2 ? b.getShape().drop_back(2) : ArrayRef<int64_t>();
    auto batch = broadcastShape(batchA, batchB);
    if (failed(batch))
      return emitOpError("batch dims ")
             << shapeStr(batchA) << " and " << shapeStr(batchB) << " do not broadcast";
    shape = *batch;
    if (ra >= 2)
      shape.push_back(a.getDimSize(ra - 2));
    if (rb >= 2)
      shape.push_back(b.getShape().back());
  }
  return verifyResult(*this, getResult(), shape, a.getElementType());
}

LogicalResult BaddbmmOp::verify() {
  if (failed(verifyRanks(*this, 3, 3)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getLhs()), b = rankedType(getRhs());
  if (failed(verifyMatch(*this, "batch", a.getDimSize(0), b.getDimSize(0))) ||
      failed(verifyMatch(*this, "contracted", a.getDimSize(2), b.getDimSize(1))))
    return failure();
  int64_t batch = a.getDimSize(0) == kDyn ? b.getDimSize(0) : a.getDimSize(0);
  SmallVector<int64_t> shape{batch, a.getDimSize(1), b.getDimSize(2)};
  if (failed(verifyAddend(*this, getSelf(), shape)))
    return failure();
  return verifyResult(*this, getResult(), shape, a.getElementType());
}

LogicalResult AddmvOp::verify() {
  if (failed(verifyRanks(*this, 2, 1)) || failed(verifySameElements(*this)))
    return failure();
  auto a = rankedType(getLhs()), b = rankedType(getRhs());
  if (failed(verifyMatch(*this, "contracted", a.getDimSize(1), b.getDimSize(0))))
    return failure();
  SmallVector<int64_t> shape{a.getDimSize(0)};
  if (failed(verifyAddend(*this, getSelf(), shape)))
    return failure();
  return verifyResult(*this, getResult(), shape, a.getElementType());
}

LogicalResult EinsumOp::parseEquation(SmallVectorImpl<SmallVector<int64_t>> &operandLoops,
                              SmallVector<int64_t> &resultLoops, int64_t &numLoops,
                              std::string &error) {
  StringRef eq = getEquation();
  std::string compact;
  for (char c : eq)
    if (c != ' ')
      compact.push_back(c);
  StringRef lhs = compact, rhs;
  bool explicitOut = false;
  if (size_t arrow = lhs.find("->"); arrow != StringRef::npos) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    explicitOut = true;
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != getTensors().size()) {
    error = "equation has " + std::to_string(terms.size()) + " operand terms for " +
            std::to_string(getTensors().size()) + " tensors";
    return failure();
  }
  // Ellipsis dims come first, right-aligned across operands.
  int64_t numEllipsis = 0;
  SmallVector<std::pair<SmallVector<char>, int64_t>> parsed; // labels, ellipsis position
  for (auto [term, t] : llvm::zip(terms, getTensors())) {
    SmallVector<char> labels;
    int64_t ellipsisAt = -1;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.substr(i).starts_with("...")) {
        if (ellipsisAt >= 0) {
          error = "an operand term has more than one '...'";
          return failure();
        }
        ellipsisAt = labels.size();
        i += 2;
      } else if (isalpha(term[i])) {
        labels.push_back(term[i]);
      } else {
        error = std::string("invalid character '") + term[i] + "' in the equation";
        return failure();
      }
    }
    int64_t rank = rankedType(t).getRank();
    int64_t covered = rank - (int64_t)labels.size();
    if (covered < 0 || (ellipsisAt < 0 && covered != 0)) {
      error = "operand term '" + term.str() + "' does not match an operand of rank " +
              std::to_string(rank);
      return failure();
    }
    numEllipsis = std::max(numEllipsis, covered);
    parsed.push_back({labels, ellipsisAt});
  }
  // Letters in order of first appearance after the ellipsis loops.
  SmallVector<char> letters;
  llvm::StringMap<int64_t> count;
  for (auto &p : parsed)
    for (char c : p.first) {
      if (!llvm::is_contained(letters, c))
        letters.push_back(c);
      ++count[StringRef(&c, 1)];
    }
  auto loopOf = [&](char c) {
    return numEllipsis + (int64_t)(llvm::find(letters, c) - letters.begin());
  };
  numLoops = numEllipsis + letters.size();
  operandLoops.clear();
  for (auto [p, t] : llvm::zip(parsed, getTensors())) {
    int64_t covered = rankedType(t).getRank() - (int64_t)p.first.size();
    SmallVector<int64_t> loops;
    for (int64_t i = 0; i < (int64_t)p.first.size(); ++i) {
      if (i == p.second)
        for (int64_t e = numEllipsis - covered; e < numEllipsis; ++e)
          loops.push_back(e);
      loops.push_back(loopOf(p.first[i]));
    }
    if (p.second == (int64_t)p.first.size())
      for (int64_t e = numEllipsis - covered; e < numEllipsis; ++e)
        loops.push_back(e);
    operandLoops.push_back(loops);
  }
  resultLoops.clear();
  if (explicitOut) {
    bool sawEllipsis = false;
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs.substr(i).starts_with("...")) {
        for (int64_t e = 0; e < numEllipsis; ++e)
          resultLoops.push_back(e);
        sawEllipsis = true;
        i += 2;
        continue;
      }
      char c = rhs[i];
      if (!isalpha(c) || !llvm::is_contained(letters, c) ||
          llvm::is_contained(resultLoops, loopOf(c))) {
        error = std::string("output subscript '") + c +
                "' is not an input subscript or appears more than once";
        return failure();
      }
      resultLoops.push_back(loopOf(c));
    }
    if (!sawEllipsis && numEllipsis > 0) {
      error = "the output must keep the '...' dims of the operands";
      return failure();
    }
  } else {
    for (int64_t e = 0; e < numEllipsis; ++e)
      resultLoops.push_back(e);
    SmallVector<char> once;
    for (char c : letters)
      if (count[StringRef(&c, 1)] == 1)
        once.push_back(c);
    llvm::sort(once);
    for (char c : once)
      resultLoops.push_back(loopOf(c));
  }
  return success();
}

LogicalResult EinsumOp::verify() {
  if (getTensors().empty())
    return emitOpError("expects at least one tensor");
  Type elem = rankedType(getTensors()[0]).getElementType();
  for (Value t : getTensors())
    if (rankedType(t).getElementType() != elem)
      return emitOpError("expects operands of one element type");
  SmallVector<SmallVector<int64_t>> operandLoops;
  SmallVector<int64_t> resultLoops;
  int64_t numLoops;
  std::string error;
  if (failed(parseEquation(operandLoops, resultLoops, numLoops, error)))
    return emitOpError("equation '") << getEquation() << "': " << error;
  // Loop sizes: operand dims of one loop agree, size 1 broadcasting.
  SmallVector<int64_t> loopSize(numLoops, 1);
  for (auto [loops, t] : llvm::zip(operandLoops, getTensors()))
    for (auto [l, d] : llvm::zip(loops, rankedType(t).getShape())) {
      if (d == 1)
        continue;
      if (loopSize[l] == 1 || loopSize[l] == kDyn)
        loopSize[l] = d;
      else if (d != kDyn && d != loopSize[l])
        return emitOpError("equation '")
               << getEquation() << "': sizes " << loopSize[l] << " and " << d
               << " of one subscript do not match";
    }
  SmallVector<int64_t> shape;
  for (int64_t l : resultLoops)
    shape.push_back(loopSize[l]);
  return verifyResult(*this, getResult(), shape, elem);
}
