//===- LibraryCallPointwiseGemm.cpp - 1x1 channels-last convolutions as GEMM calls ===//
//
// A 1x1, stride-1, unpadded, ungrouped convolution over channels-last
// buffers is a matrix product: y (N*H*W x F) = x (N*H*W x C) * w (F x C)^T,
// the rows (N, H, W) merged in place. It runs as the runtime's GEMM, with
// the convolution call's epilogue as cuBLASLt's: the bias, a residual
// accumulated onto the output, 16-bit rounding once at the end. Only where
// cuDNN cannot pick its algorithm (docs/cuda.md): a 16-bit convolution whose
// fused bias call has no activation is limited to IMPLICIT_PRECOMP_GEMM,
// which for these types has no tensor-core kernel.
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
  // Only where cuDNN's algorithm is not free: a 16-bit fused bias call with
  // no activation must run IMPLICIT_PRECOMP_GEMM, whose kernel for these
  // types has no tensor cores. With a ReLU, without a bias (the plain call),
  // or in float32 (TF32 tensor-core kernels) cuDNN chooses freely, and
  // measured as fast or faster (H200: ResNet-50 b32 bf16, bias + ReLU, 1.27
  // ms with cuDNN against 1.32 as GEMMs; docs/performance.md).
  Type elem = cast<MemRefType>(w.getType()).getElementType();
  if (!ep.bias || ep.flag || !(elem.isBF16() || elem.isF16()))
    return nullptr;
  auto wType = cast<MemRefType>(w.getType()), xType = cast<MemRefType>(x.getType()),
       yType = cast<MemRefType>(y.getType());
  int64_t rank = wType.getRank();
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
  flags &= kGemmOverwrite | kConstWeight;
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
