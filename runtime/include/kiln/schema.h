// kiln runtime — operator schemas in PyTorch's schema syntax, and their parser.
#ifndef KILN_SCHEMA_H
#define KILN_SCHEMA_H

#include "kiln/ivalue.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A schema type: a base type, or a list/optional of one.
struct SchemaType {
  enum class Kind : uint8_t {
    Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Layout, Device, MemoryFormat,
    Generator, Dimname, Any, List, Optional
  };
  Kind kind = Kind::Tensor;
  std::shared_ptr<const SchemaType> elem; ///< for List and Optional
  int64_t fixedSize = -1;                 ///< int[2] -> 2; -1 when unsized

  static std::shared_ptr<const SchemaType> base(Kind k);
  static std::shared_ptr<const SchemaType> listOf(std::shared_ptr<const SchemaType> e,
                                                  int64_t n = -1);
  static std::shared_ptr<const SchemaType> optionalOf(std::shared_ptr<const SchemaType> e);

  bool isOptional() const { return kind == Kind::Optional; }
  bool isList() const { return kind == Kind::List; }
  /// The type without an outer Optional.
  const SchemaType &stripOptional() const { return isOptional() ? *elem : *this; }
  bool isTensor() const { return kind == Kind::Tensor; }
  /// Tensor, Tensor? (tensor-like single values)
  bool isTensorLike() const { return stripOptional().kind == Kind::Tensor; }
  /// Tensor[] / Tensor?[]
  bool isTensorListLike() const {
    const SchemaType &s = stripOptional();
    return s.kind == Kind::List && s.elem->stripOptional().kind == Kind::Tensor;
  }
  /// Rendering in schema syntax: "int[2]", "Tensor?", "SymInt[]".
  std::string str() const;
};
using SchemaTypePtr = std::shared_ptr<const SchemaType>;

/// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(a|b)`, `(*)`.
struct AliasInfo {
  std::vector<std::string> beforeSets; ///< "a"; "*" for a wildcard
  std::vector<std::string> afterSets;  ///< after `->`, e.g. "*"
  bool isWrite = false;                ///< `!`
  std::string str() const;
};

struct Argument {
  std::string name;
  SchemaTypePtr type;
  std::optional<IValue> defaultValue;
  std::optional<AliasInfo> alias;
  bool kwargOnly = false;
  bool isWrite() const { return alias && alias->isWrite; }
  std::string str() const;
};

/// `ns::name.overload(args) -> returns`
struct FunctionSchema {
  std::string ns, name, overload;
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  bool varArgs = false, varRets = false;

  /// "ns::name" or "ns::name.overload"
  std::string qualifiedName() const;
  /// Index of the argument called `n`, or -1.
  int argumentIndex(const std::string &n) const;
  /// True if any argument is annotated as written (`(a!)`).
  bool isMutable() const;
  std::string str() const;
};

/// Thrown by parseSchema; what() reads
/// "schema error at column N: <msg>\n  <schema>\n  <caret>".
class SchemaParseError : public Error {
public:
  SchemaParseError(const std::string &msg, size_t column, const std::string &text);
  size_t column() const { return column_; }   ///< 1-based
  const std::string &message() const { return msg_; }

private:
  std::string msg_;
  size_t column_;
};

/// Parses a full schema. A schema without a namespace gets `defaultNs` (an
/// error if that is empty too). With `allowNameOnly`, "ns::name.overload"
/// with no argument list parses to a schema with no arguments (varArgs set).
FunctionSchema parseSchema(const std::string &text, const std::string &defaultNs = "",
                           bool allowNameOnly = false);

/// Splits "ns::name.overload" into its parts (overload may be empty).
bool splitQualifiedName(const std::string &q, std::string &ns, std::string &name,
                        std::string &overload);

} // namespace kiln

#endif // KILN_SCHEMA_H
