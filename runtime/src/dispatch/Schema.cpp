// kiln runtime — parser and printer for PyTorch-syntax operator schemas.
#include "kiln/schema.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace kiln {

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------
namespace {
struct BaseName {
  const char *name;
  SchemaType::Kind kind;
};
const BaseName kBaseNames[] = {
    {"Tensor", SchemaType::Kind::Tensor},         {"int", SchemaType::Kind::Int},
    {"SymInt", SchemaType::Kind::SymInt},         {"float", SchemaType::Kind::Float},
    {"bool", SchemaType::Kind::Bool},             {"str", SchemaType::Kind::Str},
    {"Scalar", SchemaType::Kind::Scalar},         {"ScalarType", SchemaType::Kind::ScalarType},
    {"Layout", SchemaType::Kind::Layout},         {"Device", SchemaType::Kind::Device},
    {"MemoryFormat", SchemaType::Kind::MemoryFormat}, {"Generator", SchemaType::Kind::Generator},
    {"Dimname", SchemaType::Kind::Dimname},       {"Any", SchemaType::Kind::Any},
};
bool isIntLike(SchemaType::Kind k) {
  return k == SchemaType::Kind::Int || k == SchemaType::Kind::SymInt ||
         k == SchemaType::Kind::ScalarType || k == SchemaType::Kind::Layout ||
         k == SchemaType::Kind::MemoryFormat;
}
} // namespace

SchemaTypePtr SchemaType::base(Kind k) {
  auto t = std::make_shared<SchemaType>();
  t->kind = k;
  return t;
}
SchemaTypePtr SchemaType::listOf(SchemaTypePtr e, int64_t n) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::List;
  t->elem = std::move(e);
  t->fixedSize = n;
  return t;
}
SchemaTypePtr SchemaType::optionalOf(SchemaTypePtr e) {
  auto t = std::make_shared<SchemaType>();
  t->kind = Kind::Optional;
  t->elem = std::move(e);
  return t;
}

std::string SchemaType::str() const {
  switch (kind) {
  case Kind::List:
    return elem->str() + (fixedSize >= 0 ? "[" + std::to_string(fixedSize) + "]" : "[]");
  case Kind::Optional: return elem->str() + "?";
  default:
    for (const BaseName &b : kBaseNames)
      if (b.kind == kind) return b.name;
  }
  return "?";
}

std::string AliasInfo::str() const {
  std::string s = "(";
  for (size_t i = 0; i < beforeSets.size(); ++i) s += (i ? "|" : "") + beforeSets[i];
  if (isWrite) s += "!";
  if (!afterSets.empty()) {
    s += " -> ";
    for (size_t i = 0; i < afterSets.size(); ++i) s += (i ? "|" : "") + afterSets[i];
  }
  return s + ")";
}

namespace {
std::string defaultStr(const IValue &v) {
  if (v.isBool()) return v.toBool() ? "True" : "False";
  if (v.isString()) return "'" + v.toString() + "'";
  if (v.isDouble()) {
    std::ostringstream os;
    os << v.toDouble();
    std::string s = os.str();
    if (s.find_first_of(".en") == std::string::npos) s += ".";
    return s;
  }
  return v.repr();
}

// Prints a type with its alias annotation in the place the parser accepts.
std::string typeWithAlias(const SchemaType &t, const std::optional<AliasInfo> &alias) {
  if (!alias) return t.str();
  // The annotation follows the innermost base type: Tensor(a!)[], Tensor(a)?
  std::string s = t.str();
  size_t end = 0;
  while (end < s.size() && std::isalnum((unsigned char)s[end])) ++end;
  return s.substr(0, end) + alias->str() + s.substr(end);
}
} // namespace

std::string Argument::str() const {
  std::string s = typeWithAlias(*type, alias);
  if (!name.empty()) s += " " + name;
  if (defaultValue) s += "=" + defaultStr(*defaultValue);
  return s;
}

std::string FunctionSchema::qualifiedName() const {
  return ns + "::" + name + (overload.empty() ? "" : "." + overload);
}

int FunctionSchema::argumentIndex(const std::string &n) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == n) return (int)i;
  return -1;
}

bool FunctionSchema::isMutable() const {
  for (const Argument &a : arguments)
    if (a.isWrite()) return true;
  return false;
}

std::string FunctionSchema::str() const {
  std::string s = qualifiedName() + "(";
  bool kw = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) s += ", ";
    if (arguments[i].kwargOnly && !kw) {
      s += "*, ";
      kw = true;
    }
    s += arguments[i].str();
  }
  if (varArgs) s += arguments.empty() ? "..." : ", ...";
  s += ") -> ";
  if (returns.size() == 1 && returns[0].name.empty() && !varRets) {
    s += returns[0].str();
  } else {
    s += "(";
    for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + returns[i].str();
    if (varRets) s += returns.empty() ? "..." : ", ...";
    s += ")";
  }
  return s;
}

bool splitQualifiedName(const std::string &q, std::string &ns, std::string &name,
                        std::string &overload) {
  size_t c = q.find("::");
  if (c == std::string::npos) return false;
  ns = q.substr(0, c);
  std::string rest = q.substr(c + 2);
  size_t d = rest.find('.');
  name = rest.substr(0, d);
  overload = d == std::string::npos ? "" : rest.substr(d + 1);
  if (overload == "default") overload.clear();
  return !ns.empty() && !name.empty();
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------
static std::string caretMessage(const std::string &msg, size_t column, const std::string &text) {
  return "schema error at column " + std::to_string(column) + ": " + msg + "\n  " + text + "\n  " +
         std::string(column ? column - 1 : 0, ' ') + "^";
}

SchemaParseError::SchemaParseError(const std::string &msg, size_t column, const std::string &text)
    : Error(caretMessage(msg, column, text)), msg_(msg), column_(column) {}

namespace {
class Parser {
public:
  Parser(const std::string &s) : s_(s) {}

  FunctionSchema parse(const std::string &defaultNs, bool allowNameOnly) {
    FunctionSchema fs;
    skipWs();
    size_t nameAt = pos_;
    std::string first = ident("an operator name");
    if (peek("::")) {
      pos_ += 2;
      fs.ns = first;
      fs.name = ident("an operator name after '::'");
    } else {
      if (defaultNs.empty())
        fail("expected a namespace ('ns::name'): the schema is not inside a library", nameAt);
      fs.ns = defaultNs;
      fs.name = first;
    }
    if (peek(".")) {
      ++pos_;
      fs.overload = ident("an overload name after '.'");
      if (fs.overload == "default")
        fail("'default' is not allowed as an overload name (leave it out)", pos_ - 7);
    }
    skipWs();
    if (atEnd() && allowNameOnly) {
      fs.varArgs = true;
      return fs;
    }
    expectChar('(');
    parseArguments(fs);
    expectChar(')');
    skipWs();
    if (!peek("->")) fail("expected '->' and the return types", pos_);
    pos_ += 2;
    skipWs();
    parseReturns(fs);
    skipWs();
    if (!atEnd()) fail("unexpected '" + std::string(1, s_[pos_]) + "' after the schema", pos_);
    return fs;
  }

private:
  [[noreturn]] void fail(const std::string &msg, size_t at) {
    throw SchemaParseError(msg, at + 1, s_);
  }
  bool atEnd() const { return pos_ >= s_.size(); }
  bool peek(const char *t) const { return s_.compare(pos_, std::char_traits<char>::length(t), t) == 0; }
  void skipWs() {
    while (!atEnd() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }
  std::string found() const {
    if (atEnd()) return "the end of the schema";
    size_t e = pos_;
    if (std::isalnum((unsigned char)s_[e]) || s_[e] == '_')
      while (e < s_.size() && (std::isalnum((unsigned char)s_[e]) || s_[e] == '_')) ++e;
    else
      ++e;
    return "'" + s_.substr(pos_, e - pos_) + "'";
  }
  void expectChar(char c) {
    skipWs();
    if (atEnd() || s_[pos_] != c)
      fail(std::string("expected '") + c + "' but found " + found(), pos_);
    ++pos_;
  }
  std::string ident(const char *what) {
    skipWs();
    size_t b = pos_;
    if (atEnd() || !(std::isalpha((unsigned char)s_[pos_]) || s_[pos_] == '_'))
      fail(std::string("expected ") + what + " but found " + found(), pos_);
    while (!atEnd() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) ++pos_;
    return s_.substr(b, pos_ - b);
  }

  AliasInfo parseAlias() {
    // at '('
    ++pos_;
    AliasInfo a;
    auto sets = [&](std::vector<std::string> &out) {
      for (;;) {
        skipWs();
        if (peek("*")) {
          ++pos_;
          out.push_back("*");
        } else {
          out.push_back(ident("an alias set name (like 'a') or '*'"));
        }
        skipWs();
        if (peek("|")) { ++pos_; continue; }
        break;
      }
    };
    sets(a.beforeSets);
    if (peek("!")) {
      ++pos_;
      a.isWrite = true;
    }
    skipWs();
    if (peek("->")) {
      pos_ += 2;
      sets(a.afterSets);
    }
    expectChar(')');
    return a;
  }

  SchemaTypePtr parseType(std::optional<AliasInfo> &alias) {
    skipWs();
    size_t at = pos_;
    std::string name = ident("a type");
    SchemaTypePtr t;
    for (const BaseName &b : kBaseNames)
      if (name == b.name) t = SchemaType::base(b.kind);
    if (!t)
      fail("unknown type '" + name +
               "' (expected Tensor, int, SymInt, float, bool, str, Scalar, ScalarType, ...)",
           at);
    for (;;) {
      if (peek("(")) {
        if (alias) fail("a second alias annotation", pos_);
        alias = parseAlias();
      } else if (peek("[")) {
        ++pos_;
        skipWs();
        int64_t n = -1;
        if (!atEnd() && std::isdigit((unsigned char)s_[pos_])) {
          size_t at = pos_;
          n = 0;
          while (!atEnd() && std::isdigit((unsigned char)s_[pos_])) {
            // A fixed list size (int[2]) is small; a huge one is a typo.
            if (n > 1000000) fail("a list size too large", at);
            n = n * 10 + (s_[pos_++] - '0');
          }
        }
        expectChar(']');
        t = SchemaType::listOf(t, n);
      } else if (peek("?")) {
        ++pos_;
        t = SchemaType::optionalOf(t);
      } else {
        break;
      }
    }
    return t;
  }

  // A number token at pos_ (with optional sign); returns its text.
  std::string numberToken() {
    size_t b = pos_;
    if (peek("-") || peek("+")) ++pos_;
    if (peek("inf")) { pos_ += 3; return s_.substr(b, pos_ - b); }
    if (peek("nan")) { pos_ += 3; return s_.substr(b, pos_ - b); }
    size_t digits = pos_;
    while (!atEnd() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '.')) ++pos_;
    if (pos_ == digits) fail("expected a number but found " + found(), b);
    if (!atEnd() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (peek("-") || peek("+")) ++pos_;
      while (!atEnd() && std::isdigit((unsigned char)s_[pos_])) ++pos_;
    }
    return s_.substr(b, pos_ - b);
  }
  static bool isFloatText(const std::string &t) {
    return t.find_first_of(".eEn") != std::string::npos; // '.', exponent, inf, nan
  }
  static double toDouble(const std::string &t) {
    if (t == "inf" || t == "+inf") return std::numeric_limits<double>::infinity();
    if (t == "-inf") return -std::numeric_limits<double>::infinity();
    if (t.find("nan") != std::string::npos) return std::numeric_limits<double>::quiet_NaN();
    return std::strtod(t.c_str(), nullptr);
  }

  // A scalar default for base kind `k`.
  IValue scalarDefault(SchemaType::Kind k) {
    skipWs();
    size_t at = pos_;
    if (peek("True") || peek("False")) {
      bool v = peek("True");
      pos_ += v ? 4 : 5;
      if (k != SchemaType::Kind::Bool && k != SchemaType::Kind::Scalar && k != SchemaType::Kind::Any)
        fail("a bool default for a value of another type", at);
      return IValue(v);
    }
    if (peek("'") || peek("\"")) {
      char q = s_[pos_++];
      size_t b = pos_;
      while (!atEnd() && s_[pos_] != q) ++pos_;
      if (atEnd()) fail("unterminated string default", at);
      std::string v = s_.substr(b, pos_ - b);
      ++pos_;
      return IValue(v);
    }
    if (!atEnd() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '-' || s_[pos_] == '+' ||
                     s_[pos_] == '.' || peek("inf") || peek("nan"))) {
      std::string t = numberToken();
      bool wantFloat = k == SchemaType::Kind::Float;
      if (isFloatText(t) || wantFloat) {
        if (isIntLike(k)) fail("a floating-point default for an integer value", at);
        return IValue(toDouble(t));
      }
      return IValue((int64_t)std::strtoll(t.c_str(), nullptr, 10));
    }
    if (!atEnd() && (std::isalpha((unsigned char)s_[pos_]) || s_[pos_] == '_')) {
      std::string id = ident("a default value");
      // Enum-like defaults of ATen schemas.
      if (id == "Mean") return IValue((int64_t)1);
      if (id == "Sum") return IValue((int64_t)2);
      if (id == "long") return IValue((int64_t)DType::Int64);
      return IValue(id); // contiguous_format, strided, ...
    }
    fail("expected a default value but found " + found(), at);
  }

  IValue parseDefault(const SchemaType &type) {
    skipWs();
    if (peek("None")) {
      size_t at = pos_;
      pos_ += 4;
      if (!type.isOptional() && type.kind != SchemaType::Kind::Any)
        fail("default None for a type that is not optional (" + type.str() + ")", at);
      return IValue();
    }
    const SchemaType &t = type.stripOptional();
    if (t.kind == SchemaType::Kind::List) {
      SchemaType::Kind ek = t.elem->stripOptional().kind;
      if (!peek("[")) {
        // int[2] stride=1 means [1, 1]
        size_t at = pos_;
        IValue v = scalarDefault(ek);
        if (t.fixedSize < 0) fail("a single value as the default of an unsized list", at);
        if (ek == SchemaType::Kind::Float) return IValue(std::vector<double>(t.fixedSize, v.toDouble()));
        if (ek == SchemaType::Kind::Bool) return IValue(std::vector<bool>(t.fixedSize, v.toBool()));
        return IValue(std::vector<int64_t>(t.fixedSize, v.toInt()));
      }
      ++pos_;
      std::vector<IValue> items;
      skipWs();
      if (!peek("]")) {
        for (;;) {
          items.push_back(scalarDefault(ek));
          skipWs();
          if (peek(",")) { ++pos_; continue; }
          break;
        }
      }
      expectChar(']');
      if (ek == SchemaType::Kind::Float) {
        std::vector<double> v;
        for (auto &i : items) v.push_back(i.toDouble());
        return IValue(v);
      }
      if (ek == SchemaType::Kind::Bool) {
        std::vector<bool> v;
        for (auto &i : items) v.push_back(i.toBool());
        return IValue(v);
      }
      std::vector<int64_t> v;
      for (auto &i : items) v.push_back(i.toInt());
      return IValue(v);
    }
    return scalarDefault(t.kind);
  }

  void parseArguments(FunctionSchema &fs) {
    skipWs();
    if (peek(")")) return;
    bool kwOnly = false;
    for (;;) {
      skipWs();
      if (peek("*") && !peek("*)")) {
        if (kwOnly) fail("a second '*'", pos_);
        ++pos_;
        kwOnly = true;
      } else if (peek("...")) {
        pos_ += 3;
        fs.varArgs = true;
      } else {
        if (fs.varArgs) fail("an argument after '...'", pos_);
        Argument a;
        a.type = parseType(a.alias);
        skipWs();
        size_t nameAt = pos_;
        a.name = ident("an argument name");
        if (fs.argumentIndex(a.name) >= 0) fail("argument '" + a.name + "' appears twice", nameAt);
        skipWs();
        if (peek("=")) {
          ++pos_;
          a.defaultValue = parseDefault(*a.type);
        }
        a.kwargOnly = kwOnly;
        fs.arguments.push_back(std::move(a));
      }
      skipWs();
      if (peek(",")) {
        ++pos_;
        continue;
      }
      if (!peek(")")) fail("expected ',' or ')' but found " + found(), pos_);
      return;
    }
  }

  Argument parseReturn(bool allowName) {
    Argument r;
    r.type = parseType(r.alias);
    skipWs();
    if (allowName && !atEnd() && (std::isalpha((unsigned char)s_[pos_]) || s_[pos_] == '_'))
      r.name = ident("a return name");
    return r;
  }

  void parseReturns(FunctionSchema &fs) {
    skipWs();
    if (peek("(")) {
      ++pos_;
      skipWs();
      if (peek(")")) {
        ++pos_;
        return;
      }
      for (;;) {
        skipWs();
        if (peek("...")) {
          pos_ += 3;
          fs.varRets = true;
        } else {
          fs.returns.push_back(parseReturn(true));
        }
        skipWs();
        if (peek(",")) {
          ++pos_;
          continue;
        }
        if (!peek(")")) fail("expected ',' or ')' but found " + found(), pos_);
        ++pos_;
        return;
      }
    }
    if (peek("...")) {
      pos_ += 3;
      fs.varRets = true;
      return;
    }
    fs.returns.push_back(parseReturn(false));
  }

  const std::string &s_;
  size_t pos_ = 0;
};
} // namespace

FunctionSchema parseSchema(const std::string &text, const std::string &defaultNs,
                           bool allowNameOnly) {
  return Parser(text).parse(defaultNs, allowNameOnly);
}

} // namespace kiln
