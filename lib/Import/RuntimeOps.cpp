//===- RuntimeOps.cpp - the compiler's window on the runtime dispatcher ---===//
//
// Built with exceptions (the runtime's C++ API may throw); nothing escapes.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/RuntimeOps.h"

#include "kiln/decompose.h"
#include "kiln/dispatcher.h"
#include "kiln/schema.h"

namespace kiln {

bool loadRuntimePlugin(const std::string &path, std::string &err) {
  try {
    return loadPlugin(path, err);
  } catch (const std::exception &e) {
    err = e.what();
    return false;
  }
}

static std::optional<RuntimeDefault> convertDefault(const IValue &v) {
  RuntimeDefault d;
  if (v.isNone()) {
    d.kind = RuntimeDefault::None;
  } else if (v.isBool()) {
    d.kind = RuntimeDefault::Bool;
    d.i = v.toBool();
  } else if (v.isInt()) {
    d.kind = RuntimeDefault::Int;
    d.i = v.toInt();
  } else if (v.isDouble()) {
    d.kind = RuntimeDefault::Float;
    d.f = v.toDouble();
  } else if (v.isIntList()) {
    d.kind = RuntimeDefault::IntList;
    d.ints = v.toIntList();
  } else if (v.isDoubleList()) {
    d.kind = RuntimeDefault::FloatList;
    d.floats = v.toDoubleList();
  } else if (v.isString()) {
    d.kind = RuntimeDefault::String;
    d.s = v.toString();
  } else {
    return std::nullopt;
  }
  return d;
}

std::optional<RuntimeOpInfo> lookupRuntimeOp(const std::string &qualifiedName) {
  try {
    OperatorHandle op = Dispatcher::get().findOp(qualifiedName);
    if (!op.valid() || !op.hasSchema())
      return std::nullopt;
    const FunctionSchema &schema = op.schema();
    RuntimeOpInfo info;
    info.qualifiedName = schema.qualifiedName();
    for (const Argument &a : schema.arguments) {
      RuntimeArgInfo arg;
      arg.name = a.name;
      arg.type = a.type->str();
      arg.isTensor = a.type->isTensorLike();
      if (a.defaultValue)
        arg.defaultValue = convertDefault(*a.defaultValue);
      info.arguments.push_back(std::move(arg));
    }
    info.numReturns = schema.returns.size();
    for (const Argument &r : schema.returns)
      info.allReturnsTensors &= r.type->isTensor();
    info.hasFake = op.hasFake();
    info.hasBackward = (bool)op.backward();
    for (DispatchKey k : op.registeredKeys())
      info.kernelKeys.push_back(dispatchKeyName(k));
    return info;
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

bool hasCompositeRule(const std::string &target) {
  try {
    return decomp::hasRule(target);
  } catch (const std::exception &) {
    return false;
  }
}

std::optional<CompositeExpansion>
expandCompositeNode(const std::string &nodeJson,
                    const std::function<std::string(const std::string &)> &metaOf,
                    std::string &err) {
  err.clear();
  try {
    auto e = decomp::expand(nodeJson, metaOf);
    if (!e)
      return std::nullopt;
    return CompositeExpansion{e->nodes, e->tensorValues, e->rule};
  } catch (const std::exception &ex) {
    err = ex.what();
    return std::nullopt;
  }
}

} // namespace kiln
