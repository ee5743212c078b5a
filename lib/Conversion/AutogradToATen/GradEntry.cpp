//===- GradEntry.cpp - the value-and-gradient entry of kiln-compile --grad ===//
#include "kiln/Conversion/AutogradToATen.h"
#include "kiln/abi/io_names.h"
#include "ATen/IR/AttrNames.h"

#include "ATen/IR/ATenDialect.h"
#include "Autograd/IR/AutogradDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using kiln::autograd::isFloatTensor;

namespace {
/// The results of a program entry: the user outputs, then the new values of
/// mutated state (kiln.update: a training batch norm's running statistics,
/// ...), which the importer puts last. Each update writes the argument of its
/// name and type.
struct EntryResults {
  unsigned numOuts = 0;
  SmallVector<unsigned> updatedArg; ///< per update, the argument it writes
};
FailureOr<EntryResults> entryResults(func::FuncOp entry) {
  FunctionType ft = entry.getFunctionType();
  EntryResults r;
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    if (entry.getResultAttr(i, kiln::attrs::kUpdate))
      continue;
    if (i != r.numOuts)
      return entry.emitError("output ") << i << " follows a state update; updates come last";
    ++r.numOuts;
  }
  for (unsigned i = r.numOuts; i < ft.getNumResults(); ++i) {
    auto uname = entry.getResultAttrOfType<StringAttr>(i, kiln::attrs::kName);
    unsigned a = 0;
    for (; a < ft.getNumInputs(); ++a)
      if (entry.getArgAttrOfType<StringAttr>(a, kiln::attrs::kName) == uname &&
          ft.getInput(a) == ft.getResult(i))
        break;
    if (!uname || a == ft.getNumInputs())
      return entry.emitError("result ") << i << " updates state that is no argument of the program";
    r.updatedArg.push_back(a);
  }
  return r;
}
} // namespace

FailureOr<func::FuncOp> kiln::buildGradEntry(ModuleOp module, func::FuncOp entry) {
  MLIRContext *ctx = module.getContext();
  FunctionType ft = entry.getFunctionType();
  // The user outputs, then the state updates. These stay results of the
  // gradient entry, applied as the model applies them, and carry no gradient.
  FailureOr<EntryResults> results = entryResults(entry);
  if (failed(results))
    return failure();
  unsigned numOuts = results->numOuts;
  // Outputs that are not floating point (a mask or indices handed on to the
  // next graph) carry no gradient: their cotangent argument (zeros, as
  // torch.autograd materialises for them) is taken and ignored, and the primal
  // returns them through stop_gradient.
  SmallVector<unsigned> constantOuts;
  for (unsigned i = 0; i < numOuts; ++i)
    if (!isFloatTensor(ft.getResult(i)))
      constantOuts.push_back(i);
  TypeRange outTypes = ft.getResults().take_front(numOuts);
  TypeRange updateTypes = ft.getResults().drop_front(numOuts);
  // Each update's cotangent is ignored (the primal returns it through
  // stop_gradient); the argument it updates has its type and stands in.
  ArrayRef<unsigned> updatedArg = results->updatedArg;
  std::string name = entry.getName().str();
  OpBuilder b(ctx);
  b.setInsertionPoint(entry);

  // The gradient entry: the same arguments, then one cotangent per output.
  SmallVector<Type> argTypes(ft.getInputs());
  argTypes.append(outTypes.begin(), outTypes.end());
  SmallVector<int64_t> wrtInputs, wrtParams;
  SmallVector<std::string> inputGradNames;
  int64_t userInput = 0;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind);
    StringRef k = kind ? kind.getValue() : "input";
    if (k == "input") {
      if (isFloatTensor(ft.getInput(i))) {
        wrtInputs.push_back(i);
        inputGradNames.push_back(KILN_GRADS_INPUT_PREFIX + std::to_string(userInput));
      }
      ++userInput;
    } else if (k == "param" && isFloatTensor(ft.getInput(i))) {
      wrtParams.push_back(i);
    }
  }
  SmallVector<int64_t> wrt(wrtParams);
  wrt.append(wrtInputs);
  llvm::sort(wrt);
  SmallVector<Type> resultTypes(outTypes);
  for (int64_t i : wrtInputs)
    resultTypes.push_back(ft.getInput(i));
  for (int64_t i : wrtParams)
    resultTypes.push_back(ft.getInput(i));
  resultTypes.append(updateTypes.begin(), updateTypes.end());

  auto gradFn = func::FuncOp::create(b, entry.getLoc(), name, b.getFunctionType(argTypes, resultTypes));
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    gradFn.setArgAttrs(i, entry.getArgAttrDict(i));
  for (unsigned i = 0; i < numOuts; ++i) {
    // The cotangent has the output's dims: its symbols where the importer
    // recorded them (so the loader checks a dynamic batch against the
    // inputs'), else the static sizes and `?`.
    ArrayAttr dimsAttr = entry.getResultAttrOfType<ArrayAttr>(i, kiln::attrs::kDims);
    if (!dimsAttr) {
      auto rt = cast<RankedTensorType>(ft.getResult(i));
      SmallVector<Attribute> dims;
      for (int64_t d : rt.getShape())
        dims.push_back(d == ShapedType::kDynamic ? Attribute(b.getStringAttr("?"))
                                                 : Attribute(b.getI64IntegerAttr(d)));
      dimsAttr = b.getArrayAttr(dims);
    }
    unsigned a = ft.getNumInputs() + i;
    gradFn.setArgAttr(a, "bufferization.writable", b.getBoolAttr(false));
    gradFn.setArgAttr(a, kiln::attrs::kDims, dimsAttr);
    gradFn.setArgAttr(a, kiln::attrs::kKind, b.getStringAttr("input"));
    gradFn.setArgAttr(a, kiln::attrs::kName, b.getStringAttr(KILN_COTANGENT_PREFIX + std::to_string(i)));
    gradFn.setResultAttrs(i, entry.getResultAttrDict(i));
  }
  unsigned r = numOuts;
  for (auto [k, i] : llvm::enumerate(wrtInputs))
    gradFn.setResultAttr(r++, kiln::attrs::kName, b.getStringAttr(inputGradNames[k]));
  for (int64_t i : wrtParams) {
    auto pname = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kName);
    gradFn.setResultAttr(r++, kiln::attrs::kName,
                         b.getStringAttr(pname ? KILN_GRADS_PREFIX + pname.str() : KILN_GRADS_ARG_PREFIX + std::to_string(i)));
  }
  for (unsigned i = numOuts; i < ft.getNumResults(); ++i)
    gradFn.setResultAttrs(r++, entry.getResultAttrDict(i));

  // The original body becomes the private primal function.
  SymbolTable symbols(module);
  entry.setPrivate();
  if (failed(symbols.rename(entry, name + "_primal")))
    return entry.emitError("cannot rename the entry to '") << name << "_primal'";
  if (numOuts < ft.getNumResults() || !constantOuts.empty()) {
    if (!llvm::hasSingleElement(entry.getBody()))
      return entry.emitError("cannot differentiate a program with control flow");
    auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
    OpBuilder rb(ret);
    SmallVector<unsigned> stopped(constantOuts);
    for (unsigned i = numOuts; i < ft.getNumResults(); ++i)
      stopped.push_back(i);
    for (unsigned i : stopped)
      ret.setOperand(i, autograd::StopGradientOp::create(rb, ret.getLoc(), ret.getOperand(i)));
  }
  Block *body = gradFn.addEntryBlock();
  b.setInsertionPointToStart(body);
  ValueRange args = body->getArguments();
  SmallVector<Type> vjpTypes(ft.getResults());
  for (int64_t i : wrt)
    vjpTypes.push_back(ft.getInput(i));
  SmallVector<Value> cotangents(args.drop_front(ft.getNumInputs()));
  for (unsigned a : updatedArg)
    cotangents.push_back(args[a]);
  auto vjp = autograd::VjpOp::create(b, entry.getLoc(), vjpTypes,
                                     FlatSymbolRefAttr::get(entry.getSymNameAttr()),
                                     args.take_front(ft.getNumInputs()), cotangents,
                                     b.getDenseI64ArrayAttr(wrt));
  // vjp gives gradients in argument order; the entry lists inputs first.
  SmallVector<Value> rets(vjp.getResults().take_front(numOuts));
  auto gradOf = [&](int64_t arg) {
    return vjp.getResult(ft.getNumResults() + (llvm::find(wrt, arg) - wrt.begin()));
  };
  for (int64_t i : wrtInputs)
    rets.push_back(gradOf(i));
  for (int64_t i : wrtParams)
    rets.push_back(gradOf(i));
  for (unsigned i = numOuts; i < ft.getNumResults(); ++i)
    rets.push_back(vjp.getResult(i));
  func::ReturnOp::create(b, entry.getLoc(), rets);
  // Keep the entry's place first in the module for readers of the IR.
  gradFn->moveBefore(entry);
  return gradFn;
}

FailureOr<func::FuncOp> kiln::buildJvpEntry(ModuleOp module, func::FuncOp entry) {
  FunctionType ft = entry.getFunctionType();
  // The user outputs, then the state updates (as for --grad): the updates
  // are those of the primal computation, returned after the tangents and
  // applied as the model applies them; they have no tangent.
  FailureOr<EntryResults> results = entryResults(entry);
  if (failed(results))
    return failure();
  unsigned numOuts = results->numOuts;
  for (unsigned i = 0; i < numOuts; ++i)
    if (!isFloatTensor(ft.getResult(i)))
      return entry.emitError("--jvp needs floating-point outputs; output ")
             << i << " is " << ft.getResult(i);
  TypeRange outTypes = ft.getResults().take_front(numOuts);
  std::string name = entry.getName().str();
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPoint(entry);
  // The tangent of every floating-point user input, after the arguments.
  SmallVector<int64_t> wrt;
  SmallVector<std::string> tangentNames;
  int64_t userInput = 0;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind);
    if (kind && kind.getValue() != "input")
      continue;
    if (isFloatTensor(ft.getInput(i))) {
      wrt.push_back(i);
      tangentNames.push_back(KILN_TANGENT_PREFIX + std::to_string(userInput));
    }
    ++userInput;
  }
  if (wrt.empty())
    return entry.emitError("--jvp needs a floating-point user input");
  SmallVector<Type> argTypes(ft.getInputs());
  for (int64_t i : wrt)
    argTypes.push_back(ft.getInput(i));
  SmallVector<Type> resultTypes(outTypes);
  resultTypes.append(outTypes.begin(), outTypes.end());
  resultTypes.append(ft.getResults().begin() + numOuts, ft.getResults().end());
  auto jvpFn = func::FuncOp::create(b, entry.getLoc(), name, b.getFunctionType(argTypes, resultTypes));
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    jvpFn.setArgAttrs(i, entry.getArgAttrDict(i));
  for (auto [k, i] : llvm::enumerate(wrt)) {
    unsigned a = ft.getNumInputs() + k;
    DictionaryAttr attrs = entry.getArgAttrDict(i);
    NamedAttrList list(attrs ? attrs : DictionaryAttr::get(ctx));
    list.set(kiln::attrs::kKind, b.getStringAttr("input"));
    list.set(kiln::attrs::kName, b.getStringAttr(tangentNames[k]));
    list.set("bufferization.writable", b.getBoolAttr(false));
    jvpFn.setArgAttrs(a, list.getDictionary(ctx));
  }
  for (unsigned i = 0; i < numOuts; ++i) {
    jvpFn.setResultAttrs(i, entry.getResultAttrDict(i));
    jvpFn.setResultAttr(numOuts + i, kiln::attrs::kName,
                        b.getStringAttr(KILN_TANGENTS_OUTPUT_PREFIX + std::to_string(i)));
  }
  for (unsigned i = numOuts; i < ft.getNumResults(); ++i)
    jvpFn.setResultAttrs(numOuts + i, entry.getResultAttrDict(i));
  SymbolTable symbols(module);
  entry.setPrivate();
  if (failed(symbols.rename(entry, name + "_primal")))
    return entry.emitError("cannot rename the entry to '") << name << "_primal'";
  if (numOuts < ft.getNumResults()) {
    if (!llvm::hasSingleElement(entry.getBody()))
      return entry.emitError("cannot differentiate a program with control flow");
    auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
    OpBuilder rb(ret);
    for (unsigned i = numOuts; i < ft.getNumResults(); ++i)
      ret.setOperand(i, autograd::StopGradientOp::create(rb, ret.getLoc(), ret.getOperand(i)));
  }
  Block *body = jvpFn.addEntryBlock();
  b.setInsertionPointToStart(body);
  ValueRange args = body->getArguments();
  SmallVector<Type> jvpTypes(ft.getResults());
  jvpTypes.append(ft.getResults().begin(), ft.getResults().end());
  auto jvp = autograd::JvpOp::create(b, entry.getLoc(), jvpTypes,
                                     FlatSymbolRefAttr::get(entry.getSymNameAttr()),
                                     args.take_front(ft.getNumInputs()),
                                     args.drop_front(ft.getNumInputs()), b.getDenseI64ArrayAttr(wrt));
  // Outputs, their tangents, then the updates.
  unsigned numResults = ft.getNumResults();
  SmallVector<Value> rets(jvp.getResults().take_front(numOuts));
  for (unsigned i = 0; i < numOuts; ++i)
    rets.push_back(jvp.getResult(numResults + i));
  for (unsigned i = numOuts; i < numResults; ++i)
    rets.push_back(jvp.getResult(i));
  func::ReturnOp::create(b, entry.getLoc(), rets);
  jvpFn->moveBefore(entry);
  return jvpFn;
}

FailureOr<func::FuncOp> kiln::buildTrainStepEntry(ModuleOp module, func::FuncOp entry,
                                                  const TrainStepOptions &options,
                                                  std::vector<AddedState> &added) {
  MLIRContext *ctx = module.getContext();
  FunctionType ft = entry.getFunctionType();
  // Parameters and their names, before the entry is rebuilt.
  SmallVector<std::pair<unsigned, std::string>> params;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind);
    auto name = entry.getArgAttrOfType<StringAttr>(i, kiln::attrs::kName);
    if (kind && kind.getValue() == "param" && isFloatTensor(ft.getInput(i)))
      params.push_back({i, name ? name.str() : "arg" + std::to_string(i)});
  }
  if (params.empty())
    return entry.emitError("--train-step needs a floating-point parameter to train");
  auto gradFn = buildGradEntry(module, entry);
  if (failed(gradFn))
    return failure();
  func::FuncOp fn = *gradFn;
  unsigned numUpdates = 0;
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    numUpdates += (bool)entry.getResultAttr(i, kiln::attrs::kUpdate);
  unsigned numOutputs = ft.getNumResults() - numUpdates;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  // The returned values: outputs, input gradients, one gradient per
  // parameter, then the model's own state updates.
  SmallVector<Value> outs(ret.getOperands().take_front(numOutputs));
  ValueRange paramGrads = ret.getOperands().drop_back(numUpdates).take_back(params.size());
  SmallVector<Value> modelUpdates(ret.getOperands().take_back(numUpdates));
  SmallVector<DictionaryAttr> modelUpdateAttrs;
  for (unsigned i = fn.getNumResults() - numUpdates; i < fn.getNumResults(); ++i)
    modelUpdateAttrs.push_back(fn.getResultAttrDict(i));
  OpBuilder b(ret);
  Location loc = fn.getLoc();
  auto scalar = [&](Type elem, double v) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({}, elem), b.getFloatAttr(elem, v)));
  };
  // Elementwise aten ops; the result has the broadcast shape (the first
  // operand's, in every use here) and the first operand's element type.
  auto binary = [&](auto tag, Value x, Value y) -> Value {
    using OpT = decltype(tag);
    return OpT::create(b, loc, TypeRange{x.getType()}, ValueRange{x, y});
  };
  auto add = [&](Value x, Value y) { return binary(aten::AddTensorOp(), x, y); };
  auto sub = [&](Value x, Value y) { return binary(aten::SubTensorOp(), x, y); };
  auto mul = [&](Value x, Value y) { return binary(aten::MulTensorOp(), x, y); };
  auto div = [&](Value x, Value y) { return binary(aten::DivTensorOp(), x, y); };
  // A zero-initialised optimizer buffer, added as an argument of the entry.
  SmallVector<Value> newBuffers;
  auto addBuffer = [&](const std::string &name, RankedTensorType type) -> FailureOr<Value> {
    unsigned a = fn.getNumArguments();
    if (failed(fn.insertArgument(a, type, {}, loc)))
      return fn.emitError("cannot add the optimizer buffer '") << name << "'";
    fn.setArgAttr(a, "bufferization.writable", b.getBoolAttr(false));
    SmallVector<Attribute> dims;
    for (int64_t d : type.getShape())
      dims.push_back(b.getI64IntegerAttr(d));
    fn.setArgAttr(a, kiln::attrs::kDims, b.getArrayAttr(dims));
    fn.setArgAttr(a, kiln::attrs::kKind, b.getStringAttr("buffer"));
    fn.setArgAttr(a, kiln::attrs::kName, b.getStringAttr(name));
    added.push_back({name, type});
    return fn.getArgument(a);
  };

  // AdamW's step count and bias corrections, shared by every parameter and
  // computed in float64 as PyTorch computes them from the step's value.
  Value f64StepSize, f64Bc2Sqrt;
  bool adamw = options.optimizer == TrainStepOptions::Optimizer::AdamW;
  if (adamw) {
    Type f64 = b.getF64Type();
    auto stepTy = RankedTensorType::get({}, f64);
    auto step = addBuffer("adamw.step", stepTy);
    if (failed(step))
      return failure();
    Value t = add(*step, scalar(f64, 1.0));
    newBuffers.push_back(t);
    auto pow = [&](double base) {
      return aten::PowTensorTensorOp::create(b, loc, stepTy, scalar(f64, base), t).getResult();
    };
    Value bc1 = sub(scalar(f64, 1.0), pow(options.beta1));
    Value bc2 = sub(scalar(f64, 1.0), pow(options.beta2));
    f64StepSize = div(scalar(f64, options.lr), bc1);
    f64Bc2Sqrt = aten::SqrtOp::create(b, loc, stepTy, bc2);
  }
  auto toElem = [&](Value v, Type elem) -> Value {
    auto ty = RankedTensorType::get({}, elem);
    if (v.getType() == ty)
      return v;
    return aten::ToCopyOp::create(b, loc, ty, v);
  };

  SmallVector<Value> newParams;
  for (auto [k, pr] : llvm::enumerate(params)) {
    Value p = fn.getArgument(pr.first), g = paramGrads[k];
    auto type = cast<RankedTensorType>(p.getType());
    Type elem = type.getElementType();
    if (!adamw) {
      if (options.weightDecay != 0.0)
        g = add(g, mul(p, scalar(elem, options.weightDecay)));
      Value step = g;
      if (options.momentum != 0.0) {
        auto buf = addBuffer("sgd.momentum." + pr.second, type);
        if (failed(buf))
          return failure();
        step = add(mul(*buf, scalar(elem, options.momentum)), g);
        newBuffers.push_back(step);
      }
      newParams.push_back(sub(p, mul(step, scalar(elem, options.lr))));
      continue;
    }
    auto m = addBuffer("adamw.exp_avg." + pr.second, type);
    if (failed(m))
      return failure();
    auto v = addBuffer("adamw.exp_avg_sq." + pr.second, type);
    if (failed(v))
      return failure();
    if (options.weightDecay != 0.0)
      p = mul(p, scalar(elem, 1.0 - options.lr * options.weightDecay));
    Value m1 = add(*m, mul(sub(g, *m), scalar(elem, 1.0 - options.beta1)));
    Value v1 = add(mul(*v, scalar(elem, options.beta2)), mul(mul(g, g), scalar(elem, 1.0 - options.beta2)));
    newBuffers.push_back(m1);
    newBuffers.push_back(v1);
    Value sq = aten::SqrtOp::create(b, loc, type, v1);
    Value denom = add(div(sq, toElem(f64Bc2Sqrt, elem)), scalar(elem, options.eps));
    newParams.push_back(sub(p, mul(div(m1, denom), toElem(f64StepSize, elem))));
  }
  SmallVector<Value> results(outs);
  results.append(newParams);
  results.append(modelUpdates);
  results.append(newBuffers);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < numOutputs; ++i)
    resultAttrs.push_back(fn.getResultAttrDict(i));
  fn.setType(FunctionType::get(ctx, fn.getArgumentTypes(), ValueRange(results).getTypes()));
  SmallVector<Attribute> attrs;
  for (unsigned i = 0; i < results.size(); ++i) {
    NamedAttrList list;
    if (i < numOutputs) {
      if (resultAttrs[i])
        list.append(resultAttrs[i].getValue());
    } else if (i < numOutputs + params.size()) {
      list.set(kiln::attrs::kName, b.getStringAttr(params[i - numOutputs].second));
      list.set(kiln::attrs::kUpdate, b.getStringAttr("param"));
    } else if (i < numOutputs + params.size() + numUpdates) {
      list.append(modelUpdateAttrs[i - numOutputs - params.size()].getValue());
    } else {
      list.set(kiln::attrs::kName,
               b.getStringAttr(added[i - numOutputs - params.size() - numUpdates].name));
      list.set(kiln::attrs::kUpdate, b.getStringAttr("buffer"));
    }
    attrs.push_back(list.getDictionary(ctx));
  }
  fn.setAllResultAttrs(attrs);
  return fn;
}
