//===- NodeArgs.cpp - the graph importer's view of one node ---------------===//
//
// GraphImporter's accessors for a node: its location, its arguments by
// schema name (tensors, ints, floats, bools, strings, lists, SymInts) with
// ATen's defaults, the tensor types export recorded for its values, the
// result types it names, and binding an op's results to the node's outputs.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"
#include "JsonItems.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/Import/RuntimeOps.h"
#include "kiln/abi/limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <limits>

using namespace mlir;
using llvm::json::Array;
using llvm::json::Object;
namespace json = llvm::json;

namespace kiln::importer {

FailureOr<RankedTensorType> GraphImporter::tensorType(StringRef name, Location loc) {
  const Object *meta = tensorMeta(name);
  if (!meta)
    return ((void)fail(loc, "no tensor metadata for value '" + name + "'"), failure());
  auto dtype = meta->getInteger("dtype");
  Type elem = dtype ? elementTypeFor(&ctx, *dtype) : Type();
  if (!elem)
    return ((void)fail(loc, "value '" + name + "' has an unsupported dtype code " +
                          (dtype ? std::to_string(*dtype) : std::string("(none)"))),
            failure());
  const Array *sizes = meta->getArray("sizes");
  if (!sizes)
    return ((void)fail(loc, "value '" + name + "' has no \"sizes\" list"), failure());
  // Sizes come from the file: check them before anything is shaped by them.
  uint64_t elemBytes = std::max<uint64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  uint64_t maxElems = kiln_limit_tensor_bytes() / elemBytes, elems = 1;
  SmallVector<int64_t> shape;
  for (const json::Value &s : *sizes) {
    const Object *o = s.getAsObject();
    if (!o)
      return ((void)fail(loc, "value '" + name + "' has a size that is not an object"), failure());
    if (!o->get("as_int")) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    std::optional<int64_t> i = o->getInteger("as_int");
    if (!i || *i < 0)
      return ((void)fail(loc, "value '" + name + "' has a negative or non-integer size"),
              failure());
    if (__builtin_mul_overflow(elems, (uint64_t)*i, &elems) || elems > maxElems)
      return ((void)fail(loc, "value '" + name + "' would hold more than " +
                                  std::to_string(kiln_limit_tensor_bytes()) +
                                  " bytes, kiln's limit (KILN_MAX_TENSOR_BYTES, docs/limits.md)"),
              failure());
    shape.push_back(*i);
  }
  return RankedTensorType::get(shape, elem);
}

Location GraphImporter::nodeLocation(const Object &node) {
  StringRef name = node.getString("name").value_or("");
  const Object *meta = node.getObject("metadata");
  std::optional<StringRef> trace = meta ? meta->getString("stack_trace") : std::nullopt;
  Location fileLoc = UnknownLoc::get(&ctx);
  if (trace) {
    // Frames run outermost first; take the innermost one outside torch itself.
    static llvm::Regex frame("File \"([^\"]+)\", line ([0-9]+)");
    StringRef rest = *trace;
    SmallVector<StringRef> m;
    while (frame.match(rest, &m)) {
      StringRef file = m[1];
      unsigned line = 0;
      m[2].getAsInteger(10, line);
      if (!file.contains("/torch/") && !file.starts_with("torch/"))
        fileLoc = FileLineColLoc::get(&ctx, file, line, 1);
      rest = rest.substr(rest.find(m[0]) + m[0].size());
    }
  }
  return NameLoc::get(StringAttr::get(&ctx, name), fileLoc);
}

const json::Object *GraphImporter::argOf(const Object &node, StringRef name) {
  if (const Array *inputs = node.getArray("inputs"))
    for (const json::Value &in : *inputs)
      if (const Object *o = in.getAsObject())
        if (o->getString("name") == name)
          return o->getObject("arg");
  return nullptr;
}

bool GraphImporter::isNone(const Object &node, StringRef name) {
  const Object *arg = argOf(node, name);
  return !arg || arg->get("as_none") || (arg->getObject("as_optional_tensor") &&
                                         arg->getObject("as_optional_tensor")->get("as_none"));
}

FailureOr<unsigned> GraphImporter::varOfArg(const Object &node, StringRef name, Location loc) {
  const Object *arg = argOf(node, name);
  const Object *t = arg ? arg->getObject("as_tensor") : nullptr;
  if (arg && !t)
    if (const Object *opt = arg->getObject("as_optional_tensor"))
      t = opt->getObject("as_tensor");
  std::optional<StringRef> ref = t ? t->getString("name") : std::nullopt;
  if (!ref)
    return ((void)fail(loc, "expected a tensor for argument '" + name + "'"), failure());
  auto it = varOf.find(*ref);
  if (it == varOf.end())
    return ((void)fail(loc, "argument '" + name + "' uses undefined value '" + *ref + "'"), failure());
  return it->second;
}

FailureOr<Value> GraphImporter::tensorArg(const Object &node, StringRef name, Location loc) {
  auto var = varOfArg(node, name, loc);
  if (failed(var))
    return failure();
  return readVar(*var);
}

FailureOr<Value> GraphImporter::optTensorArg(const Object &node, StringRef name, Location loc) {
  if (isNone(node, name))
    return Value();
  return tensorArg(node, name, loc);
}

FailureOr<int64_t> GraphImporter::intArg(const Object &node, StringRef name,
                                         std::optional<int64_t> dflt, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg && dflt)
    return *dflt;
  if (arg)
    if (auto v = arg->getInteger("as_int"))
      return *v;
  return ((void)fail(loc, "expected an int for argument '" + name + "'"), failure());
}

FailureOr<double> GraphImporter::floatArg(const Object &node, StringRef name,
                                          std::optional<double> dflt, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg && dflt)
    return *dflt;
  if (arg) {
    if (auto v = arg->getNumber("as_float"))
      return *v;
    if (auto v = arg->getInteger("as_int"))
      return (double)*v;
    // Non-finite floats are written as strings.
    if (auto v = arg->getString("as_float")) {
      if (*v == "Infinity")
        return std::numeric_limits<double>::infinity();
      if (*v == "-Infinity")
        return -std::numeric_limits<double>::infinity();
      if (*v == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (const Object *s = arg->getObject("as_scalar")) { // older writers
      if (auto v = s->getNumber("as_float"))
        return *v;
      if (auto v = s->getInteger("as_int"))
        return (double)*v;
    }
  }
  return ((void)fail(loc, "expected a float for argument '" + name + "'"), failure());
}

FailureOr<bool> GraphImporter::boolArg(const Object &node, StringRef name,
                                       std::optional<bool> dflt, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg && dflt)
    return *dflt;
  if (arg)
    if (auto v = arg->getBoolean("as_bool"))
      return *v;
  return ((void)fail(loc, "expected a bool for argument '" + name + "'"), failure());
}

FailureOr<std::string> GraphImporter::stringArg(const Object &node, StringRef name,
                                                std::optional<std::string> dflt, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg && dflt)
    return *dflt;
  if (arg)
    if (auto v = arg->getString("as_string"))
      return v->str();
  return ((void)fail(loc, "expected a string for argument '" + name + "'"), failure());
}

FailureOr<SmallVector<int64_t>> GraphImporter::intsArg(const Object &node, StringRef name,
                                                       std::optional<SmallVector<int64_t>> dflt,
                                                       Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg && dflt)
    return *dflt;
  if (arg) {
    if (const Array *a = arg->getArray("as_ints")) {
      SmallVector<int64_t> out;
      for (const json::Value &v : *a)
        if (auto i = v.getAsInteger())
          out.push_back(*i);
      return out;
    }
    if (auto i = arg->getInteger("as_int"))
      return SmallVector<int64_t>{*i};
  }
  return ((void)fail(loc, "expected a list of ints for argument '" + name + "'"), failure());
}

LogicalResult GraphImporter::symIntsArg(const Object &node, StringRef name,
                                        SmallVector<int64_t> &statics,
                                        SmallVector<Value> &dynamic, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg)
    return fail(loc, "missing argument '" + name + "'");
  if (const Array *a = arg->getArray("as_ints")) {
    for (const json::Value &v : *a)
      statics.push_back(v.getAsInteger().value_or(0));
    return success();
  }
  const Array *a = arg->getArray("as_sym_ints");
  if (!a)
    return fail(loc, "expected a list of (symbolic) ints for argument '" + name + "'");
  for (const json::Value &v : *a) {
    const Object *o = v.getAsObject();
    if (auto i = o ? o->getInteger("as_int") : std::nullopt) {
      statics.push_back(*i);
      continue;
    }
    std::optional<StringRef> ref = o ? o->getString("as_name") : std::nullopt;
    auto it = ref ? values.find(*ref) : values.end();
    if (it == values.end())
      return fail(loc, "argument '" + name + "' uses an unknown symbolic size");
    statics.push_back(ShapedType::kDynamic);
    dynamic.push_back(it->second);
  }
  return success();
}

FailureOr<Value> GraphImporter::symIntValue(const Object &arg, StringRef what, Location loc) {
  std::optional<int64_t> lit = arg.getInteger("as_int");
  const Object *sym = arg.getObject("as_sym_int");
  if (!lit && sym)
    lit = sym->getInteger("as_int");
  if (lit)
    return arith::ConstantIndexOp::create(b, loc, *lit).getResult();
  std::optional<StringRef> ref = sym ? sym->getString("as_name") : arg.getString("as_name");
  auto it = ref ? values.find(*ref) : values.end();
  if (it == values.end())
    return ((void)fail(loc, "expected an int or a symbolic int for " + what), failure());
  return it->second;
}

FailureOr<Value> GraphImporter::symIntArg(const Object &node, StringRef name,
                                          std::optional<int64_t> dflt, Location loc) {
  const Object *arg = argOf(node, name);
  if (!arg || arg->get("as_none")) {
    if (dflt)
      return arith::ConstantIndexOp::create(b, loc, *dflt).getResult();
    return ((void)fail(loc, "missing argument '" + name + "'"), failure());
  }
  return symIntValue(*arg, "argument '" + name.str() + "'", loc);
}

/// The name of a `{"name": ...}` tensor reference, or "" if it is not one.
static StringRef tensorRefName(const json::Value &v) {
  const Object *o = v.getAsObject();
  return o ? o->getString("name").value_or("") : "";
}

SmallVector<std::string> GraphImporter::outputNames(const Object &node) {
  SmallVector<std::string> names;
  if (const Array *outs = node.getArray("outputs"))
    for (const json::Value &o : *outs) {
      const Object *obj = o.getAsObject();
      if (!obj)
        continue;
      if (const Object *t = obj->getObject("as_tensor"))
        names.push_back(t->getString("name").value_or("").str());
      else if (const Array *ts = obj->getArray("as_tensors"))
        for (const json::Value &t : *ts)
          names.push_back(tensorRefName(t).str());
    }
  return names;
}

LogicalResult GraphImporter::checkNodeShape(const Object &node, Location loc) {
  if (!node.getString("target"))
    return fail(loc, "node has no \"target\" string");
  if (const json::Value *inputs = node.get("inputs")) {
    const Array *a = inputs->getAsArray();
    if (!a)
      return fail(loc, "node \"inputs\" is not a list");
    for (const json::Value &in : *a) {
      const Object *o = in.getAsObject();
      if (!o || !o->getObject("arg"))
        return fail(loc, "node input is not an object with an \"arg\" object");
    }
  }
  const Array *outs = node.getArray("outputs");
  if (!outs)
    return fail(loc, "node has no \"outputs\" list");
  auto badRef = [&](const json::Value &v) {
    const Object *o = v.getAsObject();
    return !o || !o->getString("name");
  };
  for (const json::Value &o : *outs) {
    const Object *obj = o.getAsObject();
    if (!obj)
      return fail(loc, "node output is not an object");
    if (const json::Value *t = obj->get("as_tensor")) {
      if (badRef(*t))
        return fail(loc, "node output 'as_tensor' is not a {\"name\": ...} object");
    } else if (const json::Value *ts = obj->get("as_tensors")) {
      const Array *a = ts->getAsArray();
      if (!a || llvm::any_of(*a, badRef))
        return fail(loc, "node output 'as_tensors' is not a list of {\"name\": ...} objects");
    } else if (const json::Value *si = obj->get("as_sym_int")) {
      const Object *s = si->getAsObject();
      if (!s || (!s->getString("as_name") && !s->getInteger("as_int")))
        return fail(loc, "node output 'as_sym_int' names no value");
    }
  }
  // Where the dispatcher knows the op, its schema fixes the number of outputs.
  StringRef target = *node.getString("target");
  if (target.starts_with("torch.ops.") && !target.starts_with("torch.ops.higher_order.")) {
    std::string q = target.drop_front(strlen("torch.ops.")).str();
    size_t dot = q.find('.');
    if (dot != std::string::npos) {
      q.replace(dot, 1, "::");
      std::optional<RuntimeOpInfo> info = lookupRuntimeOp(q);
      if (info && info->numReturns && info->numReturns != outs->size())
        return fail(loc, "node has " + std::to_string(outs->size()) + " outputs, but '" + q +
                             "' returns " + std::to_string(info->numReturns));
    }
  }
  return success();
}

FailureOr<SmallVector<Type>> GraphImporter::resultTypes(const Object &node, Location loc) {
  SmallVector<Type> types;
  const Array *outs = node.getArray("outputs");
  if (!outs)
    return ((void)fail(loc, "node has no outputs"), failure());
  for (const json::Value &o : *outs) {
    const Object *obj = o.getAsObject();
    if (!obj)
      return ((void)fail(loc, "node output is not an object"), failure());
    if (const Object *t = obj->getObject("as_tensor")) {
      auto ty = tensorType(t->getString("name").value_or(""), loc);
      if (failed(ty))
        return failure();
      types.push_back(*ty);
    } else if (const Array *ts = obj->getArray("as_tensors")) {
      for (const json::Value &t : *ts) {
        auto ty = tensorType(tensorRefName(t), loc);
        if (failed(ty))
          return failure();
        types.push_back(*ty);
      }
    } else if (obj->getObject("as_sym_int") || obj->get("as_int")) {
      types.push_back(b.getIndexType());
    } else if (obj->get("as_none")) {
      continue;
    } else {
      return ((void)fail(loc, "unsupported node output kind"), failure());
    }
  }
  if (types.empty())
    return ((void)fail(loc, "node has no tensor or int outputs"), failure());
  return types;
}

FailureOr<RankedTensorType> GraphImporter::firstTensorResult(const Object &node, Location loc) {
  auto types = resultTypes(node, loc);
  if (failed(types))
    return failure();
  auto t = dyn_cast<RankedTensorType>(types->front());
  if (!t)
    return ((void)fail(loc, "the node's first output is not a tensor"), failure());
  return t;
}

LogicalResult GraphImporter::bindResults(const Object &node, Operation *op) {
  // The op was built from resultTypes(node); check rather than trust that the
  // two still agree (a node whose outputs do not fit its op).
  unsigned i = 0, n = op->getNumResults();
  auto next = [&]() -> FailureOr<Value> {
    if (i >= n)
      return failure();
    return op->getResult(i++);
  };
  auto tooMany = [&] {
    return fail(op->getLoc(), "node has more outputs than '" +
                                  op->getName().getStringRef() + "' has results");
  };
  const Array *outs = node.getArray("outputs");
  for (const json::Value &o : itemsOf(outs)) {
    const Object *obj = o.getAsObject();
    if (!obj)
      return fail(op->getLoc(), "node output is not an object");
    if (const Object *t = obj->getObject("as_tensor")) {
      FailureOr<Value> r = next();
      if (failed(r))
        return tooMany();
      varOf[t->getString("name").value_or("")] = newVar(*r);
    } else if (const Array *ts = obj->getArray("as_tensors")) {
      for (const json::Value &t : *ts) {
        FailureOr<Value> r = next();
        if (failed(r))
          return tooMany();
        varOf[tensorRefName(t)] = newVar(*r);
      }
    } else if (const Object *s = obj->getObject("as_sym_int")) {
      FailureOr<Value> r = next();
      if (failed(r))
        return tooMany();
      values[s->getString("as_name").value_or("")] = *r;
    } else if (obj->get("as_int")) {
      if (failed(next()))
        return tooMany();
    }
  }
  if (i != n)
    return fail(op->getLoc(), "'" + op->getName().getStringRef() + "' has " + std::to_string(n) +
                                  " results, but the node names " + std::to_string(i));
  return success();
}

} // namespace kiln::importer
