//===- GPUTransposeTiles.cpp - elementwise ops that transpose, through workgroup tiles -===//
//
// An elementwise op whose input's innermost dim is not the output's (a layout
// change between NCHW and NHWC, a permute before a concatenation) would, one
// thread per output element, read that input a whole row apart in
// neighbouring threads. Here a workgroup reads a square tile of it along the
// input's innermost dim into workgroup memory and writes it along the
// output's, so both global accesses of a warp are contiguous.
//
//===----------------------------------------------------------------------===//
#include "GPUMapLinalg.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

namespace kiln::gpu_map {

/// The tile's side, and the threads of a workgroup along its rows: each
/// thread moves kTile / kTileRows elements of the tile each way.
static constexpr int64_t kTile = 32;
static constexpr int64_t kTileRows = 8;

/// Whether `type` has a unit innermost stride.
static bool unitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() > 0 && succeeded(type.getStridesAndOffset(strides, offset)) && strides.back() == 1;
}

std::optional<TransposePlan> planTransposeTile(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 || op.getNumLoops() < 2)
    return std::nullopt;
  OpOperand *out = op.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(out->get().getType());
  if (!outType || !op.getMatchingIndexingMap(out).isIdentity() || !unitInnerStride(outType))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  unsigned last = op.getNumLoops() - 1;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(in->get().getType());
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!type || !map.isPermutation() || !unitInnerStride(type) || packedElementBytes(type.getElementType()) == 0)
      continue;
    unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    // Both tile sides at least half a tile: a thin dim (an image's three
    // channels) would leave most of each tile idle.
    if (inner == last || ranges[inner] < kTile / 2 || ranges[last] < kTile / 2)
      continue;
    return TransposePlan{in->getOperandNumber(), inner};
  }
  return std::nullopt;
}

void lowerToTransposeTile(RewriterBase &rewriter, linalg::GenericOp op, const TransposePlan &plan) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, loc, x, y).getResult(); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, loc, x, y).getResult(); };
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned last = ranges.size() - 1, inner = plan.innerLoop;
  // Workgroups: tiles along the output's innermost loop fastest, then along
  // the input's, then the other loops (innermost fastest).
  int64_t tilesOut = llvm::divideCeil(ranges[last], kTile), tilesIn = llvm::divideCeil(ranges[inner], kTile);
  int64_t groups = tilesOut * tilesIn;
  SmallVector<unsigned> others;
  for (unsigned d = 0; d < last; ++d)
    if (d != inner) {
      others.push_back(d);
      groups *= ranges[d];
    }
  OpOperand &source = op->getOpOperand(plan.operand);
  Type elem = cast<MemRefType>(source.get().getType()).getElementType();
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // One padding column: a warp reading a column of the tile hits every bank once.
  auto tileType = MemRefType::get({kTile, kTile + 1}, elem, MemRefLayoutAttrInterface(), wg);
  Value c1 = cst(1);
  auto launch = gpu::LaunchOp::create(b, loc, cst(groups), c1, c1, cst(kTile), cst(kTileRows), c1,
                                      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr, ValueRange(),
                                      TypeRange{tileType});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tile = launch.getWorkgroupAttributions()[0];
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  Value rest = launch.getBlockIds().x;
  Value outTile = arith::RemUIOp::create(b, loc, rest, cst(tilesOut));
  rest = arith::DivUIOp::create(b, loc, rest, cst(tilesOut));
  Value inTile = arith::RemUIOp::create(b, loc, rest, cst(tilesIn));
  rest = arith::DivUIOp::create(b, loc, rest, cst(tilesIn));
  SmallVector<Value> ivs(ranges.size());
  for (size_t i = others.size(); i-- > 0;) {
    unsigned d = others[i];
    ivs[d] = i == 0 ? rest : arith::RemUIOp::create(b, loc, rest, cst(ranges[d])).getResult();
    if (i > 0)
      rest = arith::DivUIOp::create(b, loc, rest, cst(ranges[d]));
  }
  Value out0 = mul(outTile, cst(kTile)), in0 = mul(inTile, cst(kTile));
  // Runs `body` where (`o`, `i`) along the output's and the input's innermost
  // loops is inside the op's loops.
  auto guarded = [&](Value o, Value i, function_ref<void()> body) {
    Value ok = arith::AndIOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, o, cst(ranges[last])),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, cst(ranges[inner])));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inside(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    ivs[last] = o;
    ivs[inner] = i;
    body();
  };
  // Into the tile: neighbouring threads (tx) read neighbouring elements of
  // the input's innermost dim; tile[output offset][input offset].
  for (int64_t r = 0; r < kTile; r += kTileRows) {
    Value row = add(ty, cst(r));
    guarded(add(out0, row), add(in0, tx), [&] {
      Value v = loadOperand(b, loc, op, source, ivs);
      memref::StoreOp::create(b, loc, v, tile, ValueRange{row, tx});
    });
  }
  gpu::BarrierOp::create(b, loc);
  // Out of it: neighbouring threads write neighbouring output elements.
  Block &body = op.getRegion().front();
  for (int64_t r = 0; r < kTile; r += kTileRows) {
    Value row = add(ty, cst(r));
    guarded(add(out0, tx), add(in0, row), [&] {
      SmallVector<Value> args;
      for (OpOperand &operand : op->getOpOperands()) {
        BlockArgument arg = body.getArgument(operand.getOperandNumber());
        if (operand.getOperandNumber() == plan.operand)
          args.push_back(memref::LoadOp::create(b, loc, tile, ValueRange{tx, row}));
        else if (arg.use_empty())
          args.push_back(ub::PoisonOp::create(b, loc, arg.getType()));
        else
          args.push_back(loadOperand(b, loc, op, operand, ivs));
      }
      SmallVector<Value> results = emitBody(b, op, args, ivs);
      OpOperand *out = op.getDpsInitOperand(0);
      memref::StoreOp::create(b, loc, results[0], out->get(),
                              indicesAt(b, loc, op.getMatchingIndexingMap(out), ivs));
    });
  }
  gpu::TerminatorOp::create(b, loc);
}

} // namespace kiln::gpu_map
