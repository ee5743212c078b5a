//===- ImporterImpl.h - the graph importer, shared by its op handlers -*- C++ -*-===//
//
// Internal to lib/Import. GraphImporter.cpp walks the graph; each file in Ops/
// registers the handlers of one op family (`register<Family>Handlers`), reading
// node arguments by schema name through the accessors below.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_IMPORTERIMPL_H
#define KILN_LIB_IMPORT_IMPORTERIMPL_H

#include "ATen/IR/ATenDialect.h"
#include "kiln/Import/GraphImporter.h"
#include "kiln/Import/Pt2Archive.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <deque>
#include <functional>
#include <optional>

namespace kiln::importer {

using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;
namespace json = llvm::json;

/// torch serde ScalarType code -> element type (null if kiln has none for it).
Type elementTypeFor(MLIRContext *ctx, int64_t code);

/// Carries an op class into a generic lambda.
template <typename T> struct OpTag { using type = T; };

/// ATen's "int or pair of ints" arguments: [k] -> [k, k].
inline SmallVector<int64_t> pairOf(SmallVector<int64_t> v) {
  if (v.size() == 1)
    v.push_back(v[0]);
  return v;
}

/// Binds `var` to `expr`, returning failure from the enclosing handler if it failed.
#define KILN_TRY(var, expr)                                                                    \
  auto var = (expr);                                                                           \
  if (failed(var))                                                                             \
    return failure();

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, Pt2Archive &archive, bool explainOnly)
      : ctx(ctx), archive(archive), explainOnly(explainOnly), b(&ctx),
        archiveLoc(FileLineColLoc::get(&ctx, archive.path(), 0, 0)) {}

  FailureOr<ImportedProgram> run();

  using Handler = std::function<LogicalResult(const Object &node, Location loc)>;

  // --- diagnostics
  LogicalResult fail(Location loc, const Twine &msg) {
    emitError(loc) << msg;
    return failure();
  }
  LogicalResult fail(const Twine &msg) { return fail(archiveLoc, msg); }

  // --- types and locations
  FailureOr<RankedTensorType> tensorType(StringRef name, Location loc);
  /// A value's metadata: a correction set by a handler or a composite
  /// expansion's new value first, then the archive's; null if neither has it.
  const Object *tensorMeta(StringRef name) const {
    if (const Object *m = expandedTensorValues.getObject(name))
      return m;
    return tensorValues ? tensorValues->getObject(name) : nullptr;
  }
  /// Replaces the sizes the archive records for value `name` with `sizes` (a
  /// handler that knows the archive's metadata is wrong for its op), so the
  /// value's type, and the program's result type if it is one, follow.
  void correctSizes(StringRef name, const Array &sizes) {
    Object meta = tensorMeta(name) ? Object(*tensorMeta(name)) : Object();
    meta["sizes"] = Array(sizes);
    expandedTensorValues[name.str()] = std::move(meta); // the key owns its text
  }
  Location nodeLocation(const Object &node);

  // --- argument access by schema name
  const json::Object *argOf(const Object &node, StringRef name);
  FailureOr<Value> tensorArg(const Object &node, StringRef name, Location loc);
  FailureOr<Value> optTensorArg(const Object &node, StringRef name, Location loc);
  FailureOr<int64_t> intArg(const Object &node, StringRef name, std::optional<int64_t> dflt,
                            Location loc);
  FailureOr<double> floatArg(const Object &node, StringRef name, std::optional<double> dflt,
                             Location loc);
  FailureOr<bool> boolArg(const Object &node, StringRef name, std::optional<bool> dflt,
                          Location loc);
  FailureOr<std::string> stringArg(const Object &node, StringRef name,
                                   std::optional<std::string> dflt, Location loc);
  FailureOr<SmallVector<int64_t>> intsArg(const Object &node, StringRef name,
                                          std::optional<SmallVector<int64_t>> dflt, Location loc);
  /// True if the argument is absent or None.
  bool isNone(const Object &node, StringRef name);
  /// Sizes mixing ints and symbolic values (view sizes): static entries, with
  /// kDynamic where `dynamic` holds an index value.
  LogicalResult symIntsArg(const Object &node, StringRef name, SmallVector<int64_t> &statics,
                           SmallVector<Value> &dynamic, Location loc);

  /// A SymInt argument (a literal int or a symbolic value) as an `index` value.
  FailureOr<Value> symIntArg(const Object &node, StringRef name, std::optional<int64_t> dflt,
                             Location loc);
  /// A literal int, or a SymInt node output, read from an argument object.
  FailureOr<Value> symIntValue(const Object &arg, StringRef what, Location loc);

  // --- results
  /// Checks what handlers rely on: a target string, inputs as {"arg": {...}}
  /// objects, outputs as well-formed objects, and (where the dispatcher knows
  /// the op) as many outputs as its schema returns.
  LogicalResult checkNodeShape(const Object &node, Location loc);
  FailureOr<SmallVector<Type>> resultTypes(const Object &node, Location loc);
  LogicalResult bindResults(const Object &node, Operation *op);
  /// The type of the node's first output, which must be a tensor.
  FailureOr<RankedTensorType> firstTensorResult(const Object &node, Location loc);
  /// Names of a node's tensor outputs, in order ("" for an as_none output).
  SmallVector<std::string> outputNames(const Object &node);

  // --- tensors, aliases and mutation (functionalisation, see Ops/Mutation.cpp)
  //
  // Every tensor name of the graph is bound to a TensorVar. A root var owns its
  // storage; a view var reads its base through `view` and is recomputed lazily
  // when its root was mutated after it was last computed. An in-place op
  // writes a new value into its var; for a view that value is scattered back
  // into the base through `scatter`, up to the root.
  using ViewFn = std::function<Value(Value base)>;
  using ScatterFn = std::function<Value(Value base, Value view)>;
  struct TensorVar {
    Value value;
    int base = -1;          ///< the var this one is a view of; -1 for a root
    unsigned root = 0;      ///< the root var of the view chain (itself for a root)
    unsigned version = 0;   ///< roots: number of writes so far
    unsigned seen = 0;      ///< views: the root version `value` reflects
    ViewFn view;
    ScatterFn scatter;
  };
  /// A new root var holding `v`.
  unsigned newVar(Value v);
  /// The current value of `var` (recomputing a stale view).
  Value readVar(unsigned var);
  /// Writes `v` as the new value of `var` (and through it, its base).
  void writeVar(unsigned var, Value v);
  /// Binds `name` to a view of `base` computed by `view` now and on each
  /// recomputation; `scatter` writes a new view value back into the base.
  Value bindView(StringRef name, unsigned base, ViewFn view, ScatterFn scatter);
  /// The var a tensor name is bound to.
  FailureOr<unsigned> varOfArg(const Object &node, StringRef name, Location loc);
  /// Imports one node (with its handler, the in-place rule or a runtime call).
  /// Sets `ok` to false on an error but keeps classifying later nodes.
  void importNode(const Object &node, bool &ok);
  /// Imports an in-place op `<name>_` (or `__i<name>__`) as its out-of-place form
  /// whose result is written into `self`. Returns false if no form is known.
  FailureOr<bool> importInPlace(const Object &node, Location loc, StringRef target);
  /// The out-of-place target of an in-place one ("" if `target` is not in-place).
  static std::string functionalTarget(StringRef target);
  /// functionalTarget, where the functional op has no `.Tensor` overload of
  /// kiln's own or the runtime's but has `.default` (floor_divide_.Tensor is
  /// floor_divide.default in place); "" if `target` is not in place.
  std::string functionalOf(StringRef target);
  /// The view target of a `<view>_copy` one ("" if `target` is not such a copy).
  static std::string viewTarget(StringRef target);
  /// One argument of a higher-order op's subgraph: a tensor var, or (when
  /// `sym` is set) a symbolic int's index value.
  struct SubgraphArg {
    unsigned var = 0;
    Value sym;
  };
  /// Imports the nodes of a higher-order op's subgraph with its inputs bound to
  /// `args`, returning the vars of its outputs.
  FailureOr<SmallVector<unsigned>> inlineGraph(const Object &graph, ArrayRef<SubgraphArg> args,
                                               Location loc);

  /// Imports a composite node as the nodes the runtime's decomposition table
  /// (kiln/abi/query.h) expands it into, each imported like a graph node.
  /// False if no rule of the table applies to it.
  bool importComposite(const Object &node, Location loc, NodeDecision &decision, bool &ok);
  /// " on float32, int64 tensors": the dtypes of a node's tensor inputs, for messages.
  std::string nodeDtypes(const Object &node);
  void registerHandlers();
  /// Imports a node the compiler has no handler for as aten.call_runtime, if
  /// the runtime's dispatcher defines the op (a plugin's custom op, or an ATen
  /// op with an eager kernel). Fails if the dispatcher does not know it.
  FailureOr<bool> importAsRuntimeCall(const Object &node, Location loc, StringRef target);
  /// True if the runtime's dispatcher defines the op of `target`.
  bool isRuntimeOp(StringRef target);
  template <typename OpT, typename... Args>
  LogicalResult emitOp(const Object &node, Location loc, Args &&...args) {
    auto types = resultTypes(node, loc);
    if (failed(types))
      return failure();
    auto op = OpT::create(b, loc, *types, std::forward<Args>(args)...);
    return bindResults(node, op);
  }

  /// Complex values of `graph` (graph_module.graph) as real pairs, by the
  /// runtime's rewrite; an error naming the node it cannot rewrite.
  LogicalResult lowerComplexValues(Object &graph);
  /// Records each weight of `configMember`: its size, and how to read it
  /// from the archive when its bytes are written out (WeightData.h).
  LogicalResult readWeights(StringRef configMember, StringRef dataDir, WeightMap &out);
  /// Each weight's storage: its member in the archive and its tensor_meta
  /// (two parameters with both equal are one tensor, tied by the model).
  std::map<std::string, std::pair<std::string, llvm::json::Value>> weightStorage;

  MLIRContext &ctx;
  Pt2Archive &archive;
  bool explainOnly;
  OpBuilder b;
  Location archiveLoc;
  const Object *tensorValues = nullptr;
  /// Metadata of the values that composite expansions introduce, and the
  /// expanded nodes themselves (kept alive while they are imported).
  Object expandedTensorValues;
  std::deque<json::Value> expandedNodes;
  llvm::StringMap<Value> values;      // sym-int values by node output name
  llvm::StringMap<unsigned> varOf;    // tensor vars by name
  std::vector<TensorVar> vars;
  llvm::StringMap<Handler> handlers;  // by target, e.g. "torch.ops.aten.relu.default"
  llvm::StringMap<std::pair<int64_t, int64_t>> symbols;
  std::vector<NodeDecision> decisions;
};


/// An optional ScalarType argument (`dtype`): a null type when absent or
/// None, failure for a dtype kiln has no element type for.
inline FailureOr<Type> optDtypeArg(GraphImporter &g, const Object &node, StringRef name,
                                   Location loc) {
  if (g.isNone(node, name))
    return Type();
  const Object *arg = g.argOf(node, name);
  std::optional<int64_t> code = arg ? arg->getInteger("as_scalar_type") : std::nullopt;
  Type t = code ? elementTypeFor(&g.ctx, *code) : Type();
  if (!t)
    return ((void)g.fail(loc, "unsupported dtype for argument '" + name + "'"), failure());
  return t;
}

/// A list-of-tensors argument (`Tensor[]`).
inline FailureOr<SmallVector<Value>> tensorListArg(GraphImporter &g, const Object &node,
                                                   StringRef name, Location loc) {
  const Object *arg = g.argOf(node, name);
  const Array *list = arg ? arg->getArray("as_tensors") : nullptr;
  if (!list)
    return ((void)g.fail(loc, "expected a list of tensors for argument '" + name + "'"),
            failure());
  SmallVector<Value> out;
  for (const json::Value &t : *list) {
    const Object *o = t.getAsObject();
    std::optional<StringRef> ref = o ? o->getString("name") : std::nullopt;
    auto it = ref ? g.varOf.find(*ref) : g.varOf.end();
    if (it == g.varOf.end())
      return ((void)g.fail(loc, "argument '" + name + "' uses an undefined value"), failure());
    out.push_back(g.readVar(it->second));
  }
  return out;
}

void registerElementwiseHandlers(GraphImporter &g);
void registerCreationHandlers(GraphImporter &g);
void registerLinearHandlers(GraphImporter &g);
void registerConvolutionHandlers(GraphImporter &g);
void registerNormalizationHandlers(GraphImporter &g);
void registerPoolingHandlers(GraphImporter &g);
void registerResamplingHandlers(GraphImporter &g);
void registerReductionHandlers(GraphImporter &g);
void registerAttentionHandlers(GraphImporter &g);
void registerShapeHandlers(GraphImporter &g);
void registerSplitJoinHandlers(GraphImporter &g);
void registerSymIntHandlers(GraphImporter &g);
void registerMutationHandlers(GraphImporter &g);
void registerIndexingHandlers(GraphImporter &g);

} // namespace kiln::importer

#endif
