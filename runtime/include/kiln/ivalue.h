// kiln runtime — IValue, the boxed value that travels through the dispatcher.
#ifndef KILN_IVALUE_H
#define KILN_IVALUE_H

#include "kiln/error.h"
#include "kiln/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {

/// A boxed value: None, Tensor, int, double, bool, string, or a list of those.
/// `Scalar` arguments travel as Int, Double or Bool; `ScalarType` as Int
/// (kiln::DType's value); optionals are either None or the value itself.
class IValue {
public:
  enum class Tag : uint8_t {
    None, Tensor, Int, Double, Bool, String, IntList, DoubleList, BoolList, TensorList, List
  };

  IValue() = default;
  IValue(std::nullopt_t) {}
  IValue(Tensor t) : tag_(Tag::Tensor), tensor_(std::move(t)) {}
  IValue(int64_t v) : tag_(Tag::Int), i_(v) {}
  IValue(int v) : tag_(Tag::Int), i_(v) {}
  IValue(double v) : tag_(Tag::Double), d_(v) {}
  IValue(bool v) : tag_(Tag::Bool), i_(v) {}
  IValue(std::string s) : tag_(Tag::String), s_(std::make_shared<std::string>(std::move(s))) {}
  IValue(const char *s) : IValue(std::string(s)) {}
  IValue(std::vector<int64_t> v)
      : tag_(Tag::IntList), ints_(std::make_shared<std::vector<int64_t>>(std::move(v))) {}
  IValue(std::vector<double> v)
      : tag_(Tag::DoubleList), doubles_(std::make_shared<std::vector<double>>(std::move(v))) {}
  IValue(std::vector<bool> v) : tag_(Tag::BoolList) {
    ints_ = std::make_shared<std::vector<int64_t>>(v.begin(), v.end());
  }
  IValue(std::vector<Tensor> v)
      : tag_(Tag::TensorList), tensors_(std::make_shared<std::vector<Tensor>>(std::move(v))) {}
  /// A generic list (e.g. Tensor?[]).
  static IValue list(std::vector<IValue> v) {
    IValue r;
    r.tag_ = Tag::List;
    r.list_ = std::make_shared<std::vector<IValue>>(std::move(v));
    return r;
  }
  template <typename T> IValue(std::optional<T> o) : IValue() {
    if (o) *this = IValue(std::move(*o));
  }

  Tag tag() const { return tag_; }
  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isString() const { return tag_ == Tag::String; }
  bool isIntList() const { return tag_ == Tag::IntList; }
  bool isDoubleList() const { return tag_ == Tag::DoubleList; }
  bool isBoolList() const { return tag_ == Tag::BoolList; }
  bool isTensorList() const { return tag_ == Tag::TensorList; }
  bool isList() const { return tag_ == Tag::List; }
  /// Int, Double or Bool.
  bool isScalar() const { return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool; }

  const Tensor &toTensor() const { expect(Tag::Tensor); return tensor_; }
  Tensor &toTensor() { expect(Tag::Tensor); return tensor_; }
  int64_t toInt() const;     ///< Int or Bool
  double toDouble() const;   ///< Double, Int or Bool
  bool toBool() const;       ///< Bool or Int
  const std::string &toString() const { expect(Tag::String); return *s_; }
  const std::vector<int64_t> &toIntList() const;
  std::vector<double> toDoubleList() const;
  const std::vector<Tensor> &toTensorList() const { expect(Tag::TensorList); return *tensors_; }
  const std::vector<IValue> &toList() const { expect(Tag::List); return *list_; }

  const char *tagName() const { return tagName(tag_); }
  static const char *tagName(Tag t);
  /// Short human-readable rendering ("Tensor[2, 3] f32", "1.5", "[1, 2]").
  std::string repr() const;

private:
  void expect(Tag t) const;
  Tag tag_ = Tag::None;
  Tensor tensor_;
  int64_t i_ = 0;
  double d_ = 0;
  std::shared_ptr<std::string> s_;
  std::shared_ptr<std::vector<int64_t>> ints_;
  std::shared_ptr<std::vector<double>> doubles_;
  std::shared_ptr<std::vector<Tensor>> tensors_;
  std::shared_ptr<std::vector<IValue>> list_;
};

/// The argument/result stack of a boxed call.
using Stack = std::vector<IValue>;

} // namespace kiln

#endif // KILN_IVALUE_H
