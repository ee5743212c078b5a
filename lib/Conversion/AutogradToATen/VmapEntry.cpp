//===- VmapEntry.cpp - the batched entry of kiln-compile --vmap -----------===//
#include "ATen/IR/AttrNames.h"
#include "Autograd/IR/AutogradDialect.h"
#include "kiln/Conversion/AutogradToATen.h"
#include "kiln/abi/io_names.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace {
/// The batch's symbol in the manifest and its range.
constexpr llvm::StringLiteral kBatchSymbol = "vmap_batch";
constexpr int64_t kBatchMax = 2147483647;

FailureOr<std::vector<int64_t>> parseDims(StringRef text, std::string &error) {
  std::vector<int64_t> dims;
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef p : parts) {
    p = p.trim();
    int64_t d;
    if (p == "none" || p == "None")
      dims.push_back(kiln::kNotBatched);
    else if (!p.getAsInteger(10, d))
      dims.push_back(d);
    else {
      error = "'" + p.str() + "' is not a dim (an integer, or none)";
      return failure();
    }
  }
  return dims;
}
} // namespace

FailureOr<kiln::VmapSpec> kiln::parseVmapSpec(StringRef text, std::string &error) {
  auto [in, out] = text.split(':');
  VmapSpec spec;
  auto ins = parseDims(in, error);
  if (failed(ins))
    return failure();
  spec.inDims = *ins;
  if (!out.empty()) {
    auto outs = parseDims(out, error);
    if (failed(outs))
      return failure();
    for (int64_t d : *outs)
      if (d == kNotBatched) {
        error = "out dims must be integers: every result of a vmap carries the batch";
        return failure();
      }
    spec.outDims = *outs;
  }
  return spec;
}

FailureOr<func::FuncOp> kiln::buildVmapEntry(ModuleOp module, func::FuncOp entry,
                                             const VmapSpec &spec) {
  MLIRContext *ctx = module.getContext();
  FunctionType ft = entry.getFunctionType();
  OpBuilder b(ctx);
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    if (!isa<RankedTensorType>(ft.getResult(i)))
      return emitError(entry.getLoc(), "--vmap needs tensor results; result ") << i << " is " << ft.getResult(i);
  }
  SmallVector<unsigned> userInputs;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, attrs::kKind);
    if (!kind || kind.getValue() == "input")
      userInputs.push_back(i);
  }
  if (spec.inDims.size() != 1 && spec.inDims.size() != userInputs.size())
    return emitError(entry.getLoc(), "--vmap lists ")
           << spec.inDims.size() << " in dims; the program has " << userInputs.size()
           << " inputs (give one dim per input, or one for all)";
  if (!spec.outDims.empty() && spec.outDims.size() != 1 && spec.outDims.size() != ft.getNumResults())
    return emitError(entry.getLoc(), "--vmap lists ")
           << spec.outDims.size() << " out dims; the program has " << ft.getNumResults()
           << " results (give one dim per result, or one for all)";
  // Per argument: the batch dim in the batched type, or -1.
  SmallVector<int64_t> inDims(ft.getNumInputs(), -1);
  for (auto [k, i] : llvm::enumerate(userInputs)) {
    int64_t d = spec.inDims.size() == 1 ? spec.inDims[0] : spec.inDims[k];
    if (d == kNotBatched)
      continue;
    auto tt = dyn_cast<RankedTensorType>(ft.getInput(i));
    int64_t rank = tt ? tt.getRank() + 1 : 0;
    if (!tt || d < -rank || d >= rank)
      return emitError(entry.getLoc(), "--vmap: in dim ")
             << d << " of input " << k << " (" << ft.getInput(i) << ") is out of range for a batched rank of "
             << rank;
    inDims[i] = d < 0 ? d + rank : d;
  }
  if (llvm::all_of(inDims, [](int64_t d) { return d < 0; }))
    return emitError(entry.getLoc(), "--vmap needs at least one batched input");
  SmallVector<int64_t> outDims;
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    // A state update (the new value of an input the program writes into) is
    // written back into that input, so it keeps the input's batch dim; an
    // unbatched input cannot take per-sample values (torch.func.vmap refuses
    // in-place updates of unbatched state too).
    if (auto update = entry.getResultAttrOfType<StringAttr>(i, attrs::kUpdate)) {
      auto target = entry.getResultAttrOfType<StringAttr>(i, attrs::kName);
      int64_t arg = -1;
      for (unsigned a = 0; a < ft.getNumInputs(); ++a) {
        auto kind = entry.getArgAttrOfType<StringAttr>(a, attrs::kKind);
        auto name = entry.getArgAttrOfType<StringAttr>(a, attrs::kName);
        if (kind && name && target && kind.getValue() == update.getValue() && name == target)
          arg = a;
      }
      if (arg < 0 || inDims[arg] < 0)
        return emitError(entry.getLoc(), "--vmap cannot batch a program that updates its state (result ")
               << i << ", " << update.getValue() << " '" << (target ? target.getValue() : "?")
               << "') unless that state is batched; torch.func.vmap refuses in-place updates of "
               << "unbatched state too";
      outDims.push_back(inDims[arg]);
      continue;
    }
    int64_t d = spec.outDims.empty() ? 0 : spec.outDims.size() == 1 ? spec.outDims[0] : spec.outDims[i];
    int64_t rank = cast<RankedTensorType>(ft.getResult(i)).getRank() + 1;
    if (d < -rank || d >= rank)
      return emitError(entry.getLoc(), "--vmap: out dim ") << d << " of result " << i
                                                 << " is out of range for a batched rank of " << rank;
    outDims.push_back(d < 0 ? d + rank : d);
  }
  auto batched = [&](Type t, int64_t dim) -> Type {
    auto tt = cast<RankedTensorType>(t);
    SmallVector<int64_t> shape(tt.getShape());
    shape.insert(shape.begin() + dim, ShapedType::kDynamic);
    return RankedTensorType::get(shape, tt.getElementType());
  };
  // kiln.dims with the batch symbol inserted (or built from the type).
  auto batchedDims = [&](ArrayAttr dims, Type t, int64_t dim) {
    SmallVector<Attribute> out;
    if (dims)
      out.assign(dims.begin(), dims.end());
    else
      for (int64_t s : cast<RankedTensorType>(t).getShape())
        out.push_back(ShapedType::isDynamic(s) ? Attribute(b.getStringAttr("?"))
                                               : Attribute(b.getI64IntegerAttr(s)));
    out.insert(out.begin() + dim, b.getStringAttr(kBatchSymbol));
    return b.getArrayAttr(out);
  };
  SmallVector<Type> argTypes, resultTypes;
  for (unsigned i = 0; i < ft.getNumInputs(); ++i)
    argTypes.push_back(inDims[i] < 0 ? ft.getInput(i) : batched(ft.getInput(i), inDims[i]));
  for (unsigned i = 0; i < ft.getNumResults(); ++i)
    resultTypes.push_back(batched(ft.getResult(i), outDims[i]));

  std::string name = entry.getName().str();
  b.setInsertionPoint(entry);
  auto fn = func::FuncOp::create(b, entry.getLoc(), name, b.getFunctionType(argTypes, resultTypes));
  for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
    fn.setArgAttrs(i, entry.getArgAttrDict(i));
    if (inDims[i] >= 0)
      fn.setArgAttr(i, attrs::kDims,
                    batchedDims(entry.getArgAttrOfType<ArrayAttr>(i, attrs::kDims), ft.getInput(i), inDims[i]));
  }
  for (unsigned i = 0; i < ft.getNumResults(); ++i) {
    fn.setResultAttrs(i, entry.getResultAttrDict(i));
    fn.setResultAttr(i, attrs::kDims,
                     batchedDims(entry.getResultAttrOfType<ArrayAttr>(i, attrs::kDims), ft.getResult(i), outDims[i]));
  }
  SymbolTable symbols(module);
  entry.setPrivate();
  if (failed(symbols.rename(entry, name + "_sample")))
    return emitError(entry.getLoc(), "cannot rename the entry to '") << name << "_sample'";
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  auto vmap = autograd::VmapOp::create(b, entry.getLoc(), resultTypes,
                                       FlatSymbolRefAttr::get(entry.getSymNameAttr()),
                                       body->getArguments(), b.getDenseI64ArrayAttr(inDims),
                                       b.getDenseI64ArrayAttr(outDims));
  func::ReturnOp::create(b, entry.getLoc(), vmap.getResults());
  fn->moveBefore(entry);
  // The batch symbol: any size from 1.
  NamedAttrList syms;
  if (auto d = module->getAttrOfType<DictionaryAttr>(attrs::kSymbols))
    syms.append(d.getValue());
  syms.set(kBatchSymbol, b.getDenseI64ArrayAttr({1, kBatchMax}));
  module->setAttr(attrs::kSymbols, syms.getDictionary(ctx));
  return fn;
}

FailureOr<kiln::VmapSpec> kiln::splitHalfVmapSpec(func::FuncOp entry, const VmapSpec &spec, StringRef half,
                                                  std::string &error) {
  if (!spec.outDims.empty()) {
    error = "out dims cannot be given with --split: the forward half returns every output and residual "
            "with the batch at dim 0, where the backward half reads it, and the gradients come back "
            "with the batch first";
    return failure();
  }
  if (spec.inDims.size() == 1)
    return spec;
  // The entry's user inputs (kind input), by name.
  SmallVector<StringRef> names;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    auto kind = entry.getArgAttrOfType<StringAttr>(i, attrs::kKind);
    if (kind && kind.getValue() != "input")
      continue;
    auto name = entry.getArgAttrOfType<StringAttr>(i, attrs::kName);
    names.push_back(name ? name.getValue() : StringRef());
  }
  auto countOf = [&](auto pred) { return (size_t)llvm::count_if(names, pred); };
  VmapSpec out;
  if (half == "forward") {
    // The model's inputs; the cotangents belong to the backward half.
    size_t outputs = 0;
    for (unsigned i = 0; i < entry.getNumResults(); ++i) {
      auto name = entry.getResultAttrOfType<StringAttr>(i, attrs::kName);
      if (!entry.getResultAttr(i, attrs::kUpdate) && !(name && name.getValue().starts_with(KILN_RESIDUALS_PREFIX)))
        ++outputs;
    }
    if (spec.inDims.size() != names.size() + outputs) {
      error = "lists " + std::to_string(spec.inDims.size()) + " in dims; the program has " +
              std::to_string(names.size()) + " inputs and " + std::to_string(outputs) +
              " cotangents (give one dim per input and cotangent, or one for all)";
      return failure();
    }
    out.inDims.assign(spec.inDims.begin(), spec.inDims.begin() + names.size());
    return out;
  }
  size_t cotangents = countOf([](StringRef n) { return n.starts_with("cotangent"); });
  if (spec.inDims.size() < cotangents) {
    error = "lists " + std::to_string(spec.inDims.size()) + " in dims, fewer than the program's " +
            std::to_string(cotangents) + " cotangents";
    return failure();
  }
  size_t inputs = spec.inDims.size() - cotangents;
  auto module = entry->getParentOfType<ModuleOp>();
  auto modelInputs = module ? module->getAttrOfType<IntegerAttr>(attrs::kSplitModelInputs) : IntegerAttr();
  if (modelInputs && (int64_t)inputs != modelInputs.getInt()) {
    error = "lists " + std::to_string(spec.inDims.size()) + " in dims; the program has " +
            std::to_string(modelInputs.getInt()) + " inputs and " + std::to_string(cotangents) +
            " cotangents (give one dim per input and cotangent, or one for all)";
    return failure();
  }
  for (StringRef n : names) {
    int64_t k = -1;
    if (n.starts_with("cotangent") && !n.drop_front(strlen("cotangent")).getAsInteger(10, k) &&
        (size_t)k < cotangents) {
      out.inDims.push_back(spec.inDims[inputs + k]);
    } else if (n.starts_with(KILN_RESIDUALS_INPUT_PREFIX) &&
               !n.drop_front(strlen(KILN_RESIDUALS_INPUT_PREFIX)).getAsInteger(10, k)) {
      if ((size_t)k >= inputs) {
        error = "lists " + std::to_string(spec.inDims.size()) + " in dims, but the backward half reads input " +
                std::to_string(k) + " of the model and takes " + std::to_string(cotangents) +
                " cotangents (give one dim per input and cotangent, or one for all)";
        return failure();
      }
      out.inDims.push_back(spec.inDims[k]);
    } else if (n.starts_with(KILN_RESIDUALS_PREFIX)) {
      out.inDims.push_back(0); // a result of the forward half: batch first
    } else {
      error = "the backward half takes '" + n.str() + "', neither a residual nor a cotangent";
      return failure();
    }
  }
  return out;
}
