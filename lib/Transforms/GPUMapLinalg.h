//===- GPUMapLinalg.h - shared pieces of kiln-map-linalg-to-gpu's kernel forms -===//
// Private to lib/Transforms: the plans and loop builders the thread-per-element,
// vector, subgroup-reduction and row-group kernel forms share with the pass.
#ifndef KILN_LIB_TRANSFORMS_GPUMAPLINALG_H
#define KILN_LIB_TRANSFORMS_GPUMAPLINALG_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace kiln::gpu_map {
using namespace mlir;

/// Loop order for a GPU launch: parallel loops first, in the order the
/// output's dimensions use them (so the linearized thread index walks the
/// output row-major), then the reduction loops in their own order.
SmallVector<unsigned> gpuLoopOrder(linalg::GenericOp op);

bool isIdentity(ArrayRef<unsigned> perm);

/// Product of the static trip counts of `loop`, or -1 if any is dynamic.
int64_t staticTripCount(scf::ParallelOp loop);

/// The index of `map`'s results at loop induction variables `ivs`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map, ValueRange ivs);

/// The element of operand `operand` at loop position `ivs` (a scalar operand
/// is itself).
Value loadOperand(OpBuilder &b, Location loc, linalg::GenericOp op, OpOperand &operand,
                  ValueRange ivs);

/// Emits `op`'s body at `ivs` with `args` for its block arguments; returns
/// the yielded values.
SmallVector<Value> emitBody(OpBuilder &b, linalg::GenericOp op, ValueRange args, ValueRange ivs);

/// Whether output `out` of `op` (loops in order: parallel, then reduction)
/// is indexed by a reduction loop: its elements are written once per
/// reduction iteration (an elementwise result a fusion kept alongside a
/// reduction), not accumulated.
bool indexedByReduction(linalg::GenericOp op, OpOperand &out);

/// Replaces `op` (loops in order: parallel, then reduction) with an
/// scf.parallel over its parallel loops in which each element loads its
/// output's initial values once, runs the reduction loops with the
/// accumulators in registers (scf.for iter_args) and stores once. Without
/// reduction loops, an output is read only if the body uses it. An output
/// indexed by a reduction loop is read (if used) and written at each
/// iteration of the innermost loop instead. With `fusion`, the output's
/// initial value and its store are the fusion's (see ReductionFusion).
struct ReductionFusion;
scf::ParallelOp lowerToThreadLoops(RewriterBase &rewriter, linalg::GenericOp op,
                                   const ReductionFusion *fusion = nullptr);

/// The elementwise ops around a reduction (one output, accumulated, each
/// parallel loop indexing it once) that its threads (or lane 0 of its
/// subgroup) run themselves
/// (GPUReductionFusion.cpp): the prologue, the last op before it that
/// touches its output, overwrites the output elementwise (a bias broadcast,
/// a fill) from buffers nothing in between writes; each thread computes its
/// element's initial value with the prologue's body instead of loading it.
/// The epilogue, the next op after it that has effects (only allocations,
/// deallocations and pure ops in between), reads the output elementwise (an
/// activation, a rounding to 16 bits), into outputs that alias neither the
/// reduction's inputs nor the prologue's; each thread applies its body to
/// the result and stores what it writes. The output itself is stored only
/// where something later may read it.
struct ReductionFusion {
  linalg::GenericOp prologue, epilogue; ///< null where there is none
  unsigned epilogueOperand = 0;         ///< the epilogue's operand that is the output
  bool storeOutput = true;              ///< whether the reduction's output is still stored
};

/// The fusion for `op` (loops in GPU order) with `candidates` (the ops that
/// are still mapped one kernel each), or none.
std::optional<ReductionFusion> planReductionFusion(linalg::GenericOp op,
                                                   const llvm::SmallDenseSet<Operation *> &candidates);

/// Before `op` is lowered: moves what the epilogue's operands need (their
/// allocations, views) before `op`.
void prepareReductionFusion(linalg::GenericOp op, const ReductionFusion &fusion);

/// The initial value of `op`'s output at its parallel indices `ivs`: the
/// prologue's body there, or the element loaded.
Value initialValue(OpBuilder &b, Location loc, linalg::GenericOp op, ValueRange ivs, const ReductionFusion *fusion);

/// Stores `op`'s result at its parallel indices `ivs`: the epilogue's
/// outputs there (and the output itself where still read), or the output.
void storeResult(OpBuilder &b, Location loc, linalg::GenericOp op, Value result, ValueRange ivs,
                 const ReductionFusion *fusion);

/// After `op` is lowered: erases the prologue and epilogue, and the output
/// `acc` if nothing but its deallocation uses it any more.
void finishReductionFusion(RewriterBase &rewriter, Value acc, const ReductionFusion &fusion);

/// How an elementwise op runs several elements per thread: its innermost
/// loops (the run: loops `runStart` and after) have static sizes and are, in
/// every memref operand that uses them, that operand's trailing dims in
/// order, packed with unit stride; every other operand (a per-channel
/// weight, a scalar) does not use them. A thread then owns `width`
/// consecutive elements of the run: one vector load or store per operand
/// along the run, one scalar load per other operand.
struct VectorPlan {
  unsigned runStart = 0;
  int64_t runLength = 0; ///< product of the run's sizes
  int64_t width = 0;     ///< elements per thread: a power of two dividing runLength
  SmallVector<bool> alongRun; ///< per operand (by number): indexed by the run
};

/// The bytes of one element of `t` if a vector of them is a packed array of
/// them in memory (integers and floats of whole bytes), else 0 (i1, index).
int64_t packedElementBytes(Type t);

/// The plan for `op` if it is elementwise (parallel loops only, after
/// gpuLoopOrder) and a run of its innermost loops can be vectorised (see
/// VectorPlan): the longest such run, and the widest power of two up to 8
/// elements and `maxBytes` bytes of its narrowest operand along the run that
/// divides the run's length and keeps every vector aligned where strides
/// and offsets are static (the others are checked as the kernel runs). None
/// otherwise: a dynamic innermost size, an operand that reads the innermost
/// loop strided or transposed, or broadcast along it but not along the whole
/// run, i1 or index elements along the run, a length no width divides.
std::optional<VectorPlan> planVectorElementwise(linalg::GenericOp op, int64_t maxBytes);

/// i1: whether every vector that starts at a multiple of the vector's
/// elements along the last dim of `buffer` (unit stride) is aligned to
/// `align` bytes: its first element (aligned pointer plus offset) and its
/// other dynamic strides, as the kernel runs (static strides are checked
/// when the width is chosen).
Value vectorsAligned(OpBuilder &b, Location loc, Value buffer, int64_t align);

/// Replaces elementwise `op` with an scf.parallel over its loops before the
/// run and one loop over the run's vectors (see VectorPlan): each iteration
/// loads `width` elements of each operand along the run with one aligned
/// vector.load (operands of more than one run dim are first viewed with the
/// run collapsed into one dim), the others once, runs the body per element
/// and stores each output's `width` results with one vector.store. Where a
/// base pointer, offset or stride known only at run time misaligns a vector,
/// the iteration takes the same elements one at a time instead.
scf::ParallelOp lowerToVectorThreadLoops(RewriterBase &rewriter, linalg::GenericOp op, const VectorPlan &plan,
                                         int64_t maxBytes);

/// How an elementwise op that transposes runs through workgroup tiles
/// (GPUTransposeTiles.cpp): `operand` is read through a permutation whose
/// innermost dim is loop `innerLoop`, not the output's innermost loop.
struct TransposePlan {
  unsigned operand = 0;
  unsigned innerLoop = 0;
};
/// The plan if `op` (loops in output order) is elementwise with one output
/// written through the identity map, static loops, unit innermost strides,
/// and an input (integers or floats of whole bytes) read through a
/// permutation whose innermost dim is another loop, both of them at least
/// half a tile long. None otherwise.
std::optional<TransposePlan> planTransposeTile(linalg::GenericOp op);
/// Replaces `op` (see planTransposeTile) with a gpu.launch of one workgroup
/// per 32x32 tile of the two innermost loops (and per point of the others):
/// the workgroup reads the input's tile along the input's innermost dim into
/// workgroup memory, then each thread runs the body for elements along the
/// output's innermost dim, the tile's element read across, and stores them.
void lowerToTransposeTile(RewriterBase &rewriter, linalg::GenericOp op, const TransposePlan &plan);
/// How a sliding-window reduction (a convolution, a pooling window) gives
/// each thread several outputs: `outputs` consecutive indices of parallel
/// loop `loop`, along which some input's window slides.
struct WindowPlan {
  unsigned loop = 0;
  int64_t outputs = 1;
};

/// The plan if `op` (loops in order: parallel, then reduction; static loops;
/// no output indexed by a reduction loop) has a parallel loop other than the
/// innermost along which an input is read at an affine form of it and a
/// reduction loop (the innermost such loop is taken): each thread then
/// computes the largest number of consecutive outputs along it, at most
/// `maxOutputs`, that divides its length and leaves at least `minThreads`
/// threads. None otherwise.
std::optional<WindowPlan> planWindowTile(linalg::GenericOp op, int64_t maxOutputs, int64_t minThreads);

/// Replaces `op` (see planWindowTile) with an scf.parallel over its parallel
/// loops, `plan.loop` counting groups of `plan.outputs`: each thread loads
/// the initial values of its outputs, runs the reduction loops once for all
/// of them with their accumulators in registers (the innermost reduction
/// loop unrolled when short, so an input element that neighbouring outputs
/// share, and a weight they all read, is one load after CSE) and stores
/// them.
scf::ParallelOp lowerToWindowThreadLoops(RewriterBase &rewriter, linalg::GenericOp op, const WindowPlan &plan,
                                         const ReductionFusion *fusion = nullptr);

/// A buffer filled whole with a constant and then given a copy of `source`
/// in its interior (a pad), read by one window op (GPUPaddedReads.cpp).
struct PaddedBuffer {
  Value padded, source;
  TypedAttr value;              ///< the pad value
  SmallVector<int64_t> low;     ///< the interior's offset in each dim
  SmallVector<Operation *> padOps; ///< the copy, the interior's subview and the fill
  SmallVector<Operation *> frees;  ///< the padded buffer's deallocations
  unsigned operand = 0;            ///< the window's operand that is the padded buffer
};

/// For each op of `ops` in `single` with reduction loops (a window) that
/// reads a padded buffer (see PaddedBuffer) whose fill and copy are in
/// `single`, with nothing between the copy and the op writing the source:
/// marks the op to read the source with bounds checks instead (see
/// loadPadded), moves the source's free after it and takes the fill and
/// the copy out of `single` (finishPaddedReads erases them).
llvm::DenseMap<Operation *, SmallVector<PaddedBuffer>> planPaddedReads(ArrayRef<linalg::GenericOp> ops,
                                                                       llvm::SmallDenseSet<Operation *> &single);

/// Once `op`'s fusion is planned: where its fused `epilogue` (may be null)
/// overwrites a source `op` now reads (bufferization reused the source's
/// buffer, dead after the copy until now, for the result), the epilogue and
/// everything after it get a fresh buffer instead; where that cannot be
/// done, `op` reads that padded buffer after all (its fill and copy go back
/// into `single`).
void settlePaddedReads(linalg::GenericOp op, linalg::GenericOp epilogue, SmallVector<PaddedBuffer> &plans,
                       llvm::SmallDenseSet<Operation *> &single);

/// The element of `operand` at `indices` (of the padded buffer) if `op` was
/// marked to read it around its source: the source's element where
/// `indices` fall inside it, the pad value elsewhere. None for other operands.
std::optional<Value> loadPadded(OpBuilder &b, Location loc, linalg::GenericOp op, OpOperand &operand,
                                ArrayRef<Value> indices);

/// After the window op is lowered: erases the fills, copies and padded buffers.
void finishPaddedReads(RewriterBase &rewriter, ArrayRef<PaddedBuffer> plans);

/// How a row reduction runs on a subgroup: per output, the op combining the
/// accumulator with each new value, and that op's neutral element.
struct SubgroupPlan {
  SmallVector<Operation *> combiners;
  SmallVector<TypedAttr> neutral;
};

/// The loop over the row elements a lane owns. With `width` 1: lane, lane +
/// subgroupSize, ... below the row length; where the length is a static
/// multiple of the subgroup, it counts a static number of steps, `unroll` at
/// a time, and each chunk loads all its elements before using any (an
/// elementwise op's or a reduction step's element depends on its own inputs
/// only), so a lane has that many loads in flight; otherwise it strides one
/// element at a time. With `width` > 1 (the length a static multiple of
/// subgroupSize * width) a lane owns vectors of `width` consecutive
/// elements instead: vector lane, lane + subgroupSize, ..., `unroll` vectors
/// an iteration. An iteration's elements are its slots: slot s is element
/// s % width of its vector s / width.
struct LaneLoop {
  Value lane, length, lanes;
  int64_t steps = 0, unroll = 1; ///< steps == 0: the strided form
  int64_t width = 1;

  LaneLoop(OpBuilder &b, Location loc, Value lane, OpFoldResult length, int64_t subgroupSize, int64_t width = 1)
      : lane(lane), width(width) {
    this->length = getValueOrCreateConstantIndexOp(b, loc, length);
    lanes = arith::ConstantIndexOp::create(b, loc, subgroupSize);
    std::optional<int64_t> n = getConstantIntValue(length);
    if (!n || *n % (subgroupSize * width) != 0) {
      this->width = 1;
      if (!n || *n % subgroupSize != 0)
        return;
    }
    steps = *n / (subgroupSize * this->width);
    // Up to 8 elements, or up to 32 in vectors, in flight per lane.
    for (int64_t u : {8, 4, 3, 2})
      if (steps % u == 0 && (this->width == 1 ? u != 3 : u * this->width <= 32)) {
        unroll = u;
        break;
      }
  }

  int64_t slots() const { return unroll * width; }

  scf::ForOp create(OpBuilder &b, Location loc, ValueRange inits) const {
    if (steps == 0)
      return scf::ForOp::create(b, loc, lane, length, lanes, inits);
    return scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                              arith::ConstantIndexOp::create(b, loc, steps),
                              arith::ConstantIndexOp::create(b, loc, unroll), inits);
  }

  /// The first element of vector `u` (the element itself with width 1) in
  /// iteration `loop`.
  Value vectorStart(OpBuilder &b, Location loc, scf::ForOp loop, int64_t u) const {
    if (steps == 0)
      return loop.getInductionVar();
    Value step = loop.getInductionVar();
    if (u > 0)
      step = arith::AddIOp::create(b, loc, step, arith::ConstantIndexOp::create(b, loc, u));
    Value v = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, step, lanes), lane);
    if (width == 1)
      return v;
    return arith::MulIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, width));
  }

  /// The element index of slot `slot` in iteration `loop`.
  Value index(OpBuilder &b, Location loc, scf::ForOp loop, int64_t slot) const {
    Value start = vectorStart(b, loc, loop, slot / width);
    if (slot % width == 0)
      return start;
    return arith::AddIOp::create(b, loc, start, arith::ConstantIndexOp::create(b, loc, slot % width));
  }
};

/// The loops of a subgroup-per-row kernel: scf.parallel (block) {
/// scf.parallel (lane, r) { if (row < rows of `sizes`) { ... } } }, row
/// `block * rows + r` of the collapsed row loops. Leaves the builder inside
/// the guard (callers hold an InsertionGuard). The guard is uniform across a
/// subgroup, so every lane of a row reaches its shuffles.
struct SubgroupRowNest {
  scf::ParallelOp outer, inner;
  Value lane;
  SmallVector<Value> rowIvs; ///< the row's indices, innermost loop fastest
};

/// The plan if `op` (loops in order: parallel, then reduction) is a row
/// reduction a subgroup can share: at least one parallel loop and exactly one
/// reduction loop, at least `subgroupSize` long (or dynamic) and the last
/// index of some input (so lanes read neighbouring elements), every output
/// accumulated (not indexed by the reduction) by a single associative
/// combiner on f32 or i32 with a neutral element. None otherwise.
std::optional<SubgroupPlan> planSubgroupReduction(linalg::GenericOp op, int64_t subgroupSize);

/// The plan if `op` (loops in order: parallel, then reduction) is a
/// reduction with few outputs and long reductions, which one thread per
/// output would run on a handful of blocks (a squeeze-excite or global
/// average pool over H and W at batch 1, a matrix-vector product): static
/// loops, at most `maxOutputs` outputs, at least a subgroup of reduction
/// iterations over one or more reduction loops read in any order, every
/// output accumulated by one associative combiner on f32 or i32 with a
/// neutral element. Each output then gets a subgroup, the lanes taking
/// strided parts of the reduction loops linearised. None otherwise.
std::optional<SubgroupPlan> planFewOutputReduction(linalg::GenericOp op, int64_t subgroupSize, int64_t maxOutputs);

/// `combiner` applied to (`acc`, `value`) at the builder's point.
Value combine(OpBuilder &b, Operation *combiner, Value acc, Value value);

/// Reduces the row at `rowIvs` of `op` (loops: parallel, then the one
/// reduction loop) across a subgroup: each lane accumulates its elements
/// (`loop`) from the combiners' neutral elements, reading inputs through
/// `read`, then a butterfly of xor shuffles combines the lanes. Returns the
/// totals, identical in every lane (each step combines the same two values).
SmallVector<Value> reduceOnSubgroup(OpBuilder &b, Location loc, linalg::GenericOp op, const SubgroupPlan &plan,
                                    const LaneLoop &loop, ArrayRef<Value> rowIvs, int64_t subgroupSize,
                                    function_ref<Value(OpOperand &, ValueRange, int64_t)> read,
                                    ArrayRef<Value> reductionSizes = {});

SubgroupRowNest createSubgroupRowNest(RewriterBase &rewriter, Location loc, ArrayRef<OpFoldResult> rowSizes,
                                      int64_t subgroupSize, int64_t rows);

/// Replaces row reduction `op` (see planSubgroupReduction) with
/// scf.parallel (block) { scf.parallel (lane, r) { ... } }: row
/// `block * rows + r` of the collapsed parallel loops is reduced by the
/// `subgroupSize` lanes, each accumulating reduction indices lane, lane +
/// subgroupSize, ... from the neutral element; `gpu.shuffle xor` combines the
/// lanes (log2(subgroupSize) steps) and lane 0 folds in the initial value and
/// stores (with `fusion`: the prologue's value, and the epilogue's store).
/// The row guard is uniform across a subgroup, so every lane reaches the
/// shuffles.
std::pair<scf::ParallelOp, scf::ParallelOp> lowerToSubgroupRows(RewriterBase &rewriter, linalg::GenericOp op,
                                                                const SubgroupPlan &plan, int64_t subgroupSize,
                                                                int64_t rows, const ReductionFusion *fusion = nullptr);

/// How one op of a row group (see RowGroup) runs for its row.
enum class RowKind {
  Row,       ///< loops: the rows only; every lane computes the row's value
  Elements,  ///< loops: the rows, then one parallel loop over the row's elements
  Reduction, ///< loops: the rows, then one reduction loop over the row's elements
};

/// A run of linalg ops (generalized, loops in GPU order) that share their
/// leading `numRows` parallel loops ("rows") and touch each row's data only
/// for that row: one subgroup per row runs them all in one kernel. A lane
/// owns the row elements lane, lane + subgroupSize, ... in every op, so an
/// element written by one op is read back by the same lane; a row-level
/// value (a reduction's result, a mean, a reciprocal) is kept in registers,
/// identical in every lane, and lane 0 stores it.
struct RowGroup {
  SmallVector<linalg::GenericOp> ops;
  SmallVector<RowKind> kinds;
  SmallVector<std::optional<SubgroupPlan>> plans;
  unsigned numRows = 0;
};

/// Groups `ops` (generalized, loops in GPU order, in program order) into row
/// groups: each row reduction with a subgroup plan seeds one, which takes in
/// the compatible ops right before and after it (at least two ops in all).
std::vector<RowGroup> formRowGroups(ArrayRef<linalg::GenericOp> ops, int64_t subgroupSize);

/// Emits `group` as one scf.parallel (block) { scf.parallel (lane, r) } nest
/// where its last op was, and erases its ops: row `block * rows + r` runs
/// every op in order (see RowGroup).
std::pair<scf::ParallelOp, scf::ParallelOp> lowerRowGroup(RewriterBase &rewriter, RowGroup &group,
                                                          int64_t subgroupSize, int64_t rows, int64_t vectorBytes);

} // namespace kiln::gpu_map

#endif // KILN_LIB_TRANSFORMS_GPUMAPLINALG_H
