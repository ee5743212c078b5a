// kiln runtime — the eager interpreter's nodes on Python scalars: integer
// arithmetic and comparisons, Tensor.item() and scalar asserts.
#include "ScalarNodes.h"

#include "kiln/half.h"

#include <climits>
#include <cstring>

namespace kiln::eager {

namespace {
const char *const kItem[] = {"torch.ops.aten.item.default", "torch.ops.aten._local_scalar_dense.default"};
const char *const kAssert = "torch.ops.aten._assert_scalar.default";

bool isItem(const std::string &t) { return t == kItem[0] || t == kItem[1]; }

/// The one element of `t` as an int (integers, bool) or a double (floats).
IValue item(const Tensor &t0) {
  if (t0.numel() != 1)
    throw Error("kiln: item(): a tensor with " + std::to_string(t0.numel()) +
                " elements cannot be converted to a Python scalar");
  Tensor t = t0.contiguous();
  switch (t.dtype()) {
  case DType::Float32: return IValue((double)*t.data<float>());
  case DType::Float64: return IValue(*t.data<double>());
  case DType::Float16: return IValue((double)halfBitsToFloat(*t.data<uint16_t>()));
  case DType::BFloat16: return IValue((double)bf16BitsToFloat(*t.data<uint16_t>()));
  case DType::Int64: return IValue(*t.data<int64_t>());
  case DType::Int32: return IValue((int64_t)*t.data<int32_t>());
  case DType::Int16: return IValue((int64_t)*t.data<int16_t>());
  case DType::Int8: return IValue((int64_t)*t.data<int8_t>());
  case DType::UInt8: return IValue((int64_t)*t.data<uint8_t>());
  case DType::Bool: return IValue(*t.data<uint8_t>() != 0);
  }
  throw Error("kiln: item(): unsupported dtype");
}
} // namespace

bool isScalarNode(const std::string &target) {
  return target.rfind("_operator.", 0) == 0 || isItem(target) || target == kAssert;
}

IValue runScalarNode(const std::string &target, const std::vector<IValue> &args) {
  if (isItem(target)) return item(args.at(0).toTensor());
  if (target == kAssert) {
    const IValue &c = args.at(0);
    bool ok = c.isBool() ? c.toBool() : c.isInt() ? c.toInt() != 0 : c.toDouble() != 0;
    if (!ok)
      throw Error("kiln: a runtime assert failed: " + (args.size() > 1 && args[1].isString() ? args[1].toString()
                                                                                             : std::string("?")));
    return IValue();
  }
  std::string op = target.substr(std::strlen("_operator."));
  if (op == "neg" && args.size() == 1) {  // -s of a SymInt (a causal conv's negative slice end)
    int64_t a = args[0].toInt();
    if (a == INT64_MIN) throw Error("kiln: " + target + "(" + std::to_string(a) + ") overflows a 64-bit int");
    return IValue(-a);
  }
  if (args.size() != 2)
    throw Error("kiln: " + target + " with " + std::to_string(args.size()) + " arguments is not supported");
  int64_t a = args.at(0).toInt(), b = args.at(1).toInt();
  if (op == "eq") return IValue(a == b);
  if (op == "ne") return IValue(a != b);
  if (op == "lt") return IValue(a < b);
  if (op == "le") return IValue(a <= b);
  if (op == "gt") return IValue(a > b);
  if (op == "ge") return IValue(a >= b);
  int64_t r = 0;
  bool overflow = false;
  if (op == "add") overflow = __builtin_add_overflow(a, b, &r);
  else if (op == "sub") overflow = __builtin_sub_overflow(a, b, &r);
  else if (op == "mul") overflow = __builtin_mul_overflow(a, b, &r);
  else if (op == "floordiv") {
    if (b == 0) throw Error("kiln: integer division by zero");
    overflow = a == INT64_MIN && b == -1;
    if (!overflow) r = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  } else if (op == "mod") { // Python's: the sign of the divisor (a chunk size's padding)
    if (b == 0) throw Error("kiln: integer modulo by zero");
    r = b == -1 ? 0 : a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
  } else
    throw Error("kiln: unsupported target " + target);
  if (overflow)
    throw Error("kiln: " + target + "(" + std::to_string(a) + ", " + std::to_string(b) + ") overflows a 64-bit int");
  return IValue(r);
}

} // namespace kiln::eager
