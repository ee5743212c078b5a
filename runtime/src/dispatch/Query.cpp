// kiln runtime — the C query API the compiler asks the dispatcher through (kiln/abi/query.h).
#include "kiln/abi/query.h"

#include "kiln/dispatcher.h"
#include "kiln/schema.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln {
namespace {

/// A kiln_query_op and the storage its pointers point into.
struct QueryOpStorage {
  kiln_query_op op{};
  std::string name;
  std::vector<kiln_query_arg> args;
  std::vector<std::string> argNames, argTypes, strDefaults;
  std::vector<std::vector<int64_t>> intDefaults;
  std::vector<std::vector<double>> floatDefaults;
  std::vector<std::string> keys;
  std::vector<const char *> keyPtrs;
};

std::mutex gLiveMutex;
std::unordered_map<kiln_query_op *, std::unique_ptr<QueryOpStorage>> gLive;

void setDefault(const IValue &v, kiln_query_arg &a, QueryOpStorage &s, size_t i) {
  if (v.isNone()) {
    a.default_kind = KILN_QUERY_DEFAULT_NONE;
  } else if (v.isBool()) {
    a.default_kind = KILN_QUERY_DEFAULT_BOOL;
    a.i = v.toBool();
  } else if (v.isInt()) {
    a.default_kind = KILN_QUERY_DEFAULT_INT;
    a.i = v.toInt();
  } else if (v.isDouble()) {
    a.default_kind = KILN_QUERY_DEFAULT_FLOAT;
    a.f = v.toDouble();
  } else if (v.isIntList()) {
    a.default_kind = KILN_QUERY_DEFAULT_INT_LIST;
    s.intDefaults[i] = v.toIntList();
  } else if (v.isDoubleList()) {
    a.default_kind = KILN_QUERY_DEFAULT_FLOAT_LIST;
    s.floatDefaults[i] = v.toDoubleList();
  } else if (v.isString()) {
    a.default_kind = KILN_QUERY_DEFAULT_STRING;
    s.strDefaults[i] = v.toString();
  }
}

std::unique_ptr<QueryOpStorage> describe(const OperatorHandle &h) {
  const FunctionSchema &schema = h.schema();
  auto s = std::make_unique<QueryOpStorage>();
  size_t n = schema.arguments.size();
  s->name = schema.qualifiedName();
  s->args.resize(n);
  s->argNames.resize(n);
  s->argTypes.resize(n);
  s->strDefaults.resize(n);
  s->intDefaults.resize(n);
  s->floatDefaults.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Argument &arg = schema.arguments[i];
    kiln_query_arg &a = s->args[i];
    s->argNames[i] = arg.name;
    s->argTypes[i] = arg.type->str();
    a.is_tensor = arg.type->isTensorLike();
    if (arg.defaultValue) setDefault(*arg.defaultValue, a, *s, i);
  }
  // Pointers last: the vectors no longer grow.
  for (size_t i = 0; i < n; ++i) {
    kiln_query_arg &a = s->args[i];
    a.name = s->argNames[i].c_str();
    a.type = s->argTypes[i].c_str();
    a.str = s->strDefaults[i].c_str();
    a.count = a.default_kind == KILN_QUERY_DEFAULT_INT_LIST     ? (int64_t)s->intDefaults[i].size()
              : a.default_kind == KILN_QUERY_DEFAULT_FLOAT_LIST ? (int64_t)s->floatDefaults[i].size()
                                                                : 0;
    a.ints = s->intDefaults[i].data();
    a.floats = s->floatDefaults[i].data();
  }
  for (DispatchKey k : h.registeredKeys()) s->keys.push_back(dispatchKeyName(k));
  for (const std::string &k : s->keys) s->keyPtrs.push_back(k.c_str());
  kiln_query_op &op = s->op;
  op.qualified_name = s->name.c_str();
  op.num_args = (int64_t)n;
  op.args = s->args.data();
  op.num_returns = (int64_t)schema.returns.size();
  op.all_returns_tensors = 1;
  for (const Argument &r : schema.returns) op.all_returns_tensors &= r.type->isTensor();
  op.has_fake = h.hasFake();
  op.has_backward = (bool)h.backward();
  op.has_vmap = (bool)h.vmapRule();
  op.num_kernel_keys = (int64_t)s->keyPtrs.size();
  op.kernel_keys = s->keyPtrs.data();
  return s;
}

} // namespace
} // namespace kiln

extern "C" int32_t kiln_query_version(void) { return KILN_QUERY_VERSION; }

extern "C" int32_t kiln_query_load_plugin(const char *path, const char **error) {
  static thread_local std::string tError;
  try {
    tError.clear();
    if (!path) tError = "no plugin path given";
    else if (kiln::loadPlugin(path, tError)) return 0;
  } catch (const std::exception &e) {
    tError = e.what();
  } catch (...) {
    tError = "unknown error";
  }
  if (error) *error = tError.c_str();
  return 1;
}

extern "C" int32_t kiln_query_find_op(const char *qualified_name, kiln_query_op **op) {
  if (op) *op = nullptr;
  if (!qualified_name || !op) return 1;
  try {
    kiln::OperatorHandle h = kiln::Dispatcher::get().findOp(qualified_name);
    if (!h.valid() || !h.hasSchema()) return 1;
    std::unique_ptr<kiln::QueryOpStorage> s = kiln::describe(h);
    kiln_query_op *result = &s->op;
    std::lock_guard<std::mutex> g(kiln::gLiveMutex);
    kiln::gLive.emplace(result, std::move(s));
    *op = result;
    return 0;
  } catch (...) {
    return 1;
  }
}

extern "C" void kiln_query_op_free(kiln_query_op *op) {
  if (!op) return;
  std::unique_ptr<kiln::QueryOpStorage> s;
  {
    std::lock_guard<std::mutex> g(kiln::gLiveMutex);
    auto it = kiln::gLive.find(op);
    if (it == kiln::gLive.end()) return;
    s = std::move(it->second);
    kiln::gLive.erase(it);
  }
}
