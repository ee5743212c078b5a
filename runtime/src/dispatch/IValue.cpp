// kiln runtime — IValue accessors and rendering.
#include "kiln/ivalue.h"

#include <sstream>

namespace kiln {

const char *IValue::tagName(Tag t) {
  switch (t) {
  case Tag::None: return "None";
  case Tag::Tensor: return "Tensor";
  case Tag::Int: return "int";
  case Tag::Double: return "float";
  case Tag::Bool: return "bool";
  case Tag::String: return "str";
  case Tag::IntList: return "int[]";
  case Tag::DoubleList: return "float[]";
  case Tag::BoolList: return "bool[]";
  case Tag::TensorList: return "Tensor[]";
  case Tag::List: return "list";
  }
  return "?";
}

void IValue::expect(Tag t) const {
  if (tag_ != t)
    throw Error(std::string("kiln: expected a value of type ") + tagName(t) + ", got " +
                tagName(tag_));
}

int64_t IValue::toInt() const {
  if (tag_ == Tag::Int || tag_ == Tag::Bool) return i_;
  // A whole double in int64's range (NaN, infinities and huge values are not).
  if (tag_ == Tag::Double && d_ >= -9223372036854775808.0 && d_ < 9223372036854775808.0 &&
      (double)(int64_t)d_ == d_)
    return (int64_t)d_;
  expect(Tag::Int);
  return 0;
}
double IValue::toDouble() const {
  if (tag_ == Tag::Double) return d_;
  if (tag_ == Tag::Int || tag_ == Tag::Bool) return (double)i_;
  expect(Tag::Double);
  return 0;
}
bool IValue::toBool() const {
  if (tag_ == Tag::Bool || tag_ == Tag::Int) return i_ != 0;
  expect(Tag::Bool);
  return false;
}
const std::vector<int64_t> &IValue::toIntList() const {
  if (tag_ == Tag::BoolList) return *ints_;
  expect(Tag::IntList);
  return *ints_;
}
std::vector<double> IValue::toDoubleList() const {
  if (tag_ == Tag::DoubleList) return *doubles_;
  if (tag_ == Tag::IntList) return std::vector<double>(ints_->begin(), ints_->end());
  expect(Tag::DoubleList);
  return {};
}

std::string IValue::repr() const {
  std::ostringstream os;
  switch (tag_) {
  case Tag::None: os << "None"; break;
  case Tag::Tensor:
    if (!tensor_.defined()) { os << "Tensor(undefined)"; break; }
    os << "Tensor" << tensor_.shapeString() << " " << dtypeName(tensor_.dtype());
    if (tensor_.device().type != DeviceType::CPU) os << " " << deviceTypeName(tensor_.device().type);
    if (tensor_.requiresGrad()) os << " requires_grad";
    break;
  case Tag::Int: os << i_; break;
  case Tag::Double: os << d_; break;
  case Tag::Bool: os << (i_ ? "True" : "False"); break;
  case Tag::String: os << "'" << *s_ << "'"; break;
  case Tag::IntList: case Tag::BoolList:
    os << "[";
    for (size_t i = 0; i < ints_->size(); ++i) os << (i ? ", " : "") << (*ints_)[i];
    os << "]";
    break;
  case Tag::DoubleList:
    os << "[";
    for (size_t i = 0; i < doubles_->size(); ++i) os << (i ? ", " : "") << (*doubles_)[i];
    os << "]";
    break;
  case Tag::TensorList:
    os << "[";
    for (size_t i = 0; i < tensors_->size(); ++i) os << (i ? ", " : "") << IValue((*tensors_)[i]).repr();
    os << "]";
    break;
  case Tag::List:
    os << "[";
    for (size_t i = 0; i < list_->size(); ++i) os << (i ? ", " : "") << (*list_)[i].repr();
    os << "]";
    break;
  }
  return os.str();
}

} // namespace kiln
