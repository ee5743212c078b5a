//===- LibraryCallRewrite.cpp - matched GEMMs and convolutions rewritten into calls of the runtime's entries ===//
#include "LibraryCalls.h"
#include "ATen/IR/AttrNames.h"

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

/// The runtime's epilogue GEMM (cuBLASLt) for operands of type `ab` and
/// a result of type `d`, declared once in the module:
/// void <prefix>gemm_lt_<type>(i32 transA, i32 transB, i32 flags, A, B,
/// D, bias): D[b] = op(A[b]) * op(B[b]) (+ D[b] without kGemmOverwrite)
/// + bias[n] (ReLU'd with kGemmReLU), accumulating in float32 and rounding
/// once into D's type; see runtime/src/cuda/Blas.cpp and runtime/src/cpu/Matmul.cpp.
func::FuncOp LibraryCalls::gemmLtCallee(ModuleOp module, Type ab, Type d) {
  int64_t dyn = ShapedType::kDynamic;
  Type i32 = IntegerType::get(module.getContext(), 32), arg = gemmArgType(ab), res = gemmArgType(d),
       bias = MemRefType::get({dyn}, d, StridedLayoutAttr::get(module.getContext(), dyn, {dyn}));
  return declareCallee(module, prefix + "gemm_lt_" + gemmName(ab, d), {i32, i32, i32, arg, arg, res, bias});
}

func::FuncOp LibraryCalls::declareCallee(ModuleOp module, StringRef name, ArrayRef<Type> inputs) {
  if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name)))
    return f;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  auto callee = func::FuncOp::create(mb, module.getLoc(), name, mb.getFunctionType(inputs, {}));
  callee.setPrivate();
  callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
  if (deviceCall)
    callee->setAttr(kiln::attrs::kDeviceCall, mb.getUnitAttr());
  return callee;
}

/// Drops every local buffer nothing reads: its allocation, its frees, the
/// linalg ops that only write it and views of it nothing uses (the float32
/// products and widened biases the epilogues made dead, a convolution's own
/// output where its call writes its activation's buffer instead).
void LibraryCalls::dropUnreadBuffers(ModuleOp module, IRRewriter &rewriter) {
  auto onlyWrites = [](Operation *user, Value buffer) {
    auto lin = dyn_cast<linalg::LinalgOp>(user);
    if (!lin || lin.getNumDpsInits() != 1 || lin->getNumResults() != 0 ||
        lin.getDpsInitOperand(0)->get() != buffer ||
        llvm::any_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return in->get() == buffer; }))
      return false;
    bool pure = true;
    lin.getBlock()->walk([&](Operation *o) { pure &= isPure(o) || isa<memref::LoadOp>(o); });
    return pure;
  };
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp a) {
      if (!a->getParentOfType<gpu::LaunchOp>() && !a->getParentOfType<gpu::GPUModuleOp>())
        allocs.push_back(a);
    });
    for (memref::AllocOp a : allocs) {
      llvm::SetVector<Operation *> users;
      for (Operation *u : a->getUsers())
        users.insert(u);
      if (!llvm::all_of(users, [&](Operation *u) {
            return isa<memref::DeallocOp>(u) || onlyWrites(u, a) ||
                   (isa<ViewLikeOpInterface>(u) && u->getNumResults() == 1 && u->use_empty());
          }))
        continue;
      for (Operation *u : users)
        rewriter.eraseOp(u);
      rewriter.eraseOp(a);
      changed = true;
    }
  }
}

/// The runtime's GEMM for operands of type `ab` and a result of type `c`,
/// declared once in the module.
func::FuncOp LibraryCalls::gemmCallee(ModuleOp module, Type ab, Type c) {
  std::string name = prefix + "gemm_" + gemmName(ab, c);
  // void <prefix>gemm_<type>(i32 transA, i32 transB, i32 flags, A, B, C):
  // C[b] = op(A[b]) * op(B[b]) + C[b] (C[b] not read with kGemmOverwrite),
  // row-major, accumulating in f32 (f32 operands multiplied in TF32 with
  // kGemmTF32), in the order of the call's stream; see
  // runtime/src/cuda/Blas.cpp.
  Type i32 = IntegerType::get(module.getContext(), 32), arg = gemmArgType(ab), res = gemmArgType(c);
  return declareCallee(module, name, {i32, i32, i32, arg, arg, res});
}

void LibraryCalls::callGemm(OpBuilder &b, Location loc, ModuleOp module, bool transA, bool transB, int32_t flags, Value A,
              Value B, Value C) {
  Value ta = arith::ConstantIntOp::create(b, loc, transA, 32);
  Value tb = arith::ConstantIntOp::create(b, loc, transB, 32);
  Value tf = arith::ConstantIntOp::create(b, loc, flags, 32);
  Value a = asGemmArg(b, loc, A), bb = asGemmArg(b, loc, B), c = asGemmArg(b, loc, C);
  func::CallOp::create(b, loc,
                       gemmCallee(module, cast<MemRefType>(A.getType()).getElementType(),
                                  cast<MemRefType>(C.getType()).getElementType()),
                       ValueRange{ta, tb, tf, a, bb, c});
}

/// Replaces convolution `op` by an im2col copy (unless direct) and a GEMM.
void LibraryCalls::rewriteConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, const ConvMatch &m) {
  int32_t flags = tf32Convs ? kGemmTF32 : 0;
  if (Operation *zero = zeroFillBefore(op, m.output)) {
    rewriter.eraseOp(zero);
    flags |= kGemmOverwrite;
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  // w (F, C, KH, KW) -> (F, C*KH*KW); out (N, F, OH, OW) -> (N, F, OH*OW).
  Value A = collapse(rewriter, loc, m.filter, {{0}, {1, 2, 3}});
  Value C = collapse(rewriter, loc, m.output, {{0}, {1}, {2, 3}});
  if (m.direct) {
    callGemm(rewriter, loc, module, false, false, flags, A, collapse(rewriter, loc, m.input, {{0}, {1}, {2, 3}}),
             C);
    rewriter.eraseOp(op);
    return;
  }
  // col[n, c, kh, kw, oh, ow] = in[n, c, oh*s0 + kh*d0, ow*s1 + kw*d1]: one
  // generated kernel, written in order.
  auto inType = cast<MemRefType>(m.input.getType());
  SmallVector<OpFoldResult> sizes = {
      memref::getMixedSize(rewriter, loc, m.input, 0), memref::getMixedSize(rewriter, loc, m.input, 1),
      memref::getMixedSize(rewriter, loc, m.filter, 2), memref::getMixedSize(rewriter, loc, m.filter, 3),
      memref::getMixedSize(rewriter, loc, m.output, 2), memref::getMixedSize(rewriter, loc, m.output, 3)};
  SmallVector<int64_t> staticSizes;
  SmallVector<Value> dynamicSizes;
  dispatchIndexOpFoldResults(sizes, dynamicSizes, staticSizes);
  auto colType = MemRefType::get(staticSizes, inType.getElementType());
  Value col = memref::AllocOp::create(rewriter, loc, colType, dynamicSizes, rewriter.getI64IntegerAttr(64));
  AffineExpr d[6];
  bindDims(ctx, d[0], d[1], d[2], d[3], d[4], d[5]);
  AffineMap read = AffineMap::get(6, 0,
                                  {d[0], d[1], d[4] * m.stride[0] + d[2] * m.dilation[0],
                                   d[5] * m.stride[1] + d[3] * m.dilation[1]},
                                  ctx);
  linalg::GenericOp::create(
      rewriter, loc, ValueRange{m.input}, ValueRange{col},
      ArrayRef<AffineMap>{read, rewriter.getMultiDimIdentityMap(6)},
      SmallVector<utils::IteratorType>(6, utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) { linalg::YieldOp::create(b, l, args[0]); });
  callGemm(rewriter, loc, module, false, false, flags, A, collapse(rewriter, loc, col, {{0}, {1, 2, 3}, {4, 5}}), C);
  memref::DeallocOp::create(rewriter, loc, col);
  rewriter.eraseOp(op);
}

/// Erases buffers allocated and then only written (by linalg ops whose one
/// output they are) and freed: the zero fills that calls overwriting their
/// output no longer need.
void LibraryCalls::eraseWriteOnlyBuffers(ModuleOp module, IRRewriter &rewriter) {
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (memref::AllocOp alloc : allocs) {
    Value buffer = alloc.getResult();
    bool writeOnly = llvm::all_of(buffer.getUsers(), [&](Operation *user) {
      if (isa<memref::DeallocOp>(user))
        return true;
      auto lin = dyn_cast<linalg::LinalgOp>(user);
      return lin && lin->getNumResults() == 0 && lin.getNumDpsInits() == 1 &&
             lin.getDpsInitOperand(0)->get() == buffer &&
             llvm::none_of(lin.getDpsInputOperands(), [&](OpOperand *in) { return in->get() == buffer; });
    });
    if (!writeOnly)
      continue;
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(alloc);
  }
}

/// The runtime's convolution for element type `elem`, declared once in the module.
func::FuncOp LibraryCalls::convCallee(ModuleOp module, Type elem, StringRef kind) {
  std::string name = prefix + kind.str() + (elem.isF32() ? "f32" : elem.isBF16() ? "bf16" : "f16");
  // void <prefix>conv_<type>(i32 flags, i64 groups, i64 s0, s1, s2, p0,
  // p1, p2, d0, d1, d2, x, w, y): y = conv(x, w) + y (y not read with
  // kConvOverwrite), rank-5 (N, C, D, H, W) views, in the order of the
  // call's stream; see runtime/src/cuda/Dnn.cpp and runtime/src/cpu/Conv.cpp.
  MLIRContext *ctx = module.getContext();
  Type arg = convArgType(elem);
  SmallVector<Type> inputs{IntegerType::get(ctx, 32)};
  inputs.append(10, IntegerType::get(ctx, 64));
  inputs.append({arg, arg, arg});
  return declareCallee(module, name, inputs);
}

/// Replaces convolution `op` by a call of the runtime's cuDNN convolution.
/// A new 64-byte aligned buffer of `like`'s type and sizes.
static Value allocLike(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, like, i));
  return memref::AllocOp::create(b, loc, type, dynamicSizes, b.getI64IntegerAttr(64));
}

void LibraryCalls::rewriteDnnConv(IRRewriter &rewriter, ModuleOp module, linalg::LinalgOp op, DnnConvMatch &m) {
  Type elem = cast<MemRefType>(m.filter.getType()).getElementType();
  Type outElem = cast<MemRefType>(m.output.getType()).getElementType();
  int32_t flags = tf32Convs && elem.isF32() ? kConvTF32 : 0;
  if (constWeights && isConstWeight(m.filter))
    flags |= kConstWeight;
  bool overwrite = false;
  // The bias broadcast before and an activation after go into the call.
  ConvEpilogue ep;
  if (convEpilogues && (outElem == elem || (deviceCall && outElem.isF32() && (elem.isBF16() || elem.isF16()))))
    ep = matchConvEpilogue(op, m);
  if (ep.biasFill) {
    rewriter.eraseOp(ep.biasFill);
    overwrite = true;
  } else if (Operation *zero = zeroFillBefore(op, m.output)) {
    rewriter.eraseOp(zero);
    overwrite = true;
  }
  if (ep.output && !overwrite) {
    // The call would accumulate onto the activation's buffer, which does not
    // hold the output's starting values (a copied bias, an earlier result):
    // the convolution accumulates in place and the activation stays a loop.
    ep.activation = nullptr;
    ep.output = Value();
    ep.hoist = nullptr;
    ep.residual = Value();
  }
  if (ep.activation) {
    rewriter.eraseOp(ep.activation);
    flags |= ep.flag;
    if (ep.hoist)
      ep.hoist->moveBefore(op);
  }
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  // The activation's buffer is one the call reads (the convolution's own
  // input, matchConvEpilogue allows it where every earlier use may be
  // renamed): the call writes a fresh one, which every later use reads
  // instead.
  Value renamed;
  if (ep.activation && ep.output &&
      llvm::any_of(ValueRange{m.input, m.source}, [&](Value in) { return in && rootBuffer(in) == ep.output; })) {
    renamed = ep.output;
    ep.output = allocLike(rewriter, loc, renamed);
  } else if (m.freshOutput && !ep.output) {
    // The output's buffer is the unpadded input the call reads (matchPadding):
    // the call writes a fresh one. An initialiser the call did not take (the
    // call accumulates onto it) initialises the fresh buffer instead.
    renamed = m.output;
    OpBuilder::InsertionGuard guard(rewriter);
    if (!overwrite)
      rewriter.setInsertionPoint(m.outputInit);
    ep.output = allocLike(rewriter, loc, renamed);
    if (!overwrite)
      cast<linalg::LinalgOp>(m.outputInit).getDpsInitOperand(0)->set(ep.output);
  }
  int64_t k = static_cast<int64_t>(m.stride.size());
  // (N, G, C/G, ..) -> (N, C, ..) and (G, F/G, C/G, ..) -> (F, C/G, ..).
  auto merged = [&](Value v, int64_t first) {
    return m.grouped ? collapse(rewriter, loc, v, mergedChannels(k + 3, first)) : v;
  };
  Value x = m.source ? m.source : merged(m.input, m.groupDim());
  // An activation's own buffer has the merged output's type already.
  Value w = merged(m.filter, 0), y = ep.output ? ep.output : merged(m.output, m.groupDim());
  // A 16-bit convolution into a float32 accumulator: cuDNN writes a
  // 16-bit result of the accumulator's shape. Where the accumulator starts
  // at zero and only generic ops read it afterwards, they read the 16-bit
  // result instead (widening it themselves); otherwise one generated
  // kernel widens it into the accumulator.
  // A 16-bit convolution whose rounding (or ReLU, or residual add) went into
  // the call writes that op's 16-bit buffer instead.
  Value narrow;
  SmallVector<OpOperand *> readers;
  bool retarget = false;
  if (outElem != elem && !ep.output) {
    auto outType = cast<MemRefType>(m.output.getType());
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i < outType.getRank(); ++i)
      if (outType.isDynamicDim(i))
        dynamicSizes.push_back(memref::DimOp::create(rewriter, loc, m.output, i));
    narrow = memref::AllocOp::create(rewriter, loc, MemRefType::get(outType.getShape(), elem), dynamicSizes,
                                     rewriter.getI64IntegerAttr(64));
    retarget = overwrite && onlyReadAfter(op, m.output, readers);
  }
  if (overwrite || narrow)
    flags |= kConvOverwrite;
  // A 1x1 convolution in channels-last layout runs as the GEMM it is.
  Operation *call = pointwiseGemm(rewriter, module, loc, m, ep, x, w, narrow ? narrow : y, flags);
  if (!call) {
    SmallVector<Value> args{arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                            arith::ConstantIntOp::create(rewriter, loc, m.groups, 64)};
    // Per list, 3 - k leading unit dims (stride 1, padding 0, dilation 1).
    for (auto [list, unit] : {std::pair<ArrayRef<int64_t>, int64_t>{m.stride, 1}, {m.padding, 0}, {m.dilation, 1}})
      for (int64_t i = k; i < 3 + k; ++i)
        args.push_back(arith::ConstantIntOp::create(rewriter, loc, i < 3 ? unit : list[i - 3], 64));
    args.append({asConvArg(rewriter, loc, x, m.channelsLast), asConvArg(rewriter, loc, w, m.channelsLast),
                 asConvArg(rewriter, loc, narrow ? merged(narrow, m.groupDim()) : y, m.channelsLast)});
    if (ep.bias) {
      int64_t dyn = ShapedType::kDynamic;
      args.push_back(memref::CastOp::create(
          rewriter, loc, MemRefType::get({dyn}, elem, StridedLayoutAttr::get(&getContext(), dyn, {dyn})), ep.bias));
      if (ep.residual)
        args.push_back(asConvArg(rewriter, loc, ep.residual, m.channelsLast));
      call = func::CallOp::create(rewriter, loc,
                                  ep.residual ? convBiasAddCallee(module, elem) : convBiasCallee(module, elem), args);
    } else {
      call = func::CallOp::create(rewriter, loc, convCallee(module, elem), args);
    }
  }
  if (renamed) {
    renamed.replaceUsesWithIf(ep.output, [&](OpOperand &use) {
      Operation *anchor = call->getBlock()->findAncestorOpInBlock(*use.getOwner());
      return anchor && call->isBeforeInBlock(anchor);
    });
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(call);
    memref::DeallocOp::create(rewriter, loc, renamed);
  }
  if (retarget) {
    // The 16-bit result is freed after its last reader where the
    // accumulator lives on (reused for a later value).
    if (readers.empty() || !isa<memref::DeallocOp>(readers.back()->getOwner())) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(readers.empty() ? op.getOperation() : readers.back()->getOwner());
      memref::DeallocOp::create(rewriter, loc, narrow);
    }
    for (OpOperand *use : readers) {
      if (isa<memref::DeallocOp>(use->getOwner())) {
        use->set(narrow);
        continue;
      }
      auto generic = cast<linalg::GenericOp>(use->getOwner());
      BlockArgument arg = generic.getMatchingBlockArgument(use);
      use->set(narrow);
      arg.setType(elem);
      OpBuilder b = OpBuilder::atBlockBegin(generic.getBody());
      Value wide = arith::ExtFOp::create(b, generic.getLoc(), outElem, arg);
      arg.replaceAllUsesExcept(wide, wide.getDefiningOp());
    }
  } else if (narrow) {
    auto outType = cast<MemRefType>(m.output.getType());
    AffineMap id = rewriter.getMultiDimIdentityMap(outType.getRank());
    linalg::GenericOp::create(
        rewriter, loc, ValueRange{narrow}, ValueRange{m.output}, ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(outType.getRank(), utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange a) {
          Value v = arith::ExtFOp::create(nb, l, outElem, a[0]);
          if (!overwrite)
            v = arith::AddFOp::create(nb, l, a[1], v);
          linalg::YieldOp::create(nb, l, v);
        });
    memref::DeallocOp::create(rewriter, loc, narrow);
  }
  for (Operation *free : llvm::reverse(m.movedFrees))
    free->moveAfter(op);
  Value oldOutput = m.output;
  rewriter.eraseOp(op);
  if (retarget && oldOutput.use_empty())
    rewriter.eraseOp(oldOutput.getDefiningOp());
  for (Operation *dead : m.padOps)
    rewriter.eraseOp(dead);
}

/// Whether grouped convolution `m` has one input channel per group.
static bool isDepthwise(const DnnConvMatch &m) {
  if (!m.grouped)
    return false;
  // Filter (G, F/G, C/G, k..) channels first, (G, F/G, k.., C/G) channels last.
  auto w = cast<MemRefType>(m.filter.getType());
  return w.getDimSize(m.groupedLast ? w.getRank() - 1 : 2) == 1;
}

LogicalResult LibraryCalls::run(ModuleOp module) {
  SmallVector<std::pair<linalg::LinalgOp, GemmMatch>> gemmOps;
  SmallVector<std::pair<linalg::LinalgOp, ConvMatch>> convOps;
  SmallVector<std::pair<linalg::LinalgOp, DnnConvMatch>, 4> dnnConvs;
  SmallVector<std::pair<linalg::LinalgOp, ConvBackwardMatch>, 4> convBackwards;
  if (convs != "library" && convs != "gemm" && convs != "kernel")
    return module.emitError() << "library calls: convs must be library, gemm or kernel, not '" << convs << "'";
  if (gemms && deviceCall) {
    IRRewriter rewriter(module.getContext());
    readInputsThroughCopies(module, rewriter);
  }
  module.walk([&](linalg::LinalgOp op) {
    if (op->getParentOfType<gpu::LaunchOp>() || op->getParentOfType<gpu::GPUModuleOp>())
      return;
    // A convolution's gradient (ConvBackwardLibraryCalls.cpp).
    if (op->hasAttr(kiln::attrs::kConvBackward)) {
      if (auto m = matchConvBackward(op); convs == "library" && succeeded(m))
        convBackwards.emplace_back(op, *m);
      return;
    }
    if (gemms) {
      if (auto match = matchGemm(op); succeeded(match))
        return (void)gemmOps.emplace_back(op, *match);
    }
    if (convs == "library") {
      if (auto conv = matchDnnConv(op); succeeded(conv) && (depthwiseConvs || !isDepthwise(*conv)))
        dnnConvs.emplace_back(op, *conv);
    } else if (convs == "gemm") {
      if (auto conv = matchConv(op); succeeded(conv))
        convOps.emplace_back(op, *conv);
    }
  });
  IRRewriter rewriter(&getContext());
  llvm::DenseSet<Operation *> calls;
  for (auto &[op, g] : gemmOps)
    calls.insert(op);
  for (auto &[op, m] : convOps)
    calls.insert(op);
  for (auto &[op, m] : dnnConvs)
    calls.insert(op);
  for (auto &[op, m] : convBackwards)
    calls.insert(op);
  for (auto &[op, g] : gemmOps) {
    Value C = op.getDpsInitOperand(0)->get();
    int32_t flags = tf32Matmuls ? kGemmTF32 : 0;
    if (constWeights && isConstWeight(g.B.buffer))
      flags |= kConstWeight;
    Epilogue ep{.D = C, .dElem = cast<MemRefType>(C.getType()).getElementType()};
    if (epilogues)
      ep = matchEpilogue(op, g, calls);
    if (ep.biasFill) {
      rewriter.eraseOp(ep.biasFill);
      flags |= kGemmOverwrite | (ep.relu ? kGemmReLU : 0);
    } else if (Operation *zero = zeroFillBefore(op, C)) {
      rewriter.eraseOp(zero);
      flags |= kGemmOverwrite;
    }
    if (ep.hoist)
      rewriter.moveOpBefore(ep.hoist, op);
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    SmallVector<Value> copies;
    auto operand = [&](Value v, ArrayRef<ReassociationIndices> groups) {
      auto type = cast<MemRefType>(v.getType());
      Type elem = g.widened ? g.widened : type.getElementType();
      return elem == type.getElementType() && usableAsIs(type, groups)
                 ? v
                 : copies.emplace_back(contiguousCopy(rewriter, loc, v, elem));
    };
    Value A = operand(g.A.buffer, g.aGroups), B = operand(g.B.buffer, g.bGroups);
    Value D = ep.D;
    if (!D) {  // a fresh buffer of the rounded type, read by the consumer
      auto cType = cast<MemRefType>(C.getType());
      D = memref::AllocOp::create(rewriter, loc, MemRefType::get(cType.getShape(), ep.dElem),
                                  C.getDefiningOp<memref::AllocOp>().getDynamicSizes(),
                                  rewriter.getI64IntegerAttr(64));
    }
    Value a = collapse(rewriter, loc, A, g.aGroups), b = collapse(rewriter, loc, B, g.bGroups),
          d = collapse(rewriter, loc, D, g.cGroups);
    if (ep.bias) {
      Value bias = ep.biasCopy ? copies.emplace_back(contiguousCopy(rewriter, loc, ep.bias, ep.dElem)) : ep.bias;
      int64_t rank = cast<MemRefType>(bias.getType()).getRank();
      if (rank != 1) {
        ReassociationIndices all;
        for (int64_t i = 0; i < rank; ++i)
          all.push_back(i);
        bias = memref::CollapseShapeOp::create(rewriter, loc, bias, SmallVector<ReassociationIndices>{all});
      }
      int64_t dyn = ShapedType::kDynamic;
      bias = memref::CastOp::create(
          rewriter, loc, MemRefType::get({dyn}, ep.dElem, StridedLayoutAttr::get(&getContext(), dyn, {dyn})), bias);
      Type ab = cast<MemRefType>(a.getType()).getElementType();
      func::CallOp::create(rewriter, loc, gemmLtCallee(module, ab, ep.dElem),
                           ValueRange{arith::ConstantIntOp::create(rewriter, loc, g.A.transposed, 32),
                                      arith::ConstantIntOp::create(rewriter, loc, g.B.transposed, 32),
                                      arith::ConstantIntOp::create(rewriter, loc, flags, 32),
                                      asGemmArg(rewriter, loc, a), asGemmArg(rewriter, loc, b),
                                      asGemmArg(rewriter, loc, d), bias});
    } else {
      callGemm(rewriter, loc, module, g.A.transposed, g.B.transposed, flags, a, b, d);
    }
    for (Value copy : copies)
      memref::DeallocOp::create(rewriter, loc, copy);
    rewriter.eraseOp(op);
    if (ep.consumer && ep.eraseConsumer) {
      rewriter.eraseOp(ep.consumer);
    } else if (ep.consumer) {
      // The consumer reads D (rounded already) where it read C.
      auto l = cast<linalg::LinalgOp>(ep.consumer);
      for (OpOperand *in : l.getDpsInputOperands()) {
        if (in->get() != C)
          continue;
        BlockArgument arg = l.getMatchingBlockArgument(in);
        rewriter.modifyOpInPlace(ep.consumer, [&] { in->set(D); });
        for (Operation *round : llvm::to_vector(arg.getUsers())) {
          rewriter.replaceAllUsesWith(round->getResult(0), arg);
          rewriter.eraseOp(round);
        }
        arg.setType(ep.dElem);
      }
      rewriter.setInsertionPointAfter(ep.consumer);
      memref::DeallocOp::create(rewriter, loc, D);
    }
  }
  for (auto &[op, m] : convOps)
    rewriteConv(rewriter, module, op, m);
  // A convolution's rewrite may make a fresh buffer stand for one that later
  // ops read (an activation's buffer its call reads, see rewriteDnnConv), so
  // each convolution is matched again on the IR as it is now, just before
  // its own rewrite; one that no longer matches stays a loop nest.
  for (auto &[op, m] : dnnConvs)
    if (auto again = matchDnnConv(op); succeeded(again))
      rewriteDnnConv(rewriter, module, op, *again);
  for (auto &[op, m] : convBackwards)
    if (auto again = matchConvBackward(op); succeeded(again))
      rewriteConvBackward(rewriter, module, op, *again);
  if (epilogues)
    dropUnreadBuffers(module, rewriter);
  eraseWriteOnlyBuffers(module, rewriter);
  return success();
}

bool LibraryCalls::isConstWeight(Value weight) {
  auto arg = dyn_cast<BlockArgument>(rootBuffer(weight));
  auto fn = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : func::FuncOp();
  if (!fn || arg.getOwner() != &fn.getBody().front())
    return false;
  auto kind = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kiln::attrs::kKind);
  auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kiln::attrs::kName);
  if (!kind || kind.getValue() == "input" || !name)
    return false;
  // A weight a run updates (a buffer written back, as batch norm's running
  // statistics in training) changes between runs.
  for (unsigned r = 0; r < fn.getNumResults(); ++r)
    if (fn.getResultAttr(r, kiln::attrs::kUpdate) && fn.getResultAttrOfType<StringAttr>(r, kiln::attrs::kName) == name)
      return false;
  // Nothing in the function writes it either.
  bool written = false;
  fn.walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (auto &e : list)
      if (isa<MemoryEffects::Write>(e.getEffect()) && e.getValue() && rootBuffer(e.getValue()) == arg)
        written = true;
  });
  return !written;
}
