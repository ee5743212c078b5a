//===- DerivedArgs.cpp - entry arguments the loader derives from weights --===//
#include "DerivedArgs.h"

#include "ATen/IR/AttrNames.h"
#include "kiln/abi/model_format.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {

DerivedArgs::DerivedArgs(func::FuncOp fn) : fn(fn) {
  // Weights the program writes change between runs: a value derived from
  // them at load would go stale.
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    if (fn.getResultAttr(i, attrs::kUpdate))
      if (auto name = fn.getResultAttrOfType<StringAttr>(i, attrs::kName))
        updated.insert(name.getValue());
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, attrs::kName))
      names.insert(name.getValue());
}

StringAttr DerivedArgs::weightName(Value v, Type elem) const {
  auto arg = dyn_cast_or_null<BlockArgument>(v);
  if (!arg || arg.getOwner() != &fn.front())
    return {};
  auto kind = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attrs::kKind);
  auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attrs::kName);
  if (!kind || !name || updated.contains(name.getValue()))
    return {};
  if (kind.getValue() != "param" && kind.getValue() != "buffer" && kind.getValue() != "constant")
    return {};
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getElementType() != elem || !type.hasStaticShape())
    return {};
  return name;
}

Value DerivedArgs::add(StringRef recipe, ArrayRef<Attribute> from, double eps, RankedTensorType type,
                       StringRef base, Location loc) {
  std::string name = base.str();
  for (int n = 2; names.contains(name); ++n)
    name = (base + "." + std::to_string(n)).str();
  names.insert(name);
  MLIRContext *ctx = fn.getContext();
  Builder b(ctx);
  NamedAttrList argAttrs;
  argAttrs.set(attrs::kKind, b.getStringAttr(KILN_ARG_KIND_DERIVED));
  argAttrs.set(attrs::kName, b.getStringAttr(name));
  NamedAttrList how;
  how.set("recipe", b.getStringAttr(recipe));
  how.set("from", b.getArrayAttr(from));
  how.set("eps", b.getF64FloatAttr(eps));
  argAttrs.set(attrs::kDerive, how.getDictionary(ctx));
  unsigned index = fn.getNumArguments();
  if (failed(fn.insertArgument(index, type, argAttrs.getDictionary(ctx), loc)))
    return {};
  return fn.getArgument(index);
}

} // namespace kiln
