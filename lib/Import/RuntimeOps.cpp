//===- RuntimeOps.cpp - the compiler's window on the runtime dispatcher ---===//
//
// Over the runtime's C query API (kiln/abi/query.h): no runtime C++ header,
// no exception.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/RuntimeOps.h"

#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/abi/query.h"
#include "kiln/abi/rt_call.h"

#include "mlir/IR/Builders.h"

namespace kiln {

bool loadRuntimePlugin(const std::string &path, std::string &err) {
  const char *why = nullptr;
  if (kiln_query_load_plugin(path.c_str(), &why) == 0)
    return true;
  err = why ? why : "unknown error";
  return false;
}

static std::optional<RuntimeDefault> convertDefault(const kiln_query_arg &a) {
  RuntimeDefault d;
  switch (a.default_kind) {
  case KILN_QUERY_DEFAULT_NONE: d.kind = RuntimeDefault::None; break;
  case KILN_QUERY_DEFAULT_BOOL: d.kind = RuntimeDefault::Bool; d.i = a.i; break;
  case KILN_QUERY_DEFAULT_INT: d.kind = RuntimeDefault::Int; d.i = a.i; break;
  case KILN_QUERY_DEFAULT_FLOAT: d.kind = RuntimeDefault::Float; d.f = a.f; break;
  case KILN_QUERY_DEFAULT_INT_LIST:
    d.kind = RuntimeDefault::IntList;
    d.ints.assign(a.ints, a.ints + a.count);
    break;
  case KILN_QUERY_DEFAULT_FLOAT_LIST:
    d.kind = RuntimeDefault::FloatList;
    d.floats.assign(a.floats, a.floats + a.count);
    break;
  case KILN_QUERY_DEFAULT_STRING: d.kind = RuntimeDefault::String; d.s = a.str; break;
  default: return std::nullopt;
  }
  return d;
}

std::optional<RuntimeOpInfo> lookupRuntimeOp(const std::string &qualifiedName) {
  kiln_query_op *op = nullptr;
  if (kiln_query_find_op(qualifiedName.c_str(), &op) != 0 || !op)
    return std::nullopt;
  RuntimeOpInfo info;
  info.qualifiedName = op->qualified_name;
  for (int64_t i = 0; i < op->num_args; ++i) {
    const kiln_query_arg &a = op->args[i];
    RuntimeArgInfo arg;
    arg.name = a.name;
    arg.type = a.type;
    arg.isTensor = a.is_tensor != 0;
    arg.defaultValue = convertDefault(a);
    info.arguments.push_back(std::move(arg));
  }
  info.numReturns = static_cast<unsigned>(op->num_returns);
  info.allReturnsTensors = op->all_returns_tensors != 0;
  info.hasFake = op->has_fake != 0;
  info.hasBackward = op->has_backward != 0;
  info.hasVmap = kiln_query_version() >= 3 && op->has_vmap != 0;
  for (int64_t i = 0; i < op->num_kernel_keys; ++i)
    info.kernelKeys.push_back(op->kernel_keys[i]);
  kiln_query_op_free(op);
  return info;
}

std::string runtimeBackwardCallee(const RuntimeOpInfo &info) {
  return info.hasBackward ? info.qualifiedName + KILN_RT_BACKWARD_SUFFIX : std::string();
}

std::string runtimeVmapCallee(const RuntimeOpInfo &info) {
  return info.hasVmap ? info.qualifiedName + KILN_RT_VMAP_SUFFIX : std::string();
}

void recordRuntimeOpFacts(mlir::Operation *root) {
  root->walk([](aten::CallRuntimeOp op) {
    if (op->hasAttr(attrs::kRuntimeBackward) && op->hasAttr(attrs::kRuntimeVmap))
      return;
    std::optional<RuntimeOpInfo> info = lookupRuntimeOp(op.getCallee().str());
    if (!info)
      return;
    if (info->hasBackward && !op->hasAttr(attrs::kRuntimeBackward))
      op->setAttr(attrs::kRuntimeBackward,
                  mlir::StringAttr::get(op.getContext(), runtimeBackwardCallee(*info)));
    if (info->hasVmap && !op->hasAttr(attrs::kRuntimeVmap))
      op->setAttr(attrs::kRuntimeVmap,
                  mlir::StringAttr::get(op.getContext(), runtimeVmapCallee(*info)));
  });
}

bool hasCompositeRule(const std::string &target) {
  return kiln_query_has_decomposition(target.c_str()) != 0;
}

std::optional<CompositeExpansion>
expandCompositeNode(const std::string &nodeJson,
                    const std::function<std::string(const std::string &)> &metaOf,
                    std::string &err) {
  err.clear();
  struct Ctx {
    const std::function<std::string(const std::string &)> &metaOf;
    std::string last;
  } ctx{metaOf, {}};
  auto meta = [](void *c, const char *name) -> const char * {
    auto *x = static_cast<Ctx *>(c);
    x->last = x->metaOf(name);
    return x->last.c_str();
  };
  kiln_query_expansion *e = nullptr;
  const char *error = nullptr;
  int32_t rc = kiln_query_decompose(nodeJson.c_str(), meta, &ctx, &e, &error);
  if (rc < 0) {
    err = error ? error : "the decomposition table failed";
    return std::nullopt;
  }
  if (rc != 0 || !e)
    return std::nullopt;
  CompositeExpansion out{e->nodes, e->tensor_values, e->rule};
  kiln_query_expansion_free(e);
  return out;
}

std::optional<std::string> lowerComplexGraph(const std::string &graphJson, std::string &err) {
  err.clear();
  char *out = nullptr;
  const char *error = nullptr;
  int32_t rc = kiln_query_lower_complex(graphJson.c_str(), &out, &error);
  if (rc < 0) {
    err = error ? error : "the complex lowering failed";
    return std::nullopt;
  }
  if (rc != 0 || !out)
    return std::nullopt;
  std::string lowered(out);
  kiln_query_string_free(out);
  return lowered;
}

} // namespace kiln
