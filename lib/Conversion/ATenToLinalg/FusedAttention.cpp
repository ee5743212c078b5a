//===- FusedAttention.cpp - scaled_dot_product_attention as a fused-kernel call of the CUDA runtime ===//
//
// kiln-gpu-fused-attention (CUDA pipeline, before the aten-to-linalg
// lowering) turns each scaled_dot_product_attention the runtime's fused
// kernel can run into a call of kiln_gpu_sdpa_<type>[_boolmask|_addmask]
// (runtime/src/cuda/Attention.cpp) on buffers: read-only views of the
// operands go in, a fresh buffer comes out and becomes a tensor again. A
// permuted operand (the heads split out of a projection, [B, S, H, E] ->
// [B, H, S, E]) is passed as a strided view of its source, and a result
// whose only use permutes it back is written in that layout, so neither
// side is copied. Keys and values repeated for the query heads (repeat_kv)
// are read unrepeated as grouped-query attention, and a mask that only
// allows keys at or before each query's position (a causal mask combined
// with others, as Hugging Face models build it) also sets the kernel's
// causal flag, so it skips the key tiles after the diagonal. Attention the kernel does not cover keeps the
// decomposition of Attention.cpp. Design: docs/Rationale/gpu-fused-attention.md.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/abi/gpu_calls.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_KILNGPUFUSEDATTENTION
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln::aten;

namespace {

/// Head sizes (E and Ev) up to this run fused (the kernels' largest tile).
constexpr int64_t kMaxHeadSize = 128;

/// The rank-4 fully dynamic strided memref of `elem` the runtime takes.
MemRefType callArgType(Type elem) {
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d, d, d}, elem, StridedLayoutAttr::get(elem.getContext(), d, {d, d, d, d}));
}

/// `shape` x `elem` with a fully dynamic strided layout (any buffer casts to it).
MemRefType stridedType(ArrayRef<int64_t> shape, Type elem) {
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get(shape, elem,
                         StridedLayoutAttr::get(elem.getContext(), d, SmallVector<int64_t>(shape.size(), d)));
}

/// `v` with leading unit dims up to rank 4.
Value toRank4(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank(), extra = 4 - rank;
  if (extra == 0)
    return v;
  SmallVector<int64_t> shape(extra, 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<ReassociationIndices> reassoc;
  ReassociationIndices first;
  for (int64_t i = 0; i <= extra; ++i)
    first.push_back(i);
  reassoc.push_back(first);
  for (int64_t i = 1; i < rank; ++i)
    reassoc.push_back({extra + i});
  SmallVector<OpFoldResult> sizes(extra, b.getIndexAttr(1));
  llvm::append_range(sizes, kiln::detail::getSizes(b, loc, v));
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), v, reassoc,
                                       sizes);
}

struct Match {
  Type elem;
  int32_t group = 1;
  double scale;
  enum { None, Bool, Add } mask = None;
};

/// Whether the fused kernel computes `op` exactly as aten does, and is the
/// faster path (float32 with scores of at most `f32ScoresMib` MiB runs
/// faster decomposed); why not otherwise.
FailureOr<Match> match(ScaledDotProductAttentionOp op, std::string &why, int64_t f32ScoresMib) {
  auto fail = [&](const char *reason) {
    why = reason;
    return failure();
  };
  if (op.getDropoutP().convertToDouble() != 0.0)
    return fail("dropout_p != 0");
  auto q = cast<RankedTensorType>(op.getQuery().getType()), k = cast<RankedTensorType>(op.getKey().getType()),
       v = cast<RankedTensorType>(op.getValue().getType());
  auto out = dyn_cast<RankedTensorType>(op.getType());
  Match m;
  m.elem = q.getElementType();
  if (!m.elem.isF32() && !m.elem.isBF16() && !m.elem.isF16())
    return fail("not float32, bfloat16 or float16");
  if (k.getElementType() != m.elem || v.getElementType() != m.elem || !out || out.getElementType() != m.elem)
    return fail("mixed element types");
  int64_t rank = q.getRank();
  if (rank < 2 || rank > 4 || k.getRank() != rank || v.getRank() != rank || out.getRank() != rank)
    return fail("not query, key, value and result of one rank from 2 to 4");
  int64_t e = q.getDimSize(rank - 1), ev = v.getDimSize(rank - 1);
  if (ShapedType::isDynamic(e) || ShapedType::isDynamic(ev) || e < 1 || ev < 1 || e > kMaxHeadSize ||
      ev > kMaxHeadSize)
    return fail("head sizes not static or above 128");
  m.scale = op.getScale() ? op.getScale()->convertToDouble() : 1.0 / std::sqrt(static_cast<double>(e));
  if (m.elem.isF32() && f32ScoresMib > 0 && q.hasStaticShape() && k.hasStaticShape()) {
    // Scores: the query's batch dims, L and the key's S, as float32.
    double scores = 4.0 * static_cast<double>(k.getDimSize(rank - 2));
    for (int64_t i = 0; i < rank - 1; ++i)
      scores *= static_cast<double>(q.getDimSize(i));
    if (scores <= static_cast<double>(f32ScoresMib) * (1 << 20))
      return fail("float32 with scores small enough to decompose (cuBLAS GEMMs are faster)");
  }
  if (op.getEnableGqa() && rank >= 3) {
    int64_t hq = q.getDimSize(rank - 3), hk = k.getDimSize(rank - 3);
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) || hk < 1 || hq % hk)
      return fail("grouped-query heads not static");
    m.group = static_cast<int32_t>(hq / hk);
  }
  if (Value mask = op.getAttnMask()) {
    auto mt = cast<RankedTensorType>(mask.getType());
    if (mt.getRank() < 1 || mt.getRank() > 4)
      return fail("mask rank not 1 to 4");
    if (mt.getElementType().isInteger(1))
      m.mask = Match::Bool;
    else if (mt.getElementType() == m.elem)
      m.mask = Match::Add;
    else
      return fail("mask neither bool nor of the query's type");
  }
  return m;
}

/// Strips an aten.permute off a rank-4 operand: its source and the
/// permutation (result dim i is source dim perm[i]), or `v` and none.
std::pair<Value, SmallVector<int64_t>> peelPermute(Value v) {
  if (auto p = v.getDefiningOp<PermuteOp>())
    if (cast<RankedTensorType>(p.getType()).getRank() == 4)
      return {p.getSelf(), SmallVector<int64_t>(p.getDims())};
  return {v, {}};
}

/// Strips a repeat of key/value heads off rank-4 `v`, as Llama-family
/// attention writes grouped-query attention (repeat_kv):
/// reshape(expand(unsqueeze(x, 2), [B, Hk, G, S, E]), [B, Hk * G, S, E]).
/// Head h of the result is head h / G of x, which is what the kernel reads
/// with group G: x and G, or `v` and 1.
std::pair<Value, int64_t> peelRepeatedHeads(Value v) {
  auto view = v.getDefiningOp<ViewOp>();
  auto ex = view ? view.getSelf().getDefiningOp<ExpandOp>() : ExpandOp();
  auto un = ex ? ex.getSelf().getDefiningOp<UnsqueezeOp>() : UnsqueezeOp();
  if (!un)
    return {v, 1};
  Value x = un.getSelf();
  auto xt = cast<RankedTensorType>(x.getType()), et = cast<RankedTensorType>(ex.getType()),
       vt = cast<RankedTensorType>(v.getType());
  int64_t dim = un.getDim() < 0 ? un.getDim() + 5 : un.getDim();
  if (xt.getRank() != 4 || et.getRank() != 5 || vt.getRank() != 4 || dim != 2)
    return {v, 1};
  int64_t hk = xt.getDimSize(1), g = et.getDimSize(2);
  if (ShapedType::isDynamic(hk) || ShapedType::isDynamic(g) || g < 1 || vt.getDimSize(1) != hk * g)
    return {v, 1};
  // Every other dim is the source's, unchanged.
  for (auto [xd, ed, vd] : {std::tuple{0, 0, 0}, {1, 1, -1}, {2, 3, 2}, {3, 4, 3}})
    if (et.getDimSize(ed) != xt.getDimSize(xd) || (vd >= 0 && vt.getDimSize(vd) != xt.getDimSize(xd)))
      return {v, 1};
  // With B or S dynamic (not both) the element count fixes the other.
  if (ShapedType::isDynamic(vt.getDimSize(2)) && ShapedType::isDynamic(vt.getDimSize(0)))
    return {v, 1};
  return {x, g};
}

/// The integer constant every element of `v` holds, if it is a splat constant.
std::optional<int64_t> splatInt(Value v) {
  DenseIntElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APInt>().getSExtValue();
}

/// Where `v` holds, at every position, that position's index along one of
/// its dims plus a constant: that dim, counted from the last (0), and the
/// constant. Seen through arange(start, end, 1), the addition of an integer
/// constant, unsqueezes, integer copies and expands that keep the dim's size.
std::optional<std::pair<int64_t, int64_t>> indexAlong(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto rankOf = [](Value x) { return cast<RankedTensorType>(x.getType()).getRank(); };
  if (auto a = dyn_cast<ArangeOp>(op)) {
    auto start = dyn_cast_or_null<IntegerAttr>(a.getStartAttr());
    auto step = dyn_cast_or_null<IntegerAttr>(a.getStepAttr());
    if (!start || !step || step.getInt() != 1 || rankOf(v) != 1)
      return std::nullopt;
    return std::pair<int64_t, int64_t>{0, start.getInt()};
  }
  if (auto add = dyn_cast<AddTensorOp>(op)) {
    if (add.getAlpha().convertToDouble() != 1.0 || rankOf(add.getOther()) > rankOf(v))
      return std::nullopt;
    for (auto [x, c] : {std::pair{add.getSelf(), add.getOther()}, {add.getOther(), add.getSelf()}}) {
      std::optional<int64_t> k = splatInt(c);
      if (!k || cast<RankedTensorType>(x.getType()).getShape() != cast<RankedTensorType>(v.getType()).getShape())
        continue;
      if (auto idx = indexAlong(x))
        return std::pair<int64_t, int64_t>{idx->first, idx->second + *k};
    }
    return std::nullopt;
  }
  if (auto un = dyn_cast<UnsqueezeOp>(op)) {
    auto idx = indexAlong(un.getSelf());
    if (!idx)
      return std::nullopt;
    int64_t r = rankOf(v), d = un.getDim() < 0 ? un.getDim() + r : un.getDim();
    int64_t pos = rankOf(un.getSelf()) - 1 - idx->first; // the index dim in the source
    if (d <= pos)
      ++pos;
    return std::pair<int64_t, int64_t>{r - 1 - pos, idx->second};
  }
  if (auto copy = dyn_cast<ToCopyOp>(op)) {
    auto from = cast<RankedTensorType>(copy.getSelf().getType()).getElementType();
    auto to = cast<RankedTensorType>(v.getType()).getElementType();
    if (!isa<IntegerType>(from) || !isa<IntegerType>(to) || to.getIntOrFloatBitWidth() < 32 ||
        to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth())
      return std::nullopt;
    return indexAlong(copy.getSelf());
  }
  if (auto ex = dyn_cast<ExpandOp>(op)) {
    auto idx = indexAlong(ex.getSelf());
    auto st = cast<RankedTensorType>(ex.getSelf().getType()), rt = cast<RankedTensorType>(v.getType());
    if (!idx)
      return std::nullopt;
    int64_t n = st.getDimSize(st.getRank() - 1 - idx->first);
    if (ShapedType::isDynamic(n) || rt.getDimSize(rt.getRank() - 1 - idx->first) != n)
      return std::nullopt;
    return idx;
  }
  return std::nullopt;
}

/// Whether boolean `mask` is false wherever the key comes after the query
/// (mask[.., i, j] implies j <= i, the kernel's causal rule): a comparison
/// of key and query positions (j + a <= i + b with b <= a, or j + a < i + b
/// with b <= a + 1, either way round), or a conjunction with one, through
/// copies and expands that keep the last two dims.
bool impliesCausal(Value mask) {
  auto type = dyn_cast<RankedTensorType>(mask.getType());
  if (!type || type.getRank() < 2 || !type.getElementType().isInteger(1))
    return false;
  auto lastTwo = [&](Value x) {
    auto t = cast<RankedTensorType>(x.getType());
    return t.getRank() >= 2 && t.getDimSize(t.getRank() - 1) == type.getDimSize(type.getRank() - 1) &&
           t.getDimSize(t.getRank() - 2) == type.getDimSize(type.getRank() - 2) &&
           !ShapedType::isDynamic(t.getDimSize(t.getRank() - 1)) &&
           !ShapedType::isDynamic(t.getDimSize(t.getRank() - 2));
  };
  Operation *op = mask.getDefiningOp();
  if (!op || !lastTwo(mask))
    return false;
  if (isa<BitwiseAndTensorOp, LogicalAndOp>(op))
    return llvm::any_of(op->getOperands(), [&](Value x) { return lastTwo(x) && impliesCausal(x); });
  if (isa<ToCopyOp, ExpandOp>(op))
    return lastTwo(op->getOperand(0)) && impliesCausal(op->getOperand(0));
  // key <= query (le, or ge the other way round); key < query (lt, gt).
  Value key, query;
  bool strict = false;
  if (auto c = dyn_cast<LeTensorOp>(op))
    key = c.getSelf(), query = c.getOther();
  else if (auto c = dyn_cast<GeTensorOp>(op))
    key = c.getOther(), query = c.getSelf();
  else if (auto c = dyn_cast<LtTensorOp>(op))
    key = c.getSelf(), query = c.getOther(), strict = true;
  else if (auto c = dyn_cast<GtTensorOp>(op))
    key = c.getOther(), query = c.getSelf(), strict = true;
  else
    return false;
  auto j = indexAlong(key), i = indexAlong(query);
  // The positions must run along the mask's own last two dims, not
  // broadcast ones: each operand of the comparison as long as the mask there.
  auto along = [&](Value x, int64_t fromEnd) {
    auto t = cast<RankedTensorType>(x.getType());
    return t.getDimSize(t.getRank() - 1 - fromEnd) == type.getDimSize(type.getRank() - 1 - fromEnd);
  };
  if (!j || !i || j->first != 0 || i->first != 1 || !along(key, 0) || !along(query, 1))
    return false;
  // j + a (<|<=) i + b, i.e. j (<|<=) i + (b - a).
  int64_t slack = i->second - j->second - (strict ? 1 : 0);
  return slack <= 0;
}

/// `buf` viewed with its dims permuted (view dim i = `buf` dim perm[i]) as
/// the call's rank-4 type: a reinterpret_cast of its own metadata (a view
/// the GPU passes see through, unlike memref.transpose).
Value permutedView(OpBuilder &b, Location loc, Value buf, ArrayRef<int64_t> perm) {
  auto md = memref::ExtractStridedMetadataOp::create(b, loc, buf);
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t i : perm) {
    sizes.push_back(md.getSizes()[i]);
    strides.push_back(md.getStrides()[i]);
  }
  return memref::ReinterpretCastOp::create(b, loc, callArgType(cast<MemRefType>(buf.getType()).getElementType()),
                                           buf, OpFoldResult(md.getOffset()), sizes, strides);
}

struct KilnGPUFusedAttentionPass : kiln::impl::KilnGPUFusedAttentionBase<KilnGPUFusedAttentionPass> {
  using Base::Base;

  int64_t nextOperand = 0;

  func::FuncOp callee(ModuleOp module, const Match &m) {
    std::string name = KILN_GPU_SDPA_PREFIX;
    name += m.elem.isF32() ? "f32" : m.elem.isBF16() ? "bf16" : "f16";
    if (m.mask != Match::None)
      name += m.mask == Match::Bool ? KILN_GPU_SDPA_BOOL_MASK_SUFFIX : KILN_GPU_SDPA_ADD_MASK_SUFFIX;
    if (auto f = dyn_cast_or_null<func::FuncOp>(SymbolTable::lookupSymbolIn(module, name)))
      return f;
    // void kiln_gpu_sdpa_<type>[_<mask>](q, k, v, [mask,] out, i32 causal,
    // i32 group, f32 scale): runtime/src/cuda/Attention.cpp.
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    MemRefType arg = callArgType(m.elem);
    SmallVector<Type> args{arg, arg, arg};
    if (m.mask != Match::None)
      args.push_back(callArgType(m.mask == Match::Bool ? mb.getI1Type() : m.elem));
    args.append({arg, mb.getI32Type(), mb.getI32Type(), mb.getF32Type()});
    auto f = func::FuncOp::create(mb, module.getLoc(), name, mb.getFunctionType(args, {}));
    f.setPrivate();
    f->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
    f->setAttr(kiln::attrs::kDeviceCall, mb.getUnitAttr());
    return f;
  }

  /// A read-only rank-4 view of tensor `v` for the call (a permuted operand
  /// as a transposed view of its source). Each to_buffer carries its own
  /// marker, so CSE never merges two calls' reads into one: one-shot
  /// bufferization sees each read where its call stands.
  Value operandView(OpBuilder &b, Location loc, Value v, bool peel) {
    auto [src, perm] = peel ? peelPermute(v) : std::pair<Value, SmallVector<int64_t>>{v, {}};
    if (perm.empty())
      src = toRank4(b, loc, v);
    auto type = cast<RankedTensorType>(src.getType());
    auto toBuffer = bufferization::ToBufferOp::create(b, loc, stridedType(type.getShape(), type.getElementType()),
                                                      src, /*read_only=*/true);
    toBuffer->setAttr(kiln::attrs::kFusedAttentionOperand, b.getI64IntegerAttr(nextOperand++));
    if (!perm.empty())
      return permutedView(b, loc, toBuffer, perm);
    return memref::CastOp::create(b, loc, callArgType(type.getElementType()), toBuffer);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ScaledDotProductAttentionOp> ops;
    module.walk([&](ScaledDotProductAttentionOp op) { ops.push_back(op); });
    IRRewriter b(&getContext());
    for (ScaledDotProductAttentionOp op : ops) {
      std::string why;
      FailureOr<Match> m = match(op, why, float32ScoresMib);
      if (failed(m))
        continue;
      Location loc = op.getLoc();
      b.setInsertionPoint(op);
      auto outType = cast<RankedTensorType>(op.getType());
      bool rank4 = outType.getRank() == 4;
      // Keys and values repeated for the query heads are read unrepeated,
      // as grouped-query attention.
      Value key = op.getKey(), value = op.getValue();
      if (rank4 && m->group == 1) {
        auto [k0, gk] = peelRepeatedHeads(key);
        auto [v0, gv] = peelRepeatedHeads(value);
        if (gk > 1 && gk == gv) {
          key = k0;
          value = v0;
          m->group = static_cast<int32_t>(gk);
        }
      }
      Value q = operandView(b, loc, op.getQuery(), rank4), k = operandView(b, loc, key, rank4),
            v = operandView(b, loc, value, rank4);
      Value mask;
      // A mask that already hides every key after its query lets the kernel
      // skip those tiles: the same result, fewer tiles.
      bool causal = op.getIsCausal() || (op.getAttnMask() && impliesCausal(op.getAttnMask()));
      if (Value mt = op.getAttnMask()) {
        // An expanded mask is read through its size-1 dims (the runtime broadcasts them).
        if (auto ex = mt.getDefiningOp<ExpandOp>())
          if (cast<RankedTensorType>(ex.getSelf().getType()).getRank() == cast<RankedTensorType>(mt.getType()).getRank())
            mt = ex.getSelf();
        mask = operandView(b, loc, mt, /*peel=*/false);
      }

      // The result's sizes: batch dims and L as the query's (batch dims
      // broadcast: a static size of the result wins), Ev static.
      Value q4 = toRank4(b, loc, op.getQuery());
      SmallVector<OpFoldResult> qSizes = kiln::detail::getSizes(b, loc, q4);
      SmallVector<int64_t> shape4(4 - outType.getRank(), 1);
      llvm::append_range(shape4, outType.getShape());
      SmallVector<OpFoldResult> outSizes;
      for (int64_t i = 0; i < 4; ++i)
        outSizes.push_back(ShapedType::isDynamic(shape4[i]) ? qSizes[i] : b.getIndexAttr(shape4[i]));

      // Written in the layout of a permute that is the result's only use.
      PermuteOp back;
      if (rank4 && op->hasOneUse())
        back = dyn_cast<PermuteOp>(*op->getUsers().begin());
      SmallVector<OpFoldResult> allocSizes = outSizes;
      if (back)
        for (int64_t i = 0; i < 4; ++i)
          allocSizes[i] = outSizes[back.getDims()[i]];
      SmallVector<int64_t> allocShape;
      SmallVector<Value> dynamic;
      dispatchIndexOpFoldResults(allocSizes, dynamic, allocShape);
      auto allocType = MemRefType::get(allocShape, m->elem);
      Value buffer = memref::AllocOp::create(b, loc, allocType, dynamic, b.getI64IntegerAttr(64));
      Value outView;
      if (back) {
        // view dim j = buffer dim inverse[j], where buffer dim i = view dim dims[i].
        SmallVector<int64_t> inverse(4);
        for (int64_t i = 0; i < 4; ++i)
          inverse[back.getDims()[i]] = i;
        outView = permutedView(b, loc, buffer, inverse);
      } else {
        outView = memref::CastOp::create(b, loc, callArgType(m->elem), buffer);
      }

      SmallVector<Value> args{q, k, v};
      if (mask)
        args.push_back(mask);
      args.push_back(outView);
      args.push_back(arith::ConstantIntOp::create(b, loc, causal ? 1 : 0, 32));
      args.push_back(arith::ConstantIntOp::create(b, loc, m->group, 32));
      args.push_back(arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(static_cast<float>(m->scale))));
      func::CallOp::create(b, loc, callee(module, *m), args);

      auto tensorOf = [&](RankedTensorType t) {
        return bufferization::ToTensorOp::create(b, loc, RankedTensorType::get(allocShape, m->elem), buffer,
                                                 /*restrict=*/true, /*writable=*/true)
            .getResult();
      };
      if (back) {
        auto backType = cast<RankedTensorType>(back.getType());
        Value t = kiln::detail::castTo(b, loc, tensorOf(backType), backType);
        b.replaceOp(back, t);
        b.eraseOp(op);
      } else {
        Value t = tensorOf(outType);
        if (outType.getRank() < 4) {
          SmallVector<ReassociationIndices> reassoc;
          ReassociationIndices first;
          int64_t extra = 4 - outType.getRank();
          for (int64_t i = 0; i <= extra; ++i)
            first.push_back(i);
          reassoc.push_back(first);
          for (int64_t i = extra + 1; i < 4; ++i)
            reassoc.push_back({i});
          t = tensor::CollapseShapeOp::create(b, loc, t, reassoc);
        }
        b.replaceOp(op, kiln::detail::castTo(b, loc, t, outType));
      }
    }
  }
};

} // namespace
