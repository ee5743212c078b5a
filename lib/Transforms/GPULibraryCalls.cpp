//===- GPULibraryCalls.cpp - large matmuls as calls of the GPU runtime's GEMM ===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPULIBRARYCALLS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

constexpr const char *kGemmF32 = "kiln_gpu_gemm_f32";

/// How one operand of a (batched) matmul is laid out: which loop each of its
/// dims walks.
struct GemmOperand {
  Value buffer;
  bool transposed = false; ///< stored (k, m) for A or (n, k) for B
};

/// The rank-3 fully dynamic strided memref the runtime's GEMM takes.
MemRefType gemmArgType(MLIRContext *ctx) {
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d}, Float32Type::get(ctx),
                         StridedLayoutAttr::get(ctx, d, {d, d, d}));
}

/// `buffer` as a rank-3 (batch, rows, cols) strided memref.
Value asGemmArg(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    buffer = memref::ExpandShapeOp::create(
        b, loc, SmallVector<int64_t>{1, type.getDimSize(0), type.getDimSize(1)}, buffer,
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
  return memref::CastOp::create(b, loc, gemmArgType(b.getContext()), buffer);
}

struct KilnGPULibraryCallsPass : kiln::impl::KilnGPULibraryCallsBase<KilnGPULibraryCallsPass> {
  using Base::Base;

  /// The (A, B) operands if `op` is C[b, m, n] += A * B on f32 buffers with
  /// unit-stride rows (identity layouts), one m, n and k loop and at most one
  /// batch loop; failure otherwise.
  FailureOr<std::pair<GemmOperand, GemmOperand>> matchGemm(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !linalg::isaContractionOpInterface(op))
      return failure();
    FailureOr<linalg::ContractionDimensions> dims = linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1 ||
        dims->batch.size() > 1 || op.getNumLoops() != 3 + dims->batch.size())
      return failure();
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !type.getElementType().isF32() || !type.getLayout().isIdentity())
        return failure();
    }
    // Reads operand `operand`'s map as a list of loops.
    auto loopsOf = [&](OpOperand *operand) -> std::optional<SmallVector<unsigned>> {
      SmallVector<unsigned> loops;
      for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
        auto d = dyn_cast<AffineDimExpr>(e);
        if (!d)
          return std::nullopt;
        loops.push_back(d.getPosition());
      }
      return loops;
    };
    SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
    unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
    auto with = [&](unsigned x, unsigned y) {
      SmallVector<unsigned> v = batch;
      v.push_back(x);
      v.push_back(y);
      return v;
    };
    std::optional<SmallVector<unsigned>> a = loopsOf(op.getDpsInputOperand(0)),
                                         bm = loopsOf(op.getDpsInputOperand(1)),
                                         c = loopsOf(op.getDpsInitOperand(0));
    if (!a || !bm || !c || *c != with(m, n))
      return failure();
    GemmOperand A{op.getDpsInputOperand(0)->get()}, B{op.getDpsInputOperand(1)->get()};
    if (*a == with(k, m))
      A.transposed = true;
    else if (*a != with(m, k))
      return failure();
    if (*bm == with(n, k))
      B.transposed = true;
    else if (*bm != with(k, n))
      return failure();
    // Small problems stay generated kernels: a library call costs more than
    // their arithmetic. A dynamic loop counts as `dynamic-size` iterations.
    int64_t macs = 1;
    for (int64_t r : op.getStaticLoopRanges())
      macs *= r == ShapedType::kDynamic ? dynamicSize : r;
    if (macs < minMacs)
      return failure();
    return std::make_pair(A, B);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<std::tuple<linalg::LinalgOp, GemmOperand, GemmOperand>> gemms;
    module.walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>() || op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (auto match = matchGemm(op); succeeded(match))
        gemms.emplace_back(op, match->first, match->second);
    });
    if (gemms.empty())
      return;

    // void kiln_gpu_gemm_f32(i32 transA, i32 transB, A, B, C):
    // C[b] = op(A[b]) * op(B[b]) + C[b], row-major, in the order of the call's
    // stream; see runtime/src/cuda/Blas.cpp.
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    auto callee = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, kGemmF32));
    if (!callee) {
      Type i32 = mb.getI32Type(), arg = gemmArgType(ctx);
      callee = func::FuncOp::create(mb, module.getLoc(), kGemmF32,
                                    mb.getFunctionType({i32, i32, arg, arg, arg}, {}));
      callee.setPrivate();
      callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
      callee->setAttr("kiln.device_call", mb.getUnitAttr());
    }
    IRRewriter rewriter(ctx);
    for (auto &[op, A, B] : gemms) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value ta = arith::ConstantIntOp::create(rewriter, loc, A.transposed, 32);
      Value tb = arith::ConstantIntOp::create(rewriter, loc, B.transposed, 32);
      Value a = asGemmArg(rewriter, loc, A.buffer), b = asGemmArg(rewriter, loc, B.buffer),
            c = asGemmArg(rewriter, loc, op.getDpsInitOperand(0)->get());
      func::CallOp::create(rewriter, loc, callee, ValueRange{ta, tb, a, b, c});
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
