//===- Differentiate.cpp - the autograd-differentiate pass ----------------===//
//
// Reverse mode: the callee is inlined at the transform (the forward), values
// that depend on a differentiated argument are marked active, and the ops
// are walked backwards asking each one's reverse rule for the cotangents of
// its active operands, summed per value. Forward mode walks the inlined ops
// once, asking each forward rule for its results' tangents.
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"
#include "Autograd/IR/AutogradDialect.h"
#include "Autograd/IR/Recompute.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace kiln {
#define GEN_PASS_DEF_AUTOGRADDIFFERENTIATE
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using namespace kiln;
using namespace kiln::autograd;

namespace {


Value zerosLike(OpBuilder &b, Location loc, Value like) {
  auto ty = cast<RankedTensorType>(like.getType());
  Attribute zero = b.getFloatAttr(ty.getElementType(), 0.0);
  if (ty.hasStaticShape())
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(ty, zero));
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < ty.getRank(); ++i)
    if (ty.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  Value scalar = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({}, ty.getElementType()), zero));
  return aten::ExpandOp::create(b, loc, ty, scalar, dyn, b.getDenseI64ArrayAttr(ty.getShape()));
}

/// The callee's single block, or an error at the transform.
FailureOr<Block *> calleeBody(Operation *transform, StringRef callee) {
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(transform,
                                                               StringAttr::get(transform->getContext(), callee));
  if (!fn || fn.isExternal())
    return transform->emitOpError("'") << callee << "' does not name a function with a body";
  if (!llvm::hasSingleElement(fn.getBody()))
    return transform->emitOpError("cannot differentiate '")
           << callee << "': it has control flow (more than one block)";
  return &fn.getBody().front();
}

/// Inlines `body` at the builder with its arguments bound to `primals`;
/// fills `ops`/`clones` in order and the callee results' mapped values.
void inlineBody(OpBuilder &b, Block *body, ValueRange primals, IRMapping &map,
                SmallVectorImpl<Operation *> &ops, SmallVectorImpl<Operation *> &clones,
                SmallVectorImpl<Value> &results) {
  for (auto [arg, v] : llvm::zip(body->getArguments(), primals))
    map.map(arg, v);
  for (Operation &op : body->without_terminator()) {
    ops.push_back(&op);
    clones.push_back(b.clone(op, map));
  }
  for (Value v : body->getTerminator()->getOperands())
    results.push_back(map.lookup(v));
}

/// Bytes of a tensor value (dynamic dims counted as 1024, so such values are
/// dear to keep); 0 for a non-tensor.
int64_t bytesOf(Value v) {
  auto ty = dyn_cast<RankedTensorType>(v.getType());
  if (!ty)
    return 0;
  int64_t n = 1;
  for (int64_t d : ty.getShape())
    n *= d == ShapedType::kDynamic ? 1024 : d;
  return n * std::max<int64_t>(1, ty.getElementTypeBitWidth() / 8);
}

/// Ops the backward may recompute rather than keep: views, cheap
/// elementwise ops, inference batch norm (and constants). Products,
/// convolutions, reductions, other normalisations, pooling and attention are
/// always computed in the forward.
bool recomputable(Operation *op) {
  using namespace aten;
  // Inference batch norm is a per-channel affine map of its input.
  if (auto bn = dyn_cast<BatchNormOp>(op))
    return !bn.getTraining();
  return isa<NativeBatchNormLegitNoTrainingOp, arith::ConstantOp, tensor::DimOp, ViewOp,
             PermuteOp, ExpandOp, UnsqueezeOp, SqueezeDimsOp, FlattenUsingIntsOp, SliceTensorOp, SelectIntOp, ReluOp, GeluOp, AddTensorOp, SubTensorOp,
             MulTensorOp, DivTensorOp, NegOp, ExpOp, LogOp, TanhOp, SigmoidOp, SiluOp, SqrtOp, RsqrtOp,
             ReciprocalOp, ThresholdOp, HardtanhOp, LeakyReluOp, WhereSelfOp, MaskedFillTensorOp,
             ToCopyOp, ClampTensorOp, PowTensorTensorOp>(op);
}

/// A small max-flow (Edmonds-Karp) for the rematerialisation cut.
struct FlowGraph {
  struct Edge {
    int to;
    int64_t cap;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int>> adj;
  explicit FlowGraph(int n) : adj(n) {}
  void add(int a, int b, int64_t cap) {
    adj[a].push_back(edges.size());
    edges.push_back({b, cap});
    adj[b].push_back(edges.size());
    edges.push_back({a, 0});
  }
  /// Runs max-flow from s to t; returns the nodes reachable from s in the
  /// residual graph (the source side of a minimum cut).
  std::vector<bool> minCut(int s, int t) {
    int n = adj.size();
    while (true) {
      std::vector<int> via(n, -1);
      std::vector<int> queue{s};
      via[s] = -2;
      for (size_t q = 0; q < queue.size() && via[t] == -1; ++q)
        for (int e : adj[queue[q]])
          if (edges[e].cap > 0 && via[edges[e].to] == -1) {
            via[edges[e].to] = e;
            queue.push_back(edges[e].to);
          }
      if (via[t] == -1)
        break;
      int64_t push = INT64_MAX;
      for (int v = t; v != s; v = edges[via[v] ^ 1].to)
        push = std::min(push, edges[via[v]].cap);
      for (int v = t; v != s; v = edges[via[v] ^ 1].to) {
        edges[via[v]].cap -= push;
        edges[via[v] ^ 1].cap += push;
      }
    }
    std::vector<bool> seen(n, false);
    std::vector<int> stack{s};
    seen[s] = true;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      for (int e : adj[v])
        if (edges[e].cap > 0 && !seen[edges[e].to]) {
          seen[edges[e].to] = true;
          stack.push_back(edges[e].to);
        }
    }
    return seen;
  }
};

/// The forward values (results of `forward` ops) that the ops after them in
/// the block, up to `end`, read.
SetVector<Value> backwardReads(ArrayRef<Operation *> forward, Operation *end) {
  DenseSet<Operation *> fwd(forward.begin(), forward.end());
  SetVector<Value> reads;
  if (forward.empty())
    return reads;
  for (Operation *op = forward.back()->getNextNode(); op && op != end; op = op->getNextNode())
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp(); def && fwd.contains(def))
          reads.insert(v);
    });
  return reads;
}

/// Bytes of the forward values the backward reads, except constants and
/// the forward's results (which live on as outputs anyway).
int64_t savedBytes(ArrayRef<Operation *> forward, Operation *end, const DenseSet<Value> &outputs) {
  int64_t bytes = 0;
  for (Value v : backwardReads(forward, end))
    if (!isa<arith::ConstantOp>(v.getDefiningOp()) && !outputs.contains(v))
      bytes += bytesOf(v);
  return bytes;
}

/// Rematerialisation: keeps the forward values a minimum cut chooses and
/// rebuilds the others before their first backward use. Returns the bytes
/// the backward reads from the forward afterwards.
///
/// The cut is over a graph with an edge in -> out per forward value,
/// weighted by its bytes (the cost of keeping it; zero for constants and the
/// forward's `outputs`), edges out(operand) -> in(user) of infinite weight,
/// the source feeding the values that must be computed in the forward
/// (results of ops that are not recomputable) and the sink fed by the values
/// the backward reads. A finite cut crosses only in -> out edges: the values
/// kept; everything downstream of them that the backward reads is rebuilt.
int64_t rematerialize(ArrayRef<Operation *> forward, Operation *end,
                      const DenseSet<Value> &outputs) {
  SetVector<Value> reads = backwardReads(forward, end);
  DenseSet<Operation *> fwd(forward.begin(), forward.end());
  // Nodes: in/out per forward value; source 0, sink 1.
  DenseMap<Value, int> node;
  SmallVector<Value> values;
  for (Operation *op : forward)
    for (Value r : op->getResults()) {
      node[r] = 2 + 2 * values.size();
      values.push_back(r);
    }
  const int64_t inf = INT64_MAX / 4;
  FlowGraph g(2 + 2 * values.size());
  for (Value v : values) {
    int in = node[v], out = in + 1;
    Operation *def = v.getDefiningOp();
    g.add(in, out,
          isa<arith::ConstantOp>(def) || outputs.contains(v) ? 0 : std::max<int64_t>(1, bytesOf(v)));
    if (!recomputable(def))
      g.add(0, in, inf);
    for (Value o : def->getOperands())
      if (auto it = node.find(o); it != node.end())
        g.add(it->second + 1, in, inf);
    if (reads.contains(v))
      g.add(out, 1, inf);
  }
  std::vector<bool> sourceSide = g.minCut(0, 1);
  DenseSet<Value> saved;
  for (Value v : values)
    if (sourceSide[node[v]] && !sourceSide[node[v] + 1])
      saved.insert(v);
  // Rebuild the values the backward reads but the cut does not keep, each
  // just before its first backward use (program order, so a rebuilt value
  // dominates its later uses).
  DenseMap<Value, Value> rebuilt;
  std::function<Value(Value, OpBuilder &)> materialize = [&](Value v, OpBuilder &b) -> Value {
    Operation *def = v.getDefiningOp();
    if (!def || !fwd.contains(def) || saved.contains(v))
      return v;
    if (Value r = rebuilt.lookup(v))
      return r;
    IRMapping map;
    for (Value o : def->getOperands())
      map.map(o, materialize(o, b));
    Operation *copy = b.clone(*def, map);
    // Marked, so CSE does not fold the recomputation back into the forward.
    markRecomputed(copy);
    for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
      rebuilt[from] = to;
    return rebuilt.lookup(v);
  };
  SmallVector<Operation *> backward;
  for (Operation *op = forward.back()->getNextNode(); op && op != end; op = op->getNextNode())
    backward.push_back(op);
  for (Operation *op : backward) {
    OpBuilder b(op);
    op->walk([&](Operation *inner) {
      for (OpOperand &use : inner->getOpOperands())
        if (Operation *def = use.get().getDefiningOp(); def && fwd.contains(def))
          use.set(materialize(use.get(), b));
    });
  }
  return savedBytes(forward, end, outputs);
}

/// Reverse mode over `body`: appends to `results` the callee results, then
/// the gradient for each `wrt` argument.
/// With `remat`, the forward values the backward reads are chosen by
/// `rematerialize`; `before`/`after` accumulate the bytes they take without
/// and with it.
LogicalResult reverse(OpBuilder &b, Location loc, Block *body, ValueRange primals,
                      ArrayRef<Value> cotangents, ArrayRef<int64_t> wrt,
                      SmallVectorImpl<Value> &results, bool remat, int64_t &before,
                      int64_t &after) {
  IRMapping map;
  SmallVector<Operation *> ops, clones;
  size_t firstResult = results.size();
  inlineBody(b, body, primals, map, ops, clones, results);
  DenseSet<Value> outputs(results.begin() + firstResult, results.end());

  // Activity: float tensors that depend on a differentiated argument.
  DenseSet<Value> active;
  for (int64_t w : wrt)
    active.insert(body->getArgument(w));
  for (Operation *op : ops) {
    if (isa<StopGradientOp>(op) ||
        llvm::none_of(op->getOperands(), [&](Value v) { return active.contains(v); })) {
      // An op with regions (an scf.for) that reads a differentiated value
      // inside them: no rule sees those reads, so refuse rather than give a
      // zero gradient.
      Value captured;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (!captured && active.contains(v) && !op->isAncestor(v.getParentBlock()->getParentOp()))
            captured = v;
      });
      if (captured && op->getNumRegions())
        return op->emitError("cannot differentiate '")
               << op->getName() << "': its region reads a differentiated value";
      continue;
    }
    for (Value r : op->getResults())
      if (isFloatTensor(r.getType()))
        active.insert(r);
  }

  DenseMap<Value, Value> adjoint; // keyed by callee values
  auto accumulate = [&](Value key, Value ct, Location at) {
    auto [it, inserted] = adjoint.try_emplace(key, ct);
    if (!inserted)
      it->second = aten::AddTensorOp::create(b, at, TypeRange{key.getType()},
                                               ValueRange{it->second, ct});
  };
  for (auto [i, v] : llvm::enumerate(body->getTerminator()->getOperands()))
    if (active.contains(v))
      accumulate(v, cotangents[i], loc);

  for (int64_t k = (int64_t)ops.size() - 1; k >= 0; --k) {
    Operation *op = ops[k], *clone = clones[k];
    SmallVector<Value> cts;
    bool anyCt = false;
    for (Value r : op->getResults()) {
      Value ct = adjoint.lookup(r);
      cts.push_back(ct);
      anyCt |= (bool)ct;
    }
    SmallVector<bool> needed;
    bool anyNeeded = false;
    for (Value o : op->getOperands()) {
      needed.push_back(active.contains(o));
      anyNeeded |= needed.back();
    }
    if (!anyCt || !anyNeeded || isa<StopGradientOp>(op))
      continue;
    auto rule = dyn_cast<DifferentiableOpInterface>(clone);
    if (!rule)
      return clone->emitError("cannot differentiate '")
             << clone->getName() << "': kiln has no reverse rule for it";
    SmallVector<Value> operandCts;
    if (failed(rule.buildVjp(b, cts, needed, operandCts)))
      return failure();
    for (auto [i, o] : llvm::enumerate(op->getOperands())) {
      if (!needed[i] || i >= operandCts.size() || !operandCts[i])
        continue;
      if (operandCts[i].getType() != o.getType())
        return clone->emitError("internal error: the reverse rule of '")
               << clone->getName() << "' gave a " << operandCts[i].getType()
               << " cotangent for operand #" << i << " of type " << o.getType();
      accumulate(o, operandCts[i], clone->getLoc());
    }
  }
  for (int64_t w : wrt) {
    Value g = adjoint.lookup(body->getArgument(w));
    results.push_back(g ? g : zerosLike(b, loc, primals[w]));
  }
  Operation *end = &*b.getInsertionPoint();
  int64_t kept = savedBytes(clones, end, outputs);
  before += kept;
  after += remat ? rematerialize(clones, end, outputs) : kept;
  return success();
}

/// Forward mode over `body`: appends the callee results, then their tangents.
LogicalResult forward(OpBuilder &b, Location loc, Block *body, ValueRange primals,
                      ValueRange tangents, ArrayRef<int64_t> wrt,
                      SmallVectorImpl<Value> &results) {
  IRMapping map;
  DenseMap<Value, Value> tangent; // keyed by callee values
  for (auto [arg, v] : llvm::zip(body->getArguments(), primals))
    map.map(arg, v);
  for (auto [w, t] : llvm::zip(wrt, tangents))
    tangent[body->getArgument(w)] = t;
  for (Operation &op : body->without_terminator()) {
    Operation *clone = b.clone(op, map);
    SmallVector<Value> ts;
    bool any = false;
    for (Value o : op.getOperands()) {
      ts.push_back(tangent.lookup(o));
      any |= (bool)ts.back();
    }
    if (!any || isa<StopGradientOp>(op) ||
        llvm::none_of(op.getResultTypes(), [](Type t) { return isFloatTensor(t); }))
      continue;
    auto rule = dyn_cast<DifferentiableOpInterface>(clone);
    if (!rule)
      return clone->emitError("cannot differentiate '")
             << clone->getName() << "' in forward mode: kiln has no tangent rule for it";
    SmallVector<Value> out;
    if (failed(rule.buildJvp(b, ts, out)))
      return failure();
    for (auto [r, t] : llvm::zip(op.getResults(), out)) {
      if (!t)
        continue;
      if (t.getType() != r.getType())
        return clone->emitError("internal error: the tangent rule of '")
               << clone->getName() << "' gave a " << t.getType() << " tangent for a "
               << r.getType() << " result";
      tangent[r] = t;
    }
  }
  SmallVector<Value> resultTangents;
  for (Value v : body->getTerminator()->getOperands()) {
    results.push_back(map.lookup(v));
    Value t = tangent.lookup(v);
    resultTangents.push_back(t ? t : zerosLike(b, loc, map.lookup(v)));
  }
  results.append(resultTangents);
  return success();
}

struct AutogradDifferentiatePass
    : kiln::impl::AutogradDifferentiateBase<AutogradDifferentiatePass> {
  using AutogradDifferentiateBase::AutogradDifferentiateBase;
  void runOnOperation() override {
    int64_t savedBefore = 0, savedAfter = 0;
    bool anyReverse = false;
    SmallVector<Operation *> transforms;
    getOperation()->walk([&](Operation *op) {
      if (isa<VjpOp, GradOp, JvpOp>(op))
        transforms.push_back(op);
    });
    // A transform of a function that itself holds transforms (the Hessian's
    // forward mode over a gradient) waits until those are rewritten.
    auto calleeOf = [](Operation *op) -> StringRef {
      if (auto v = dyn_cast<VjpOp>(op))
        return v.getCallee();
      if (auto g = dyn_cast<GradOp>(op))
        return g.getCallee();
      return cast<JvpOp>(op).getCallee();
    };
    auto ready = [&](Operation *op) {
      auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, StringAttr::get(op->getContext(), calleeOf(op)));
      if (!fn)
        return true; // calleeBody reports it
      return llvm::none_of(transforms, [&](Operation *t) { return t && fn->isAncestor(t); });
    };
    for (size_t done = 0; done < transforms.size(); ++done) {
      auto next = llvm::find_if(transforms, [&](Operation *t) { return t && ready(t); });
      if (next == transforms.end()) {
        Operation *t = *llvm::find_if(transforms, [](Operation *t) { return t; });
        t->emitOpError("cannot differentiate '") << calleeOf(t) << "': it differentiates itself";
        return signalPassFailure();
      }
      Operation *op = *next;
      *next = nullptr;
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> results;
      LogicalResult ok = failure();
      anyReverse |= isa<VjpOp, GradOp>(op);
      if (auto vjp = dyn_cast<VjpOp>(op)) {
        auto body = calleeBody(op, vjp.getCallee());
        ok = succeeded(body) ? reverse(b, loc, *body, vjp.getPrimals(),
                                       llvm::to_vector(vjp.getCotangents()), vjp.getWrt(), results,
                                       remat, savedBefore, savedAfter)
                             : failure();
      } else if (auto grad = dyn_cast<GradOp>(op)) {
        auto body = calleeBody(op, grad.getCallee());
        if (succeeded(body)) {
          auto ty = cast<RankedTensorType>(grad.getResult(0).getType());
          Value one = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(ty, b.getFloatAttr(ty.getElementType(), 1.0)));
          ok = reverse(b, loc, *body, grad.getPrimals(), {one}, grad.getWrt(), results, remat,
                       savedBefore, savedAfter);
        }
      } else if (auto jvp = dyn_cast<JvpOp>(op)) {
        auto body = calleeBody(op, jvp.getCallee());
        ok = succeeded(body)
                 ? forward(b, loc, *body, jvp.getPrimals(), jvp.getTangents(), jvp.getWrt(), results)
                 : failure();
      }
      if (failed(ok))
        return signalPassFailure();
      op->replaceAllUsesWith(results);
      op->erase();
    }
    getOperation()->walk([](StopGradientOp op) {
      op.replaceAllUsesWith(op.getOperand());
      op.erase();
    });
    if (anyReverse) {
      Builder b(getOperation()->getContext());
      getOperation()->setAttr(kiln::attrs::kSavedActivationBytes, b.getI64IntegerAttr(savedAfter));
      if (remat)
        getOperation()->setAttr(kiln::attrs::kSavedActivationBytesBeforeRemat,
                                b.getI64IntegerAttr(savedBefore));
    }
  }
};
} // namespace
