//===- LibraryCallPointwiseGemm.cpp - 1x1 channels-last convolutions as GEMM calls ===//
//
// A 1x1, stride-1, unpadded, ungrouped convolution over channels-last
// buffers is a matrix product: y (N*H*W x F) = x (N*H*W x C) * w (F x C)^T,
// the rows (N, H, W) merged in place. It runs as the runtime's GEMM, with
// the convolution call's epilogue as cuBLASLt's: the bias (and ReLU), a
// residual accumulated onto the output, 16-bit rounding once at the end.
// Why not cuDNN's call (docs/cuda.md): its fused bias call without an
// activation is limited to one algorithm, which for such shapes has no
// tensor-core kernel.
//
//===----------------------------------------------------------------------===//
#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace kiln::libcalls;

Operation *LibraryCalls::pointwiseGemm(IRRewriter &rewriter, ModuleOp module, Location loc, const DnnConvMatch &m,
                                       const ConvEpilogue &ep, Value x, Value w, Value y, int32_t flags) {
  if (!pointwiseGemms || m.grouped || m.channelsLast.empty() || m.source)
    return nullptr;
  if (llvm::any_of(m.stride, [](int64_t s) { return s != 1; }) ||
      llvm::any_of(m.padding, [](int64_t p) { return p != 0; }))
    return nullptr;
  // The GEMM's epilogue has a bias and a ReLU (of the sum with the residual,
  // if any); a ReLU needs the bias.
  if ((ep.flag & ~KILN_CPU_RELU) || ((ep.flag & KILN_CPU_RELU) && !ep.bias))
    return nullptr;
  auto wType = cast<MemRefType>(w.getType()), xType = cast<MemRefType>(x.getType()),
       yType = cast<MemRefType>(y.getType());
  int64_t rank = wType.getRank();
  Type elem = wType.getElementType();
  if (xType.getRank() != rank || yType.getRank() != rank || yType.getElementType() != elem ||
      xType.getElementType() != elem || !gemmName(elem, elem))
    return nullptr;
  // (F, 1.., C) filter; (N, s.., C) and (N, s.., F) activations.
  for (int64_t i = 1; i + 1 < rank; ++i)
    if (wType.getDimSize(i) != 1)
      return nullptr;
  ReassociationIndices rows, taps;
  for (int64_t i = 0; i + 1 < rank; ++i) {
    rows.push_back(i);
    taps.push_back(i + 1);
  }
  SmallVector<ReassociationIndices> act{rows, {rank - 1}}, filter{{0}, taps};
  if (!usableAsIs(xType, act) || !usableAsIs(yType, act) || !usableAsIs(wType, filter) ||
      rootBuffer(x) == rootBuffer(y))
    return nullptr;
  if (ep.residual) {
    auto rType = cast<MemRefType>(ep.residual.getType());
    // Either y is the residual's buffer, or another one the residual is copied into.
    if (rType != yType || (rootBuffer(ep.residual) == rootBuffer(y) && ep.residual != y))
      return nullptr;
  }
  flags &= kGemmTF32 | kGemmOverwrite | kGemmReLU | kConstWeight;
  if (ep.residual) {
    // D = x w^T + residual + bias: cuBLASLt's beta = 1 onto D holding the residual.
    if (ep.residual != y) {
      AffineMap id = rewriter.getMultiDimIdentityMap(rank);
      linalg::GenericOp::create(rewriter, loc, ValueRange{ep.residual}, ValueRange{y}, ArrayRef<AffineMap>{id, id},
                                SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
                                [](OpBuilder &nb, Location l, ValueRange a) { linalg::YieldOp::create(nb, l, a[0]); });
    }
    flags &= ~kGemmOverwrite;
  }
  Value a = collapse(rewriter, loc, x, act), b = collapse(rewriter, loc, w, filter),
        d = collapse(rewriter, loc, y, act);
  if (!ep.bias) {
    callGemm(rewriter, loc, module, /*transA=*/false, /*transB=*/true, flags, a, b, d);
    return &*std::prev(rewriter.getInsertionPoint());
  }
  int64_t dyn = ShapedType::kDynamic;
  Value bias = memref::CastOp::create(
      rewriter, loc, MemRefType::get({dyn}, elem, StridedLayoutAttr::get(&getContext(), dyn, {dyn})), ep.bias);
  return func::CallOp::create(rewriter, loc, gemmLtCallee(module, elem, elem),
                              ValueRange{arith::ConstantIntOp::create(rewriter, loc, 0, 32),
                                         arith::ConstantIntOp::create(rewriter, loc, 1, 32),
                                         arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                                         asGemmArg(rewriter, loc, a), asGemmArg(rewriter, loc, b),
                                         asGemmArg(rewriter, loc, d), bias});
}
