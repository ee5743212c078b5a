//===- LibraryCallConvEpilogue.cpp - a convolution's bias, residual add and activation folded into the runtime's call ===//
//
// A convolution with a bias is lowered as a broadcast of the bias into the
// output followed by the convolution accumulating into it, and an activation
// after it (ReLU, hardswish, SiLU, sigmoid), or a residual added before it,
// as a loop over the output. oneDNN takes all of them itself (its bias, a
// binary-add and an eltwise post-op), and cuDNN the bias and a ReLU
// (cudnnConvolutionBiasActivationForward), so the call writes each output
// once instead of three passes over it (docs/Rationale/cpu-library-calls.md,
// docs/cuda.md).
//
//===----------------------------------------------------------------------===//
#include "LibraryCalls.h"
#include "ATen/IR/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kiln::libcalls;

/// The nearest op before (`forward` false) or after `op` in its block that
/// touches buffer `root` other than by making a view of it (the reshapes
/// that split and merge a grouped convolution's channels), or null.
static Operation *nearestAccess(Operation *op, Value root, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (touches(o, root) && !(o->getNumRegions() == 0 && isMemoryEffectFree(o)))
      return o;
  return nullptr;
}

/// The KILN_CPU_* bit of the activation `v` computes of `x`, in the forms
/// kiln's elementwise lowering writes them: max(x, 0); x * min(max(x + 3,
/// 0), 6) / 6; x / (1 + exp(-x)); 1 / (1 + exp(-x)). 0 for anything else.
static int32_t activationOf(Value v, Value x) {
  Value r;
  if (LibraryCalls::isRelu(v, r))
    return r == x ? KILN_CPU_RELU : 0;
  auto isConst = [](Value c, double want) {
    FloatAttr a;
    return matchPattern(c, m_Constant(&a)) && a.getValueAsDouble() == want;
  };
  // 1 + exp(-x), either operand order.
  auto onePlusExpNeg = [&](Value d) {
    auto add = d.getDefiningOp<arith::AddFOp>();
    if (!add)
      return false;
    for (int i = 0; i < 2; ++i) {
      auto e = add->getOperand(1 - i).getDefiningOp<math::ExpOp>();
      auto n = e ? e.getOperand().getDefiningOp<arith::NegFOp>() : arith::NegFOp();
      if (isConst(add->getOperand(i), 1.0) && n && n.getOperand() == x)
        return true;
    }
    return false;
  };
  if (auto div = v.getDefiningOp<arith::DivFOp>()) {
    if (onePlusExpNeg(div.getRhs()))
      return div.getLhs() == x ? KILN_CPU_SILU : isConst(div.getLhs(), 1.0) ? KILN_CPU_SIGMOID : 0;
    // x * min(max(x + 3, 0), 6) / 6
    auto mul = div.getLhs().getDefiningOp<arith::MulFOp>();
    if (!mul || !isConst(div.getRhs(), 6.0))
      return 0;
    Value r6 = mul.getLhs() == x ? mul.getRhs() : mul.getRhs() == x ? mul.getLhs() : Value();
    auto mn = r6 ? r6.getDefiningOp<arith::MinimumFOp>() : arith::MinimumFOp();
    auto mx = mn ? mn.getLhs().getDefiningOp<arith::MaximumFOp>() : arith::MaximumFOp();
    auto add = mx ? mx.getLhs().getDefiningOp<arith::AddFOp>() : arith::AddFOp();
    if (mn && isConst(mn.getRhs(), 6.0) && mx && isConst(mx.getRhs(), 0.0) && add && add.getLhs() == x &&
        isConst(add.getRhs(), 3.0))
      return KILN_CPU_HARDSWISH;
  }
  return 0;
}

/// Whether a grouped convolution's output `m.output` is `root` itself with
/// its channels split into (groups, channels per group) by one expand_shape:
/// what the call's merged output is, so another buffer of root's type can
/// stand for it (a depthwise convolution's activation into a buffer of its
/// own).
static bool splitsGroups(const DnnConvMatch &m, Value root) {
  auto expand = m.output.getDefiningOp<memref::ExpandShapeOp>();
  if (!m.grouped || !expand || expand.getSrc() != root)
    return false;
  return expand.getReassociationIndices() ==
         mergedChannels(cast<MemRefType>(m.output.getType()).getRank(), m.groupDim());
}

/// `v` with the roundings to `t` and widenings from it kiln's elementwise
/// lowering writes around each 16-bit op peeled off (`v` itself when `t` is
/// null, a float32 convolution).
static Value peel(Value v, Type t) {
  if (!t)
    return v;
  while (true) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>(); ext && ext.getIn().getType() == t)
      v = ext.getIn();
    else if (Value in = LibraryCalls::unround(v, t))
      v = in;
    else
      return v;
  }
}

/// Whether `op` calls one of the runtime's library entries (one this pass
/// declared: a device call, or a CPU entry named `prefix`..., an earlier
/// convolution's say), which keep no operand.
static bool isLibraryCall(Operation *op, StringRef prefix) {
  auto call = dyn_cast<func::CallOp>(op);
  auto callee = call ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr()) : nullptr;
  return callee && callee.isDeclaration() &&
         (callee->hasAttr(kiln::attrs::kDeviceCall) || callee.getName().starts_with(prefix));
}

/// Whether every use of buffer `buf` (an allocation in `at`'s block) after
/// `at` may read another buffer instead: its users before `at` are ops of
/// that block that do not let it escape (linalg ops, copies, library calls,
/// views used only before `at`), so that no alias made before `at` is read
/// after it.
static bool renamableAfter(Operation *at, Value buf, StringRef prefix) {
  Block *block = at->getBlock();
  SmallVector<Value> work{buf};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      Operation *anchor = block->findAncestorOpInBlock(*user);
      if (!anchor)
        return false;
      bool before = anchor->isBeforeInBlock(at);
      if (v != buf && !before)
        return false;  // a view made before `at`, read after it
      if (!before)
        continue;
      if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        work.push_back(meta.getBaseBuffer());  // how a library call's operands are viewed
      } else if (isa<ViewLikeOpInterface, memref::ReinterpretCastOp, memref::CastOp>(user)) {
        if (user->getNumResults() != 1)
          return false;
        work.push_back(user->getResult(0));
      } else if (isa<memref::DimOp>(user)) {
        continue;
      } else if (!isa<linalg::LinalgOp, memref::CopyOp>(user) && !isLibraryCall(user, prefix)) {
        return false;
      }
    }
  }
  return true;
}

ConvEpilogue LibraryCalls::matchConvEpilogue(linalg::LinalgOp op, const DnnConvMatch &m) {
  ConvEpilogue ep;
  Value root = rootBuffer(m.output);
  auto rootType = dyn_cast<MemRefType>(root.getType());
  int64_t k = static_cast<int64_t>(m.stride.size());
  Type elem = cast<MemRefType>(m.filter.getType()).getElementType();
  // A 16-bit convolution (GPU) accumulates in float32 and is rounded to its
  // type after: `t` that type, null for a float32 one.
  Type t = deviceCall && (elem.isBF16() || elem.isF16()) ? elem : Type();
  if (!rootType || !rootType.getElementType().isF32() || rootType.getRank() != k + 2 || !(elem.isF32() || t))
    return ep;
  // The whole output is what the call writes: the root buffer is the
  // output (its groups merged back), so an op writing the root writes it.
  int64_t outputElems = cast<MemRefType>(m.output.getType()).getNumElements();
  if (!rootType.hasStaticShape() || rootType.getNumElements() != outputElems)
    return ep;
  // What the call writes: the output's type, or its 16-bit counterpart.
  auto callType = t ? MemRefType::get(rootType.getShape(), t) : rootType;
  // The output channel dim of the root: channels first, or last (NHWC; a
  // grouped one's (G, F/G) pair merged back into F).
  int64_t channelDim = m.groupedLast ? k + 1 : m.channelsLast.empty() ? 1 : m.channelsLast[1];
  MLIRContext *ctx = op->getContext();
  auto wholeElementwise = [&](linalg::LinalgOp l) {
    return l && l.hasPureBufferSemantics() && l.getNumDpsInits() == 1 && l->getNumResults() == 0 &&
           l.getDpsInitOperand(0)->get() == root && l.getNumParallelLoops() == l.getNumLoops() &&
           l.getMatchingIndexingMap(l.getDpsInitOperand(0)).isIdentity();
  };

  // Before: every element of the output set to bias[channel] (a 16-bit
  // bias widened).
  auto fill = dyn_cast_or_null<linalg::LinalgOp>(nearestAccess(op, root, /*forward=*/false));
  if (wholeElementwise(fill) && fill.getNumDpsInputs() == 1 && overwritesWhole(fill, root)) {
    OpOperand *in = fill.getDpsInputOperand(0);
    auto xType = dyn_cast<MemRefType>(in->get().getType());
    AffineMap map = fill.getMatchingIndexingMap(in);
    auto yield = cast<linalg::YieldOp>(fill.getBlock()->getTerminator());
    if (xType && xType.getRank() == 1 && xType.getElementType() == (t ? t : elem) && xType.getLayout().isIdentity() &&
        xType.getDimSize(0) == rootType.getDimSize(channelDim) && map.getNumResults() == 1 &&
        map.getResult(0) == getAffineDimExpr(channelDim, ctx) && yield.getNumOperands() == 1 &&
        (t ? stripExt(yield.getOperand(0)) : yield.getOperand(0)) == fill.getMatchingBlockArgument(in) &&
        untouchedBetween(fill, op, {rootBuffer(in->get())})) {
      ep.biasFill = fill;
      ep.bias = in->get();
    }
  }

  // After: the activation of every element (of the output plus a residual
  // of the output's type, with a bias), into the output itself or, if the
  // output dies there, into a buffer of the activation's own (the call then
  // writes that buffer). A 16-bit convolution's is its rounding (with a
  // ReLU, or a residual added), into a 16-bit buffer of its own.
  auto next = dyn_cast_or_null<linalg::LinalgOp>(nearestAccess(op, root, /*forward=*/true));
  if (!next || !next.hasPureBufferSemantics() || next.getNumDpsInits() != 1 || next->getNumResults() != 0 ||
      next.getNumParallelLoops() != next.getNumLoops() ||
      !next.getMatchingIndexingMap(next.getDpsInitOperand(0)).isIdentity() ||
      !next.getMatchingBlockArgument(next.getDpsInitOperand(0)).use_empty() ||
      llvm::any_of(next.getDpsInputOperands(),
                   [&](OpOperand *in) { return !next.getMatchingIndexingMap(in).isIdentity(); }))
    return ep;
  auto yield = cast<linalg::YieldOp>(next.getBlock()->getTerminator());
  if (yield.getNumOperands() != 1)
    return ep;
  int32_t flag = 0;
  Value residual;
  Value result = peel(yield.getOperand(0), t);
  if (next.getNumDpsInputs() == 1 && next.getDpsInputOperand(0)->get() == root) {
    Value a = next.getMatchingBlockArgument(next.getDpsInputOperand(0)), x;
    if (t)  // round(a), or the ReLU of it (which commutes with the rounding)
      flag = result == a ? 0 : LibraryCalls::isRelu(result, x) && peel(x, t) == a ? KILN_CPU_RELU : -1;
    else
      flag = activationOf(result, a);
    if (flag < 0 || (!flag && !t))
      return ep;
  } else if (next.getNumDpsInputs() == 2 && ep.bias) {
    // act(output + r) or output + r, r a buffer of the output's type the
    // call does not write, defined before it, unchanged until the add.
    int self = next.getDpsInputOperand(0)->get() == root ? 0 : 1;
    OpOperand *other = next.getDpsInputOperand(1 - self);
    Value a = next.getMatchingBlockArgument(next.getDpsInputOperand(self)), r = other->get();
    auto add = result.getDefiningOp<arith::AddFOp>();
    if (!add) {
      Value x;
      if (LibraryCalls::isRelu(result, x))
        add = peel(x, t).getDefiningOp<arith::AddFOp>();
      else if (auto div = result.getDefiningOp<arith::DivFOp>(); div && !t)
        add = div.getLhs().getDefiningOp<arith::AddFOp>();
      if (!add)
        return ep;
      flag = t ? KILN_CPU_RELU : activationOf(result, add);
      if (!flag)
        return ep;
    }
    Value b = next.getMatchingBlockArgument(other);
    Value lhs = peel(add.getLhs(), t), rhs = peel(add.getRhs(), t);
    if (next.getDpsInputOperand(self)->get() != root || r == root || r.getType() != callType ||
        !((lhs == a && rhs == b) || (lhs == b && rhs == a)) || rootBuffer(r) == root ||
        !untouchedBetween(op, next, {rootBuffer(r)}))
      return ep;
    if (Operation *def = r.getDefiningOp())
      if (def->getBlock() == op->getBlock() && !def->isBeforeInBlock(op))
        return ep;
    residual = r;
  } else {
    return ep;
  }
  // Only what the target's conv_bias entry applies (ReLU alone on the GPU), and a
  // residual only where it has a conv_bias_add entry; a 16-bit ReLU or residual
  // only with the bias (the fused call).
  // On the GPU a residual goes into a 16-bit call only: the float32 fused call
  // with z measured slower than the add in the ReLU's loop (ResNet-50 b1 on
  // an H200, docs/performance.md).
  if ((flag && !(flag & convActivations)) || (residual && (!convResidual || (deviceCall && !t))) ||
      (t && flag && !ep.bias))
    return ep;
  Value out = next.getDpsInitOperand(0)->get();
  if (out != root || t) {
    // Another buffer: a whole allocation of the output's type that nothing
    // touches between the call and the activation, the output dead after.
    auto alloc = out.getDefiningOp<memref::AllocOp>();
    if (!(m.output == root || splitsGroups(m, root)) || !alloc || out.getType() != callType ||
        alloc->getNumOperands() != 0 ||
        alloc->getBlock() != op->getBlock() || !deadAfter(next, root) || !untouchedBetween(op, next, {out}))
      return ep;
    // Not a buffer the call reads: an earlier output whose buffer the
    // activation reuses can be the convolution's own input (padded through
    // a copy the call now reads past, or read directly: a depthwise
    // convolution's SiLU or hardswish into the buffer of the 1x1
    // convolution before it). The call then writes a fresh buffer that
    // takes the activation's place from there on.
    // (cuDNN's residual z may be the buffer it writes: the add in place.)
    for (Value in : {m.input, m.source, m.filter, residual}) {
      if (!in || rootBuffer(in) != out || (deviceCall && in == residual && residual == out))
        continue;
      if ((in != m.input && in != m.source) || (residual && rootBuffer(residual) == out) ||
          !renamableAfter(next, out, prefix))
        return ep;
    }
    if (!alloc->isBeforeInBlock(op))
      ep.hoist = alloc;
    ep.output = out;
  }
  ep.activation = next;
  ep.flag = flag;
  ep.residual = residual;
  return ep;
}

func::FuncOp LibraryCalls::convBiasCallee(ModuleOp module, Type elem) { return convBiasCallee(module, false, elem); }

func::FuncOp LibraryCalls::convBiasAddCallee(ModuleOp module, Type elem) { return convBiasCallee(module, true, elem); }

func::FuncOp LibraryCalls::convBiasCallee(ModuleOp module, bool residual, Type elem) {
  std::string name = prefix + (residual ? "conv_bias_add_" : "conv_bias_") +
                     (elem.isF32() ? "f32" : elem.isBF16() ? "bf16" : "f16");
  MLIRContext *ctx = module.getContext();
  Type arg = convArgType(elem);
  int64_t dyn = ShapedType::kDynamic;
  Type bias = MemRefType::get({dyn}, elem, StridedLayoutAttr::get(ctx, dyn, {dyn}));
  SmallVector<Type> inputs{IntegerType::get(ctx, 32)};
  inputs.append(10, IntegerType::get(ctx, 64));
  inputs.append({arg, arg, arg, bias});
  if (residual)
    inputs.push_back(arg);
  return declareCallee(module, name, inputs);
}
