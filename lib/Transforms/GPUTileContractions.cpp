//===- GPUTileContractions.cpp - contractions as workgroup-tiled GPU kernels -===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPUTILECONTRACTIONS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Threads of a workgroup along the tile's columns (x) and rows (y).
constexpr int64_t kThreadsX = 16, kThreadsY = 16, kThreads = kThreadsX * kThreadsY;
/// Output elements each thread accumulates in registers, rows x columns.
constexpr int64_t kRegRows = 4, kRegCols = 4;
/// The workgroup's output tile (rows x columns) and its step along k.
constexpr int64_t kTileRows = kThreadsY * kRegRows, kTileCols = kThreadsX * kRegCols,
                  kTileK = 16;

/// How a contraction's loops map onto the tiled kernel.
struct ContractionPlan {
  /// The loops tiled across a workgroup's rows and columns, and the one
  /// reduction loop walked in kTileK steps.
  unsigned rowDim, colDim, kDim;
  /// Every other loop (batch dims, further row or column dims): one
  /// workgroup per point, outermost first.
  SmallVector<unsigned> outerDims;
  /// The input indexed by rowDim (and not colDim), and the one indexed by
  /// colDim (and not rowDim).
  OpOperand *rowInput, *colInput;
};

/// Whether `map` indexes with dim `d` (as a plain dim result).
bool usesDim(AffineMap map, unsigned d) {
  return llvm::any_of(map.getResults(), [&](AffineExpr e) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  });
}

/// Position of dim `d` among `map`'s results, or -1.
int64_t resultPos(AffineMap map, unsigned d) {
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
      return i;
  return -1;
}

bool isTileableElement(Type t) { return isa<FloatType, IntegerType>(t); }

/// The tiling plan of `op` if it is a contraction the tiled kernel serves:
/// two buffer inputs and one buffer output of int or float elements, maps
/// of loop dims and constants only, one reduction loop, every parallel loop
/// indexing the output, and at least one parallel loop that only the first
/// input uses and one that only the second uses (its rows and columns).
/// The body is any scalar computation of (a, b, acc): edges are handled by
/// bounds, never by padding values.
std::optional<ContractionPlan> planContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !isTileableElement(type.getElementType()))
      return std::nullopt;
    for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
      if (!isa<AffineDimExpr, AffineConstantExpr>(e))
        return std::nullopt;
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  OpOperand *in0 = op.getDpsInputOperand(0), *in1 = op.getDpsInputOperand(1);
  AffineMap map0 = op.getMatchingIndexingMap(in0), map1 = op.getMatchingIndexingMap(in1);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> kDim;
  for (auto [d, it] : llvm::enumerate(iters)) {
    if (it == utils::IteratorType::parallel) {
      if (!usesDim(outMap, d))
        return std::nullopt;
      continue;
    }
    if (kDim || usesDim(outMap, d))
      return std::nullopt;
    kDim = d;
  }
  if (!kDim || (!usesDim(map0, *kDim) && !usesDim(map1, *kDim)))
    return std::nullopt;
  // Rows and columns: the innermost output dims only one input uses.
  int64_t best0 = -1, best1 = -1;
  for (auto [d, it] : llvm::enumerate(iters)) {
    if (it != utils::IteratorType::parallel)
      continue;
    bool u0 = usesDim(map0, d), u1 = usesDim(map1, d);
    int64_t pos = resultPos(outMap, d);
    if (u0 && !u1 && (best0 < 0 || pos > resultPos(outMap, best0)))
      best0 = d;
    if (u1 && !u0 && (best1 < 0 || pos > resultPos(outMap, best1)))
      best1 = d;
  }
  if (best0 < 0 || best1 < 0)
    return std::nullopt;
  ContractionPlan plan;
  plan.kDim = *kDim;
  // Columns are the innermost of the two in the output, so neighbouring
  // threads write neighbouring elements.
  if (resultPos(outMap, best1) > resultPos(outMap, best0)) {
    plan.rowDim = best0, plan.colDim = best1, plan.rowInput = in0, plan.colInput = in1;
  } else {
    plan.rowDim = best1, plan.colDim = best0, plan.rowInput = in1, plan.colInput = in0;
  }
  // Other loops outermost first, in the output's order.
  for (AffineExpr e : outMap.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      unsigned d = dim.getPosition();
      if (d != plan.rowDim && d != plan.colDim && !llvm::is_contained(plan.outerDims, d))
        plan.outerDims.push_back(d);
    }
  return plan;
}

/// The indices of `map`'s results at loop position `ivs`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      indices.push_back(ivs[d.getPosition()]);
    else
      indices.push_back(arith::ConstantIndexOp::create(
          b, loc, cast<AffineConstantExpr>(e).getValue()));
  }
  return indices;
}

/// Builds the tiled kernel of one contraction.
class TiledKernelBuilder {
public:
  TiledKernelBuilder(OpBuilder &b, linalg::LinalgOp op, const ContractionPlan &plan)
      : b(b), op(op), plan(plan), loc(op.getLoc()) {}

  void build() {
    MLIRContext *ctx = b.getContext();
    SmallVector<Range> ranges = op.createLoopRanges(b, loc);
    for (Range &r : ranges)
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    Value c1 = cst(1);
    Value tilesRows = ceilDiv(sizes[plan.rowDim], kTileRows);
    Value tilesCols = ceilDiv(sizes[plan.colDim], kTileCols);
    Value grid = arith::MulIOp::create(b, loc, tilesRows, tilesCols);
    for (unsigned d : plan.outerDims)
      grid = arith::MulIOp::create(b, loc, grid, sizes[d]);

    auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    // Rows x k and k x columns, each padded by one element along its inner
    // dim so that neither the loads' nor the compute loop's accesses of one
    // warp hit the same bank twice.
    rowTileType = MemRefType::get({kTileRows, kTileK + 1}, elementType(plan.rowInput),
                                  MemRefLayoutAttrInterface(), wg);
    colTileType = MemRefType::get({kTileK, kTileCols + 1}, elementType(plan.colInput),
                                  MemRefLayoutAttrInterface(), wg);
    auto launch = gpu::LaunchOp::create(b, loc, grid, c1, c1, cst(kThreadsX), cst(kThreadsY), c1,
                                        /*dynamicSharedMemorySize=*/nullptr,
                                        /*asyncTokenType=*/nullptr, ValueRange(),
                                        TypeRange{rowTileType, colTileType});
    Block &body = launch.getBody().front();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&body);
    rowTile = launch.getWorkgroupAttributions()[0];
    colTile = launch.getWorkgroupAttributions()[1];
    emitKernel(launch.getBlockIds().x, launch.getThreadIds().x, launch.getThreadIds().y,
               tilesRows, tilesCols);
    gpu::TerminatorOp::create(b, loc);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value ceilDiv(Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, add(x, cst(d - 1)), cst(d));
  }
  static Type elementType(OpOperand *operand) {
    return cast<MemRefType>(operand->get().getType()).getElementType();
  }
  Value zero(Type t) { return arith::ConstantOp::create(b, loc, b.getZeroAttr(t)); }

  /// `then()` when `cond` holds, else the zero of `t`.
  Value loadOr(Value cond, Type t, function_ref<Value()> then) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{t}, cond, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, zero(t));
    return ifOp.getResult(0);
  }

  void emitKernel(Value block, Value tx, Value ty, Value tilesRows, Value tilesCols) {
    // The workgroup's tile: columns fastest, then rows, then the outer loops
    // (innermost fastest).
    Value colTileIdx = arith::RemUIOp::create(b, loc, block, tilesCols);
    Value rest = arith::DivUIOp::create(b, loc, block, tilesCols);
    Value rowTileIdx = arith::RemUIOp::create(b, loc, rest, tilesRows);
    rest = arith::DivUIOp::create(b, loc, rest, tilesRows);
    ivs.assign(sizes.size(), cst(0));
    // The outermost loop takes what is left (no remainder to take).
    for (auto [i, d] : llvm::enumerate(llvm::reverse(plan.outerDims))) {
      if (i + 1 == plan.outerDims.size()) {
        ivs[d] = rest;
        break;
      }
      ivs[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
    row0 = mul(rowTileIdx, cst(kTileRows));
    col0 = mul(colTileIdx, cst(kTileCols));
    this->tx = tx;
    this->ty = ty;
    tid = add(mul(ty, cst(kThreadsX)), tx);

    // This thread's outputs: rows ty + 16 i, columns tx + 16 j of the tile,
    // so that neighbouring threads touch neighbouring columns.
    Type accType = op.getRegionOutputArgs()[0].getType();
    OpOperand *out = op.getDpsInitOperand(0);
    AffineMap outMap = op.getMatchingIndexingMap(out);
    SmallVector<Value> rows, cols, rowIn, colIn;
    for (int64_t i = 0; i < kRegRows; ++i) {
      rows.push_back(add(row0, add(ty, cst(i * kThreadsY))));
      rowIn.push_back(lt(rows.back(), sizes[plan.rowDim]));
    }
    for (int64_t j = 0; j < kRegCols; ++j) {
      cols.push_back(add(col0, add(tx, cst(j * kThreadsX))));
      colIn.push_back(lt(cols.back(), sizes[plan.colDim]));
    }
    SmallVector<Value> accs;
    for (int64_t i = 0; i < kRegRows; ++i)
      for (int64_t j = 0; j < kRegCols; ++j) {
        Value in = arith::AndIOp::create(b, loc, rowIn[i], colIn[j]);
        accs.push_back(loadOr(in, accType, [&] {
          return memref::LoadOp::create(b, loc, out->get(), outIndices(outMap, rows[i], cols[j]));
        }));
      }

    // Whole k tiles: the compute loop has a constant trip count.
    Value kSize = sizes[plan.kDim];
    Value kFull = mul(arith::DivUIOp::create(b, loc, kSize, cst(kTileK)), cst(kTileK));
    auto loop = scf::ForOp::create(b, loc, cst(0), kFull, cst(kTileK), accs);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k0 = loop.getInductionVar();
      stageTiles(k0, /*kBound=*/Value());
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = computeTile(k0, cst(kTileK), loop.getRegionIterArgs());
      // Nobody overwrites the tiles while others still read them.
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    }
    accs.assign(loop.getResults().begin(), loop.getResults().end());

    // The last, partial k tile (the same condition in every thread).
    Value partial = lt(kFull, kSize);
    auto tail = scf::IfOp::create(b, loc, TypeRange(ValueRange(accs)), partial, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(tail.thenBlock());
      stageTiles(kFull, kSize);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc,
                           computeTile(kFull, arith::SubIOp::create(b, loc, kSize, kFull), accs));
      b.setInsertionPointToStart(tail.elseBlock());
      scf::YieldOp::create(b, loc, accs);
    }

    for (int64_t i = 0; i < kRegRows; ++i)
      for (int64_t j = 0; j < kRegCols; ++j) {
        Value in = arith::AndIOp::create(b, loc, rowIn[i], colIn[j]);
        auto ifOp = scf::IfOp::create(b, loc, in, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        memref::StoreOp::create(b, loc, tail.getResult(i * kRegCols + j), out->get(),
                                outIndices(outMap, rows[i], cols[j]));
      }
  }

  /// The output's indices at (row, col) of this workgroup's outer point.
  SmallVector<Value> outIndices(AffineMap outMap, Value row, Value col) {
    SmallVector<Value> at = ivs;
    at[plan.rowDim] = row;
    at[plan.colDim] = col;
    return indicesAt(b, loc, outMap, at);
  }

  /// Copies one input's elements (tile dim `tileDim`, size `tileSize`) x
  /// (k0 .. k0 + kTileK) into its workgroup tile, every thread a share.
  /// Elements past the op's bounds (or past `kBound`, if given) are zero;
  /// the compute loop never reads those past k, and rows or columns past the
  /// bounds are never stored. Neighbouring threads read along the input's
  /// innermost dim (k or the tile dim), so global loads coalesce.
  void stageTile(OpOperand *input, unsigned tileDim, int64_t tileSize, Value tile0, Value k0,
                 Value kBound, Value tileBuf, bool kFirst) {
    AffineMap map = op.getMatchingIndexingMap(input);
    bool kInner = false;
    for (AffineExpr e : llvm::reverse(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        kInner = d.getPosition() == plan.kDim;
        break;
      }
    Type elem = elementType(input);
    for (int64_t p = 0; p < tileSize * kTileK / kThreads; ++p) {
      Value e = add(tid, cst(p * kThreads));
      Value t, k;
      if (kInner) {
        k = arith::RemUIOp::create(b, loc, e, cst(kTileK));
        t = arith::DivUIOp::create(b, loc, e, cst(kTileK));
      } else {
        t = arith::RemUIOp::create(b, loc, e, cst(tileSize));
        k = arith::DivUIOp::create(b, loc, e, cst(tileSize));
      }
      Value gt = add(tile0, t), gk = add(k0, k);
      Value in = lt(gt, sizes[tileDim]);
      if (kBound)
        in = arith::AndIOp::create(b, loc, in, lt(gk, kBound));
      SmallVector<Value> at = ivs;
      at[tileDim] = gt;
      at[plan.kDim] = gk;
      Value v = loadOr(in, elem, [&] {
        return memref::LoadOp::create(b, loc, input->get(), indicesAt(b, loc, map, at));
      });
      SmallVector<Value> at2 = kFirst ? SmallVector<Value>{k, t} : SmallVector<Value>{t, k};
      memref::StoreOp::create(b, loc, v, tileBuf, at2);
    }
  }

  void stageTiles(Value k0, Value kBound) {
    stageTile(plan.rowInput, plan.rowDim, kTileRows, row0, k0, kBound, rowTile,
              /*kFirst=*/false);
    stageTile(plan.colInput, plan.colDim, kTileCols, col0, k0, kBound, colTile,
              /*kFirst=*/true);
  }

  /// Runs the op's body over k0 .. k0 + kLen for this thread's register
  /// tile, reading the inputs from the workgroup tiles.
  SmallVector<Value> computeTile(Value k0, Value kLen, ValueRange accs) {
    auto loop = scf::ForOp::create(b, loc, cst(0), kLen, cst(1), accs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kk = loop.getInductionVar();
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < kRegRows; ++i)
      as.push_back(memref::LoadOp::create(b, loc, rowTile,
                                          ValueRange{add(ty, cst(i * kThreadsY)), kk}));
    for (int64_t j = 0; j < kRegCols; ++j)
      bs.push_back(memref::LoadOp::create(b, loc, colTile,
                                          ValueRange{kk, add(tx, cst(j * kThreadsX))}));
    bool needsIndex = op.hasIndexSemantics();
    Value gk = needsIndex ? add(k0, kk) : Value();
    SmallVector<Value> next;
    ValueRange iterAccs = loop.getRegionIterArgs();
    for (int64_t i = 0; i < kRegRows; ++i)
      for (int64_t j = 0; j < kRegCols; ++j) {
        SmallVector<Value> at;
        if (needsIndex) {
          at = ivs;
          at[plan.rowDim] = add(row0, add(ty, cst(i * kThreadsY)));
          at[plan.colDim] = add(col0, add(tx, cst(j * kThreadsX)));
          at[plan.kDim] = gk;
        }
        bool rowFirst = plan.rowInput == op.getDpsInputOperand(0);
        Value a0 = rowFirst ? as[i] : bs[j], a1 = rowFirst ? bs[j] : as[i];
        next.push_back(emitBody({a0, a1, iterAccs[i * kRegCols + j]}, at));
      }
    scf::YieldOp::create(b, loc, next);
    return SmallVector<Value>(loop.getResults());
  }

  /// Clones the op's body with `args` for its block arguments and `at` for
  /// linalg.index; returns the yielded value.
  Value emitBody(ArrayRef<Value> args, ArrayRef<Value> at) {
    Block &body = op->getRegion(0).front();
    IRMapping map;
    map.map(body.getArguments(), args);
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), at[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    return map.lookupOrDefault(body.getTerminator()->getOperand(0));
  }

  OpBuilder &b;
  linalg::LinalgOp op;
  const ContractionPlan &plan;
  Location loc;
  SmallVector<Value> sizes, ivs;
  MemRefType rowTileType, colTileType;
  Value rowTile, colTile, row0, col0, tx, ty, tid;
};

struct KilnGPUTileContractionsPass
    : kiln::impl::KilnGPUTileContractionsBase<KilnGPUTileContractionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, ContractionPlan>> todo;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<ContractionPlan> plan = planContraction(op))
        todo.push_back({op, *plan});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, plan] : todo) {
      rewriter.setInsertionPoint(op);
      TiledKernelBuilder(rewriter, op, plan).build();
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
