//===- Manifest.cpp - the model manifest and weight layout ----------------===//
#include "kiln/Target/CPU.h"

#include "ATen/IR/AttrNames.h"
#include "kiln/abi/model_format.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/Path.h"

#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

using namespace mlir;

namespace kiln {

/// Manifest dtype spelling of an element type (empty if unsupported).
static std::string dtypeName(Type t) {
  if (t.isF32()) return KILN_DTYPE_TOKEN_F32;
  if (t.isF64()) return KILN_DTYPE_TOKEN_F64;
  if (t.isF16()) return KILN_DTYPE_TOKEN_F16;
  if (t.isBF16()) return KILN_DTYPE_TOKEN_BF16;
  if (t.isInteger(1)) return KILN_DTYPE_TOKEN_BOOL;
  if (auto it = dyn_cast<IntegerType>(t)) {
    if (it.isUnsigned() && it.getWidth() == 8) return KILN_DTYPE_TOKEN_U8;
    switch (it.getWidth()) {
    case 8: return KILN_DTYPE_TOKEN_I8;
    case 16: return KILN_DTYPE_TOKEN_I16;
    case 32: return KILN_DTYPE_TOKEN_I32;
    case 64: return KILN_DTYPE_TOKEN_I64;
    }
  }
  return "";
}

static size_t elementBytes(Type t) {
  return t.isInteger(1) ? 1 : (t.getIntOrFloatBitWidth() + 7) / 8;
}

FailureOr<std::string> buildManifest(ModuleOp module, func::FuncOp forward,
                                     const WeightMap &weights,
                                     WeightPlacement placement, WeightLayout &layout,
                                     StringRef device, ArrayRef<std::string> plugins) {
  const bool embedWeights = placement != WeightPlacement::External;
  std::ostringstream os;
  os << "kiln-manifest " << KILN_MANIFEST_VERSION << "\n";
  os << "name " << forward.getName().str() << "\n";
  os << "weights "
     << (placement == WeightPlacement::Embedded   ? "embedded"
         : placement == WeightPlacement::Appended ? "appended"
                                                  : "external")
     << "\n";
  if (!device.empty())
    os << "device " << device.str() << "\n";
  if (auto syms = module->getAttrOfType<DictionaryAttr>(kiln::attrs::kSymbols))
    for (NamedAttribute s : syms) {
      auto range = cast<DenseI64ArrayAttr>(s.getValue()).asArrayRef();
      os << "sym " << s.getName().str() << " " << range[0] << " " << range[1] << "\n";
    }
  layout = {};
  std::ostringstream derives;  // `derive` lines, after every `arg`
  for (auto [i, ty] : llvm::enumerate(forward.getArgumentTypes())) {
    auto tt = dyn_cast<RankedTensorType>(ty);
    std::string dt = tt ? dtypeName(tt.getElementType()) : "";
    if (dt.empty())
      return (forward.emitError() << "argument " << i << " has unsupported type " << ty,
              failure());
    auto kind = forward.getArgAttrOfType<StringAttr>(i, kiln::attrs::kKind);
    auto name = forward.getArgAttrOfType<StringAttr>(i, kiln::attrs::kName);
    std::string kindStr = kind ? kind.str() : "input";
    std::string nameStr = name ? name.str() : ("arg" + std::to_string(i));
    os << "arg " << kindStr << " " << nameStr << " " << dt << " " << tt.getRank();
    auto dims = forward.getArgAttrOfType<ArrayAttr>(i, kiln::attrs::kDims);
    for (int64_t d = 0; d < tt.getRank(); ++d) {
      Attribute a = dims && d < (int64_t)dims.size() ? dims[d] : Attribute();
      if (auto s = dyn_cast_or_null<StringAttr>(a))
        os << " " << s.str();
      else if (!tt.isDynamicDim(d))
        os << " " << tt.getDimSize(d);
      else
        os << " ?";
    }
    if (kindStr == KILN_ARG_KIND_DERIVED) {
      // Computed by the loader from the weights (kiln-fold-batch-norm): no data.
      auto how = forward.getArgAttrOfType<DictionaryAttr>(i, kiln::attrs::kDerive);
      auto recipe = how ? how.getAs<StringAttr>("recipe") : StringAttr();
      auto from = how ? how.getAs<ArrayAttr>("from") : ArrayAttr();
      auto eps = how ? how.getAs<FloatAttr>("eps") : FloatAttr();
      if (!recipe || !from || !eps || !tt.hasStaticShape())
        return (forward.emitError() << "derived argument '" << nameStr
                                    << "' has no kiln.derive {recipe, from, eps} or a dynamic shape",
                failure());
      char epsText[32];
      snprintf(epsText, sizeof epsText, "%.17g", eps.getValueAsDouble());
      derives << "derive " << nameStr << " " << recipe.str() << " " << epsText;
      for (Attribute a : from)
        derives << " " << cast<StringAttr>(a).str();
      derives << "\n";
    } else if (kindStr != "input" && kindStr != KILN_ARG_KIND_RNG) {
      if (!tt.hasStaticShape())
        return (forward.emitError() << "weight '" << nameStr << "' has a dynamic shape",
                failure());
      uint64_t nbytes = tt.getNumElements() * elementBytes(tt.getElementType());
      auto it = weights.find(nameStr);
      if (embedWeights) {
        if (it == weights.end())
          return (forward.emitError() << "no data for weight '" << nameStr
                                      << "' (compile with --weights=external to bind it at load time)",
                  failure());
        if (it->second.size() != nbytes)
          return (forward.emitError() << "weight '" << nameStr << "' has " << it->second.size()
                                      << " bytes, its type " << ty << " needs " << nbytes,
                  failure());
        uint64_t offset =
            (layout.totalBytes + KILN_WEIGHT_ALIGNMENT - 1) / KILN_WEIGHT_ALIGNMENT *
            KILN_WEIGHT_ALIGNMENT;
        layout.entries.push_back({nameStr, offset, nbytes});
        layout.totalBytes = offset + nbytes;
        os << " " << offset << " " << nbytes;
      }
    }
    os << "\n";
  }
  os << derives.str();
  bool sawUpdate = false;
  for (auto [i, ty] : llvm::enumerate(forward.getResultTypes())) {
    auto tt = dyn_cast<RankedTensorType>(ty);
    std::string dt = tt ? dtypeName(tt.getElementType()) : "";
    if (dt.empty())
      return (forward.emitError() << "result " << i << " has unsupported type " << ty, failure());
    auto name = forward.getResultAttrOfType<StringAttr>(i, kiln::attrs::kName);
    // A result marked kiln.update is the new value of a mutated weight or
    // input: `update <kind> <name>`; these follow every user output.
    auto update = forward.getResultAttrOfType<StringAttr>(i, kiln::attrs::kUpdate);
    if (update) {
      if (!name)
        return (forward.emitError() << "result " << i << " updates a " << update.str()
                                    << " but names none (kiln.name)",
                failure());
      os << "update " << update.str() << " " << name.str() << " " << dt << " " << tt.getRank();
      sawUpdate = true;
    } else {
      if (sawUpdate)
        return (forward.emitError() << "result " << i
                                    << " is a user output after a state update; updates come last",
                failure());
      os << "out " << (name ? name.str() : KILN_OUTPUT_PREFIX + std::to_string(i)) << " " << dt << " "
         << tt.getRank();
    }
    for (int64_t d : tt.getShape())
      os << " " << (d == ShapedType::kDynamic ? std::string("?") : std::to_string(d));
    os << "\n";
  }
  std::set<std::string> ops;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() == "aten.call_runtime")
      if (auto callee = op->getAttrOfType<StringAttr>("callee"))
        // "ns::op#backward" / "ns::op#vmap" run the op's autograd formula / batching rule.
        ops.insert(callee.getValue().split('#').first.str());
  });
  for (const std::string &op : ops)
    os << "op " << op << "\n";
  for (const std::string &plugin : plugins) {
    std::string file = llvm::sys::path::filename(plugin).str();
    if (!ops.empty() && !file.empty() && llvm::none_of(file, [](char c) { return isspace(c); }))
      os << "plugin " << file << "\n";
  }
  os << "end\n";
  return os.str();
}

} // namespace kiln
