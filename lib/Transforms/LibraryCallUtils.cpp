//===- LibraryCallUtils.cpp - buffer, view and fill helpers shared by the library-call passes ===//
#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace kiln::libcalls;

namespace kiln::libcalls {

/// The type suffix of the runtime's GEMM (`<prefix>gemm_<suffix>`) for
/// operands of type `ab` and a result of type `c`:
/// all three f32, bf16 or f16, or bf16/f16 operands with an f32 result (the
/// product kept in float32, as kiln lowers reduced-precision matmuls before
/// their final rounding); null for any other pair.
const char *gemmName(Type ab, Type c) {
  if (ab != c)
    return !c.isF32() ? nullptr : ab.isBF16() ? "bf16_f32" : ab.isF16() ? "f16_f32" : nullptr;
  if (c.isF32())
    return "f32";
  if (c.isBF16())
    return "bf16";
  if (c.isF16())
    return "f16";
  return nullptr;
}

/// The rank-3 fully dynamic strided memref of `elem` the runtime's GEMM takes.
MemRefType gemmArgType(Type elem) {
  MLIRContext *ctx = elem.getContext();
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d}, elem, StridedLayoutAttr::get(ctx, d, {d, d, d}));
}

/// `buffer` as a rank-3 (batch, rows, cols) strided memref.
Value asGemmArg(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    buffer = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{1, type.getDimSize(0), type.getDimSize(1)}, buffer,
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
  return memref::CastOp::create(b, loc, gemmArgType(type.getElementType()), buffer);
}

/// `buffer` with each group of `groups` dims merged (identity layout, or
/// strides that allow it: see usableAsIs).
Value collapse(OpBuilder &b, Location loc, Value buffer, ArrayRef<ReassociationIndices> groups) {
  if (groups.size() == static_cast<size_t>(cast<MemRefType>(buffer.getType()).getRank()))
    return buffer;
  return memref::CollapseShapeOp::create(b, loc, buffer, groups);
}

/// Whether the GEMM can read `type` (grouped by `groups`) in place: its
/// groups collapse into single dims and its rows are contiguous (the runtime
/// takes any row and batch stride). Otherwise it reads a contiguous copy.
bool usableAsIs(MemRefType type, ArrayRef<ReassociationIndices> groups) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() || strides.back() != 1)
    return false;
  return groups.size() == static_cast<size_t>(type.getRank()) ||
         memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups);
}

/// A fresh contiguous buffer of `elem` holding strided view `view`'s
/// elements (extended to `elem` if narrower), filled by one parallel
/// `linalg.generic` (a generated copy kernel).
Value contiguousCopy(OpBuilder &b, Location loc, Value view, Type elem) {
  auto type = cast<MemRefType>(view.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, view, i));
  auto contiguous = MemRefType::get(type.getShape(), elem);
  Value copy = memref::AllocOp::create(b, loc, contiguous, dynamicSizes, b.getI64IntegerAttr(64));
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  linalg::GenericOp::create(b, loc, ValueRange{view}, ValueRange{copy}, ArrayRef<AffineMap>{id, id},
                            SmallVector<utils::IteratorType>(type.getRank(), utils::IteratorType::parallel),
                            [&](OpBuilder &nb, Location l, ValueRange args) {
                              Value v = args[0];
                              if (v.getType() != elem)
                                v = arith::ExtFOp::create(nb, l, elem, v);
                              linalg::YieldOp::create(nb, l, v);
                            });
  return copy;
}

/// The buffer `v` is a view of (through view-like ops), or `v` itself.
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The scalar `op` writes to every element of its one output (a fill, or an
/// all-parallel op with an identity output map yielding a value defined
/// outside it, a constant or a scalar input), or null.
Value filledValue(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 0)
    return {};
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    return fill.value();
  if (op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return {};
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return {};
  Value v = yield.getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != op.getBlock() || arg.getArgNumber() >= op.getNumDpsInputs())
      return {};
    v = op.getDpsInputOperand(arg.getArgNumber())->get();  // a scalar input
    if (isa<ShapedType>(v.getType()))
      return {};
  } else if (v.getParentRegion() == &op->getRegion(0) && !matchPattern(v, m_Constant())) {
    return {};  // computed in the body
  }
  return v;
}

/// Whether `op` writes zero to every element of its one output.
bool isZeroFill(linalg::LinalgOp op) {
  Value v = filledValue(op);
  return v && matchPattern(v, m_AnyZeroFloat());
}

/// Whether linalg op `op` copies its one input into its one output (a
/// linalg.copy, or an all-parallel generic with identity maps yielding the input).
bool isCopy(linalg::LinalgOp op) {
  if (isa<linalg::CopyOp>(op.getOperation()))
    return true;
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 || op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  return yield && yield.getNumOperands() == 1 && yield.getOperand(0) == op.getBlock()->getArgument(0);
}

/// The op that zero-fills `buffer` before `op` in its block with nothing in
/// between touching `buffer` or a view of it, or null: the GEMM may then
/// overwrite `buffer` instead of adding to it, and the fill goes away. A
/// copy of another buffer that is zero-filled the same way (bufferization
/// shares one zeroed tensor among several accumulators) counts as a fill.
/// zeroFillBefore; with `allowReads`, ops that only read `buffer` may come
/// between (the fill then stays: only the copy of a shared zeroed buffer is
/// erased, never a fill that something else still reads).
static Operation *zeroFillBeforeImpl(Operation *op, Value buffer, bool allowReads) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto lin = dyn_cast<linalg::LinalgOp>(prev);
    if (lin && lin.getNumDpsInits() == 1 && lin.getDpsInitOperand(0)->get() == buffer) {
      if (isZeroFill(lin))
        return prev;
      if (isCopy(lin) && lin.getDpsInputOperand(0)->get() != buffer &&
          zeroFillBeforeImpl(prev, lin.getDpsInputOperand(0)->get(), /*allowReads=*/true))
        return prev;
      return nullptr;
    }
    // Several accumulators copy one shared zeroed buffer in turn: those
    // copies (inputs of linalg ops) leave it zero.
    bool blocks = false;
    prev->walk([&](Operation *o) {
      auto reader = dyn_cast<linalg::LinalgOp>(o);
      for (OpOperand &use : o->getOpOperands())
        if (rootBuffer(use.get()) == buffer)
          blocks |= !allowReads || !reader || !reader.hasPureBufferSemantics() || reader.isDpsInit(&use);
    });
    if (blocks)
      return nullptr;
  }
  return nullptr;
}

Operation *zeroFillBefore(Operation *op, Value buffer) { return zeroFillBeforeImpl(op, buffer, false); }

bool zeroedBefore(Operation *op, Value buffer) { return zeroFillBeforeImpl(op, buffer, true); }

/// Whether `op` or an op nested in it uses `root` or a view of it.
bool touches(Operation *op, Value root) {
  bool found = false;
  op->walk([&](Operation *o) {
    for (Value v : o->getOperands())
      found |= rootBuffer(v) == root;
  });
  return found;
}

/// The nearest op before (`forward` false) or after `op` in its block that
/// touches buffer `root` (or a view of it), or null.
Operation *nearestToucher(Operation *op, Value root, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (touches(o, root))
      return o;
  return nullptr;
}

/// Whether no op strictly between `from` and `to` (one block, `from` first)
/// touches any of `roots`.
bool untouchedBetween(Operation *from, Operation *to, ArrayRef<Value> roots) {
  for (Operation *o = from->getNextNode(); o && o != to; o = o->getNextNode())
    for (Value r : roots)
      if (touches(o, r))
        return false;
  return true;
}

/// Whether `op` writes every element of its one init `buffer` (all parallel
/// loops, identity output map) without reading its old contents.
bool overwritesWhole(Operation *op, Value buffer) {
  auto lin = dyn_cast<linalg::LinalgOp>(op);
  if (!lin || lin.getNumDpsInits() != 1 || lin->getNumResults() != 0 || lin.getDpsInitOperand(0)->get() != buffer ||
      lin.getNumParallelLoops() != lin.getNumLoops() ||
      !lin.getMatchingIndexingMap(lin.getDpsInitOperand(0)).isIdentity() ||
      !lin.getMatchingBlockArgument(lin.getDpsInitOperand(0)).use_empty())
    return false;
  return llvm::none_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return rootBuffer(in->get()) == buffer; });
}

/// Whether the contents of buffer `c` (a local allocation) are never read
/// after `op`: the next op touching it overwrites it whole or frees it, or
/// nothing touches it again.
bool deadAfter(Operation *op, Value c) {
  if (!c.getDefiningOp<memref::AllocOp>() || c.getDefiningOp()->getBlock() != op->getBlock())
    return false;
  Operation *next = nearestToucher(op, c, /*forward=*/true);
  if (!next)
    return true;
  if (auto dealloc = dyn_cast<memref::DeallocOp>(next))
    return dealloc.getMemref() == c;
  return overwritesWhole(next, c);
}

/// The value `v` is if it is `arith.extf` of something, else `v`.
Value stripExt(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

/// Whether `v` is a floating-point zero constant (either sign).
bool isZero(Value v) { return matchPattern(v, m_AnyZeroFloat()); }

/// The coefficient of loop `d` in affine expression `e` (linear in the loops).
int64_t coefficient(AffineExpr e, unsigned d, unsigned numLoops) {
  MLIRContext *ctx = e.getContext();
  SmallVector<AffineExpr> at0(numLoops, getAffineConstantExpr(0, ctx)), at1 = at0;
  at1[d] = getAffineConstantExpr(1, ctx);
  auto c0 = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(e.replaceDims(at0), numLoops, 0));
  auto c1 = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(e.replaceDims(at1), numLoops, 0));
  return c0 && c1 ? c1.getValue() - c0.getValue() : 0;
}

/// The loop of each dim of `operand` in `op`'s indexing map, when every
/// result is a plain loop dim.
bool loopsOf(linalg::LinalgOp op, OpOperand *operand, SmallVectorImpl<unsigned> &loops) {
  for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return false;
    loops.push_back(d.getPosition());
  }
  return true;
}

/// The rank-5 fully dynamic strided memref of `elem` the runtime's convolution takes.
MemRefType convArgType(Type elem) {
  MLIRContext *ctx = elem.getContext();
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d, d, d}, elem, StridedLayoutAttr::get(ctx, d, {d, d, d, d, d}));
}

/// `buffer` (N, C, spatial..) with unit dims after C up to rank 5, as the
/// runtime's argument type. With `perm` (channels last), position i of that
/// order is `buffer`'s dim perm[i]: a view of its own strided metadata.
Value asConvArg(OpBuilder &b, Location loc, Value buffer, ArrayRef<int64_t> perm) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!perm.empty()) {
    auto md = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    SmallVector<OpFoldResult> sizes, strides;
    for (int64_t i = 0; i < static_cast<int64_t>(perm.size()); ++i) {
      // Unit spatial dims after C, strided as a packed layout would be.
      if (i == 2)
        for (int64_t u = perm.size(); u < 5; ++u) {
          sizes.push_back(b.getIndexAttr(1));
          strides.push_back(OpFoldResult(
              arith::MulIOp::create(b, loc, md.getSizes()[perm[2]], md.getStrides()[perm[2]]).getResult()));
        }
      sizes.push_back(md.getSizes()[perm[i]]);
      strides.push_back(md.getStrides()[perm[i]]);
    }
    return memref::ReinterpretCastOp::create(b, loc, convArgType(type.getElementType()), buffer,
                                             OpFoldResult(md.getOffset()), sizes, strides);
  }
  int64_t rank = type.getRank();
  if (rank < 5) {
    SmallVector<int64_t> shape{type.getDimSize(0), type.getDimSize(1)};
    SmallVector<ReassociationIndices> groups{{0}, {1}};
    for (int64_t i = rank; i < 5; ++i) {
      shape.push_back(1);
      groups[1].push_back(static_cast<int64_t>(shape.size()) - 1);
    }
    for (int64_t i = 2; i < rank; ++i) {
      shape.push_back(type.getDimSize(i));
      groups.push_back({static_cast<int64_t>(shape.size()) - 1});
    }
    buffer = memref::ExpandShapeOp::create(b, loc, shape, buffer, groups);
  }
  return memref::CastOp::create(b, loc, convArgType(type.getElementType()), buffer);
}

/// The reassociation of a rank-`rank` (.., G, X/G, ..) view that merges
/// dims `first` and `first + 1` (the groups and the channels per group).
SmallVector<ReassociationIndices> mergedChannels(int64_t rank, int64_t first) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == first + 1)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  return groups;
}

} // namespace kiln::libcalls
