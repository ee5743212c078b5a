//===- DerivativeEntries.cpp - the --jacobian, --hessian and --hvp entries ===//
//
// Each entry is built from the vjp/jvp transforms: the Jacobian row by row
// (one vjp per output element, in an scf.for), the Hessian of sum(output)
// row by row (one jvp of the gradient per input element) and the
// Hessian-vector product as one jvp of the gradient. A model that updates
// state (a training batch norm's running statistics) returns the updates of
// its one forward evaluation after everything else, as torch.func does for a
// functional_call of the module: the state changes once per call, and the
// derivatives are those of the output only (the primal returns the updates
// through stop_gradient).
//
//===----------------------------------------------------------------------===//
#include "kiln/Conversion/AutogradToATen.h"
#include "kiln/abi/io_names.h"
#include "ATen/IR/AttrNames.h"

#include "ATen/IR/ATenDialect.h"
#include "Autograd/IR/AutogradDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using kiln::autograd::isFloatTensor;
using namespace kiln;

namespace {


/// What the three entries share: the model's one output and its float user
/// inputs (the arguments differentiated), checked.
struct Model {
  func::FuncOp entry;
  std::string name;
  RankedTensorType out;
  SmallVector<int64_t> wrt;       // argument numbers of the float user inputs
  SmallVector<int64_t> userIndex; // their numbers among all user inputs
  unsigned numResults = 1;        // the output, then the state updates
  SmallVector<Value> updatedArgs(Block *body) const {
    SmallVector<Value> v;
    for (unsigned a : updatedArg)
      v.push_back(body->getArgument(a));
    return v;
  }
  SmallVector<unsigned> updatedArg; // the argument each update writes
};

FailureOr<Model> checkModel(func::FuncOp entry, StringRef flag, bool needStatic) {
  Model m;
  m.entry = entry;
  m.name = entry.getName().str();
  FunctionType ft = entry.getFunctionType();
  unsigned numOuts = 0;
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    if (!entry.getResultAttr(i, kiln::attrs::kUpdate))
      ++numOuts;
  if (numOuts != 1 || entry.getResultAttr(0, kiln::attrs::kUpdate) || !isFloatTensor(ft.getResult(0)))
    return entry.emitError(flag) << " needs a model with one floating-point tensor output; it has "
                                 << numOuts << " outputs";
  m.out = cast<RankedTensorType>(ft.getResult(0));
  m.numResults = ft.getNumResults();
  for (unsigned i = 1; i < ft.getNumResults(); ++i) {
    auto uname = entry.getResultAttrOfType<StringAttr>(i, kiln::attrs::kName);
    unsigned a = 0;
    for (; a < ft.getNumInputs(); ++a)
      if (uname && entry.getArgAttrOfType<StringAttr>(a, kiln::attrs::kName) == uname &&
          ft.getInput(a) == ft.getResult(i))
        break;
    if (!uname || a == ft.getNumInputs())
      return entry.emitError("result ") << i << " updates state that is no argument of the program";
    m.updatedArg.push_back(a);
  }
  if (m.numResults > 1) {
    if (!llvm::hasSingleElement(entry.getBody()))
      return entry.emitError("cannot differentiate a program with control flow");
    auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
    OpBuilder rb(ret);
    for (unsigned i = 1; i < m.numResults; ++i)
      ret.setOperand(i, autograd::StopGradientOp::create(rb, ret.getLoc(), ret.getOperand(i)));
  }
  int64_t user = 0;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind);
    if (kind && kind.getValue() != "input")
      continue;
    if (isFloatTensor(ft.getInput(i))) {
      if (needStatic && !cast<RankedTensorType>(ft.getInput(i)).hasStaticShape())
        return entry.emitError(flag) << " needs static shapes; user input " << user
                                     << " is " << ft.getInput(i);
      m.wrt.push_back(i);
      m.userIndex.push_back(user);
    }
    ++user;
  }
  if (m.wrt.empty())
    return entry.emitError(flag) << " needs a floating-point user input";
  if (needStatic && !m.out.hasStaticShape())
    return entry.emitError(flag) << " needs static shapes; the output is " << m.out;
  return m;
}

/// Renames the model's function to the private `<name>_primal` and returns a
/// new public function `<name>` of type `type` (its results, then the
/// model's state updates) placed before it, with the model's argument
/// attributes on its first arguments.
func::FuncOp makeEntry(OpBuilder &b, Model &m, FunctionType type) {
  MLIRContext *ctx = b.getContext();
  b.setInsertionPoint(m.entry);
  SmallVector<Type> results(type.getResults());
  FunctionType ft = m.entry.getFunctionType();
  results.append(ft.getResults().begin() + 1, ft.getResults().end());
  auto fn = func::FuncOp::create(b, m.entry.getLoc(), m.name,
                                 b.getFunctionType(type.getInputs(), results));
  for (unsigned i = 0; i < m.entry.getNumArguments(); ++i)
    fn.setArgAttrs(i, m.entry.getArgAttrDict(i));
  fn.setResultAttrs(0, m.entry.getResultAttrDict(0));
  for (unsigned i = 1; i < m.numResults; ++i)
    fn.setResultAttrs(type.getNumResults() + i - 1, m.entry.getResultAttrDict(i));
  SymbolTable symbols(m.entry->getParentOfType<ModuleOp>());
  m.entry.setPrivate();
  (void)symbols.rename(m.entry, m.name + "_primal");
  (void)ctx;
  return fn;
}

/// The model's results (output, then state updates) at `args`: a
/// forward-mode transform with nothing differentiated (its zero tangents
/// are dead code).
/// The forward-mode derivative of `fn` at `args` along `tangents` for its
/// arguments numbered `wrt`: `fn`'s results, then their tangents.
autograd::JvpOp jvpOf(OpBuilder &b, Location loc, func::FuncOp fn, ValueRange args,
                      ValueRange tangents, ArrayRef<int64_t> wrt) {
  TypeRange res = fn.getFunctionType().getResults();
  SmallVector<Type> types(res);
  types.append(res.begin(), res.end());
  return autograd::JvpOp::create(b, loc, types, FlatSymbolRefAttr::get(fn.getSymNameAttr()), args,
                                 tangents, b.getDenseI64ArrayAttr(wrt));
}

SmallVector<Value> forwardResults(OpBuilder &b, Location loc, Model &m, ValueRange args) {
  auto y = jvpOf(b, loc, m.entry, args, ValueRange{}, {});
  return SmallVector<Value>(y.getResults().take_front(m.numResults));
}
Value forwardOutput(OpBuilder &b, Location loc, Model &m, ValueRange args) {
  return forwardResults(b, loc, m, args)[0];
}
/// The vjp of the model at the arguments of `body` with cotangent `ct` for
/// its output (the state updates' cotangents are ignored: the arguments
/// they update stand in); results: the model's, then the gradients.
autograd::VjpOp modelVjp(OpBuilder &b, Location loc, Model &m, Block *body, Value ct) {
  FunctionType ft = m.entry.getFunctionType();
  SmallVector<Type> types(ft.getResults());
  for (int64_t i : m.wrt)
    types.push_back(ft.getInput(i));
  SmallVector<Value> cts{ct};
  llvm::append_range(cts, m.updatedArgs(body));
  return autograd::VjpOp::create(b, loc, types, FlatSymbolRefAttr::get(m.entry.getSymNameAttr()),
                                 body->getArguments().take_front(ft.getNumInputs()), cts,
                                 b.getDenseI64ArrayAttr(m.wrt));
}

/// A private function `<name>_grad` with the model's arguments returning the
/// output, then the gradient of sum(output) for each float user input.
func::FuncOp makeGradFn(OpBuilder &b, Model &m) {
  Location loc = m.entry.getLoc();
  FunctionType ft = m.entry.getFunctionType();
  SmallVector<Type> results{m.out};
  for (int64_t i : m.wrt)
    results.push_back(ft.getInput(i));
  b.setInsertionPoint(m.entry);
  auto fn = func::FuncOp::create(b, loc, m.name + "_grad", b.getFunctionType(ft.getInputs(), results));
  fn.setPrivate();
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value ones;
  if (m.out.hasStaticShape()) {
    ones = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(m.out, b.getFloatAttr(m.out.getElementType(), 1.0)));
  } else {
    // Dynamic dims: a 0-d one expanded to the output's shape, whose sizes are
    // those of a forward call.
    auto scalarTy = RankedTensorType::get({}, m.out.getElementType());
    Value one = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(scalarTy, b.getFloatAttr(m.out.getElementType(), 1.0)));
    Value y = forwardOutput(b, loc, m, body->getArguments());
    SmallVector<Value> dyn;
    for (int64_t d = 0; d < m.out.getRank(); ++d)
      if (m.out.isDynamicDim(d))
        dyn.push_back(tensor::DimOp::create(b, loc, y, d));
    ones = aten::ExpandOp::create(b, loc, m.out, one, dyn, b.getDenseI64ArrayAttr(m.out.getShape()));
  }
  auto vjp = modelVjp(b, loc, m, body, ones);
  SmallVector<Value> rets{vjp.getResult(0)};
  llvm::append_range(rets, vjp.getResults().drop_front(m.numResults));
  func::ReturnOp::create(b, loc, rets);
  return fn;
}

/// Ends entry `fn`: it returns `rets`, then the model's state updates, which
/// are `fwd` (forwardResults) after the output; `fwd` may be empty when the
/// model has none.
func::FuncOp returnWithUpdates(OpBuilder &b, Location loc, func::FuncOp fn, SmallVector<Value> rets,
                               ArrayRef<Value> fwd) {
  if (!fwd.empty())
    rets.append(fwd.begin() + 1, fwd.end());
  func::ReturnOp::create(b, loc, rets);
  return fn;
}

/// A tensor of `type` (static) that is 1 at flat position `k` and 0 elsewhere.
Value oneHot(OpBuilder &b, Location loc, RankedTensorType type, Value k) {
  int64_t n = type.getNumElements();
  auto i64 = b.getI64Type();
  Value ar = aten::ArangeOp::create(b, loc, RankedTensorType::get({n}, i64), ValueRange{},
                                    b.getI64IntegerAttr(0), b.getI64IntegerAttr(n),
                                    b.getI64IntegerAttr(1));
  Value ki = arith::IndexCastOp::create(b, loc, i64, k);
  Value k0 = tensor::FromElementsOp::create(b, loc, RankedTensorType::get({}, i64), ValueRange{ki});
  Value eq = aten::EqTensorOp::create(b, loc, RankedTensorType::get({n}, b.getI1Type()), ar, k0);
  Type elem = type.getElementType();
  auto scalar = [&](double v) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({}, elem), b.getFloatAttr(elem, v)));
  };
  Value flat = aten::WhereSelfOp::create(b, loc, RankedTensorType::get({n}, elem), eq, scalar(1.0),
                                         scalar(0.0));
  if (type.getRank() == 1)
    return flat;
  return aten::ViewOp::create(b, loc, type, flat, ValueRange{},
                              b.getDenseI64ArrayAttr(type.getShape()));
}

/// `v` (static) viewed as one row [1, numel] and inserted as row `k` of `acc`.
Value insertRow(OpBuilder &b, Location loc, Value acc, Value v, Value k) {
  auto ty = cast<RankedTensorType>(v.getType());
  int64_t n = ty.getNumElements();
  auto rowTy = RankedTensorType::get({1, n}, ty.getElementType());
  Value row = aten::ViewOp::create(b, loc, rowTy, v, ValueRange{}, b.getDenseI64ArrayAttr({1, n}));
  SmallVector<OpFoldResult> offsets{k, b.getIndexAttr(0)}, sizes{b.getIndexAttr(1), b.getIndexAttr(n)},
      strides{b.getIndexAttr(1), b.getIndexAttr(1)};
  return tensor::InsertSliceOp::create(b, loc, row, acc, offsets, sizes, strides);
}

/// `m` [rows, cols] viewed as `shape`.
Value viewAs(OpBuilder &b, Location loc, Value m, ArrayRef<int64_t> shape) {
  auto ty = RankedTensorType::get(shape, cast<RankedTensorType>(m.getType()).getElementType());
  return aten::ViewOp::create(b, loc, ty, m, ValueRange{}, b.getDenseI64ArrayAttr(shape));
}

SmallVector<int64_t> concat(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  SmallVector<int64_t> r(a);
  r.append(c.begin(), c.end());
  return r;
}

/// Sets the name of result `i` of `fn`.
void nameResult(OpBuilder &b, func::FuncOp fn, unsigned i, const std::string &name) {
  fn.setResultAttr(i, kiln::attrs::kName, b.getStringAttr(name));
}

func::FuncOp jacobianEntry(OpBuilder &b, Model &m, Location loc, FunctionType ft) {
  int64_t n = m.out.getNumElements();
  SmallVector<Type> results{m.out};
  for (int64_t i : m.wrt)
    results.push_back(RankedTensorType::get(
        concat(m.out.getShape(), cast<RankedTensorType>(ft.getInput(i)).getShape()),
        cast<RankedTensorType>(ft.getInput(i)).getElementType()));
  func::FuncOp fn = makeEntry(b, m, b.getFunctionType(ft.getInputs(), results));
  for (auto [k, u] : llvm::enumerate(m.userIndex))
    nameResult(b, fn, k + 1, KILN_JACOBIAN_INPUT_PREFIX + std::to_string(u));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  // Row k of each Jacobian is the gradient of output element k: one vjp with
  // the k-th basis cotangent per iteration, carried as [n, numel(input)].
  SmallVector<Value> inits;
  for (int64_t i : m.wrt) {
    auto in = cast<RankedTensorType>(ft.getInput(i));
    inits.push_back(tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n, in.getNumElements()},
                                            in.getElementType()));
  }
  Value lb = arith::ConstantIndexOp::create(b, loc, 0), ub = arith::ConstantIndexOp::create(b, loc, n),
        one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, one, inits, [&](OpBuilder &lb2, Location l, Value k, ValueRange acc) {
        Value ct = oneHot(lb2, l, m.out, k);
        auto vjp = modelVjp(lb2, l, m, body, ct);
        SmallVector<Value> next;
        for (unsigned j = 0; j < m.wrt.size(); ++j)
          next.push_back(insertRow(lb2, l, acc[j], vjp.getResult(m.numResults + j), k));
        scf::YieldOp::create(lb2, l, next);
      });
  SmallVector<Value> fwd = forwardResults(b, loc, m, body->getArguments());
  SmallVector<Value> rets{fwd[0]};
  for (unsigned j = 0; j < m.wrt.size(); ++j)
    rets.push_back(viewAs(b, loc, loop.getResult(j), cast<RankedTensorType>(results[j + 1]).getShape()));
  return returnWithUpdates(b, loc, fn, rets, fwd);
}

func::FuncOp hessianEntry(OpBuilder &b, Model &m, Location loc, FunctionType ft) {
  func::FuncOp gradFn = makeGradFn(b, m);
  auto inTy = [&](unsigned j) { return cast<RankedTensorType>(ft.getInput(m.wrt[j])); };
  unsigned w = m.wrt.size();
  // Block (j, i): d^2 sum(output) / d input_j d input_i, shaped input_j x input_i.
  SmallVector<Type> results{m.out};
  for (unsigned j = 0; j < w; ++j)
    for (unsigned i = 0; i < w; ++i)
      results.push_back(RankedTensorType::get(concat(inTy(j).getShape(), inTy(i).getShape()),
                                              inTy(i).getElementType()));
  func::FuncOp fn = makeEntry(b, m, b.getFunctionType(ft.getInputs(), results));
  for (unsigned j = 0; j < w; ++j)
    for (unsigned i = 0; i < w; ++i)
      nameResult(b, fn, 1 + j * w + i,
                 KILN_HESSIAN_INPUT_PREFIX + std::to_string(m.userIndex[j]) + "_input" +
                     std::to_string(m.userIndex[i]));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<Value> fwd = forwardResults(b, loc, m, body->getArguments());
  SmallVector<Value> rets{fwd[0]};
  Value zero = arith::ConstantIndexOp::create(b, loc, 0), one = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned j = 0; j < w; ++j) {
    // Row l of block (j, i) is the tangent of gradient i along the l-th basis
    // vector of input j (forward mode over the reverse-mode gradient).
    SmallVector<Value> inits;
    int64_t nj = inTy(j).getNumElements();
    for (unsigned i = 0; i < w; ++i)
      inits.push_back(tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{nj, inTy(i).getNumElements()},
                                              inTy(i).getElementType()));
    Value ub = arith::ConstantIndexOp::create(b, loc, nj);
    auto loop = scf::ForOp::create(
        b, loc, zero, ub, one, inits, [&](OpBuilder &lb, Location l, Value k, ValueRange acc) {
          Value t = oneHot(lb, l, inTy(j), k);
          auto jvp = jvpOf(lb, l, gradFn, body->getArguments(), ValueRange{t}, {m.wrt[j]});
          SmallVector<Value> next;
          for (unsigned i = 0; i < w; ++i)
            next.push_back(insertRow(lb, l, acc[i], jvp.getResult(1 + w + 1 + i), k));
          scf::YieldOp::create(lb, l, next);
        });
    for (unsigned i = 0; i < w; ++i)
      rets.push_back(viewAs(b, loc, loop.getResult(i),
                            cast<RankedTensorType>(results[1 + j * w + i]).getShape()));
  }
  return returnWithUpdates(b, loc, fn, rets, fwd);
}

func::FuncOp hvpEntry(OpBuilder &b, Model &m, Location loc, FunctionType ft) {
  MLIRContext *ctx = b.getContext();
  func::FuncOp gradFn = makeGradFn(b, m);
  // The arguments, then one vector per float user input; the output, then
  // H v for each input.
  SmallVector<Type> args(ft.getInputs());
  SmallVector<Type> results{m.out};
  for (int64_t i : m.wrt) {
    args.push_back(ft.getInput(i));
    results.push_back(ft.getInput(i));
  }
  func::FuncOp fn = makeEntry(b, m, b.getFunctionType(args, results));
  for (auto [k, i] : llvm::enumerate(m.wrt)) {
    unsigned a = ft.getNumInputs() + k;
    DictionaryAttr attrs = m.entry.getArgAttrDict(i);
    NamedAttrList list(attrs ? attrs : DictionaryAttr::get(ctx));
    list.set(kiln::attrs::kKind, b.getStringAttr("input"));
    list.set(kiln::attrs::kName, b.getStringAttr(KILN_TANGENT_PREFIX + std::to_string(m.userIndex[k])));
    list.set("bufferization.writable", b.getBoolAttr(false));
    fn.setArgAttrs(a, list.getDictionary(ctx));
    nameResult(b, fn, 1 + k, KILN_HVP_INPUT_PREFIX + std::to_string(m.userIndex[k]));
  }
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  auto jvp = jvpOf(b, loc, gradFn, body->getArguments().take_front(ft.getNumInputs()),
                   body->getArguments().drop_front(ft.getNumInputs()), m.wrt);
  SmallVector<Value> rets{jvp.getResult(0)};
  unsigned w = m.wrt.size();
  for (unsigned i = 0; i < w; ++i)
    rets.push_back(jvp.getResult(1 + w + 1 + i));
  SmallVector<Value> fwd;
  if (m.numResults > 1)
    fwd = forwardResults(b, loc, m, body->getArguments().take_front(ft.getNumInputs()));
  return returnWithUpdates(b, loc, fn, rets, fwd);
}

/// Checks the model for `flag` (see checkModel), then builds its entry with `build`.
FailureOr<func::FuncOp> buildCheckedEntry(ModuleOp module, func::FuncOp entry, StringRef flag,
                                          bool needStatic,
                                          func::FuncOp (*build)(OpBuilder &, Model &, Location,
                                                                FunctionType)) {
  auto model = checkModel(entry, flag, needStatic);
  if (failed(model))
    return failure();
  OpBuilder b(module.getContext());
  return build(b, *model, entry.getLoc(), entry.getFunctionType());
}

} // namespace

FailureOr<func::FuncOp> kiln::buildJacobianEntry(ModuleOp module, func::FuncOp entry) {
  return buildCheckedEntry(module, entry, "--jacobian", /*needStatic=*/true, jacobianEntry);
}
FailureOr<func::FuncOp> kiln::buildHessianEntry(ModuleOp module, func::FuncOp entry) {
  return buildCheckedEntry(module, entry, "--hessian", /*needStatic=*/true, hessianEntry);
}
FailureOr<func::FuncOp> kiln::buildHvpEntry(ModuleOp module, func::FuncOp entry) {
  return buildCheckedEntry(module, entry, "--hvp", /*needStatic=*/false, hvpEntry);
}
