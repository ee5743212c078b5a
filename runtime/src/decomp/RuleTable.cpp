// kiln runtime — the composite-op rule table's parser.
//
// A rule (docs/architecture.md, "Composite ops") reads, for example:
//
//   def deg2rad(Tensor self) -> Tensor          the composite's ATen schema
//     when float self                           conditions (all must hold): float, int
//                                               (with bool), numeric (float or int, not
//                                               bool), rank, len, is [not] None, ==, !=
//     r = aten::mul.Tensor(self=self, other=0.017453292519943295) : like self
//     return r
//
// Calls name every argument by its schema name; a value is a name (an
// argument, `X.k` for element k of a list argument, or an earlier result), a
// number, 'string', True/False/None, a [list], dtype(X), #float64,
// sizes(X) or bsizes(X Y ...) (sizes, symbolic ones read at run time), or
// others(X D) (X's dims but D, which may be negative: a reduction over every
// dim but one, for any rank). After
// ':' each result that is not returned says what its metadata is: `like X`,
// `bcast X Y ...` (broadcast sizes, X's dtype), `reduce X DIMS KEEPDIM`,
// `halve X DIM`, `trailing1 X LIST`, `dims X [e, ...]` (an int, an int
// argument, `@k` / `Y@k` for a dim, `A*B`, `A/B`, `A|B` for the smaller;
// `out0`, `out1` name the node's own outputs), `index` (a SymInt); each may
// end with `as D` (a dtype name, a tensor's dtype, or a ScalarType argument).
// The returned values take the node's own output names and metadata.
#include "RuleTable.h"

#include "Rules.h"

#include <cctype>
#include <cmath>
#include <sstream>

namespace kiln::decomp {
namespace {

[[noreturn]] void ruleError(const std::string &where, const std::string &msg) {
  throw Error("kiln: composite rule table: " + where + ": " + msg);
}

/// A cursor over one rule line.
struct Lexer {
  std::string text, where;
  size_t p = 0;
  void ws() { while (p < text.size() && std::isspace((unsigned char)text[p])) ++p; }
  bool eat(const std::string &tok) {
    ws();
    if (text.compare(p, tok.size(), tok) != 0) return false;
    // Whole words for identifiers.
    if (std::isalpha((unsigned char)tok.back()) && p + tok.size() < text.size() &&
        (std::isalnum((unsigned char)text[p + tok.size()]) || text[p + tok.size()] == '_'))
      return false;
    p += tok.size();
    return true;
  }
  void expect(const std::string &tok) {
    if (!eat(tok)) ruleError(where, "expected '" + tok + "' at column " + std::to_string(p + 1));
  }
  bool atEnd() { ws(); return p >= text.size(); }
  std::string ident() {
    ws();
    size_t b = p;
    while (p < text.size() && (std::isalnum((unsigned char)text[p]) || text[p] == '_' ||
                               text[p] == ':' || text[p] == '.' || text[p] == '@'))
      ++p;
    if (b == p) ruleError(where, "expected a name at column " + std::to_string(p + 1));
    return text.substr(b, p - b);
  }
  Val value() {
    ws();
    Val v;
    if (eat("[")) {
      v.kind = Val::List;
      if (!eat("]")) {
        do v.items.push_back(value()); while (eat(","));
        expect("]");
      }
      return v;
    }
    if (p < text.size() && text[p] == '\'') {
      size_t e = text.find('\'', p + 1);
      if (e == std::string::npos) ruleError(where, "unterminated string");
      v.kind = Val::Str;
      v.s = text.substr(p + 1, e - p - 1);
      p = e + 1;
      return v;
    }
    if (p < text.size() && (std::isdigit((unsigned char)text[p]) || text[p] == '-')) {
      size_t b = p++;
      while (p < text.size() && (std::isalnum((unsigned char)text[p]) || text[p] == '.' ||
                                 ((text[p] == '-' || text[p] == '+') && (text[p - 1] == 'e'))))
        ++p;
      std::string num = text.substr(b, p - b);
      if (num.find_first_of(".e") != std::string::npos) {
        v.kind = Val::Float;
        v.f = std::stod(num); // no infinities: JSON has none
      } else {
        v.kind = Val::Int;
        v.i = std::stoll(num);
      }
      return v;
    }
    if (eat("True")) { v.kind = Val::Bool; v.i = 1; return v; }
    if (eat("False")) { v.kind = Val::Bool; return v; }
    if (eat("None")) return v;
    if (eat("dtype(")) {
      v.kind = Val::DtypeOf;
      v.s = ident();
      expect(")");
      return v;
    }
    if (eat("sizes(")) {
      v.kind = Val::SizesOf;
      v.s = ident();
      expect(")");
      return v;
    }
    if (eat("bsizes(")) {
      v.kind = Val::BcastSizesOf;
      while (!eat(")")) v.items.push_back(Val{Val::Ref, ident()});
      return v;
    }
    if (eat("others(")) {
      v.kind = Val::DimsExcept;
      v.s = ident();
      v.items.push_back(value());
      expect(")");
      return v;
    }
    if (eat("#")) { v.kind = Val::DtypeName; v.s = ident(); return v; }
    v.kind = Val::Ref;
    v.s = ident();
    return v;
  }
};

std::string targetOf(const std::string &qualified) {
  // aten::add.Tensor -> torch.ops.aten.add.Tensor; aten::relu -> ...relu.default
  std::string ns, name, overload;
  if (!splitQualifiedName(qualified, ns, name, overload) || ns.empty())
    return "";
  return "torch.ops." + ns + "." + name + "." + (overload.empty() ? "default" : overload);
}

Meta parseMeta(Lexer &lx) {
  Meta m;
  std::string kind = lx.ident();
  if (kind == "index") {
    m.kind = Meta::Index;
    return m;
  }
  if (kind == "like") {
    m.kind = Meta::Like;
    m.refs.push_back(lx.ident());
  } else if (kind == "bcast") {
    m.kind = Meta::Bcast;
    while (true) {
      lx.ws();
      if (lx.atEnd() || lx.text[lx.p] == ';' || lx.text.compare(lx.p, 3, "as ") == 0) break;
      m.refs.push_back(lx.ident());
    }
  } else if (kind == "trailing1") {
    m.kind = Meta::Trailing1;
    m.refs.push_back(lx.ident());
    m.dims = lx.value();
  } else if (kind == "halve") {
    m.kind = Meta::Halve;
    m.refs.push_back(lx.ident());
    m.dims = lx.value();
  } else if (kind == "reduce") {
    m.kind = Meta::Reduce;
    m.refs.push_back(lx.ident());
    m.dims = lx.value();
    m.keepdim = lx.value();
  } else if (kind == "dims") {
    m.kind = Meta::Dims;
    m.refs.push_back(lx.ident());
    lx.expect("[");
    if (!lx.eat("]")) {
      do {
        lx.ws();
        size_t b = lx.p;
        while (lx.p < lx.text.size() && lx.text[lx.p] != ',' && lx.text[lx.p] != ']') ++lx.p;
        std::string e = lx.text.substr(b, lx.p - b);
        while (!e.empty() && std::isspace((unsigned char)e.back())) e.pop_back();
        m.entries.push_back(e);
      } while (lx.eat(","));
      lx.expect("]");
    }
  } else {
    ruleError(lx.where, "unknown metadata rule '" + kind + "'");
  }
  if (lx.eat("as")) m.as = lx.ident();
  return m;
}

std::vector<Rule> parseTable() {
  std::vector<Rule> rules;
  for (const RuleText &t : ruleTexts()) {
    std::istringstream in(t.text);
    std::string line;
    int lineNo = 0;
    Rule *cur = nullptr;
    while (std::getline(in, line)) {
      ++lineNo;
      std::string where = std::string(t.family) + " rules, line " + std::to_string(lineNo);
      size_t hash = line.find(" #");
      if (line.rfind("#", 0) == 0) continue;
      if (hash != std::string::npos && line.find('\'') == std::string::npos) line = line.substr(0, hash);
      Lexer lx{line, where};
      if (lx.atEnd()) continue;
      if (lx.eat("def")) {
        rules.emplace_back();
        cur = &rules.back();
        try {
          cur->schema = parseSchema(line.substr(lx.p), "aten");
        } catch (const Error &e) {
          ruleError(where, e.what());
        }
        cur->family = t.family;
        cur->target = targetOf(cur->schema.qualifiedName());
        continue;
      }
      if (!cur) ruleError(where, "a line outside any rule");
      if (lx.eat("when")) {
        Cond c;
        if (lx.eat("float")) { c.kind = Cond::IsFloat; c.ref = lx.ident(); }
        else if (lx.eat("int")) { c.kind = Cond::IsInt; c.ref = lx.ident(); }
        else if (lx.eat("numeric")) { c.kind = Cond::IsNumeric; c.ref = lx.ident(); }
        else if (lx.eat("len")) {
          c.kind = Cond::LenEq;
          c.ref = lx.ident();
          lx.expect("==");
          c.n = lx.value().i;
        } else if (lx.eat("rank")) {
          c.ref = lx.ident();
          c.kind = lx.eat(">=") ? Cond::RankGe
                   : lx.eat("<=") ? Cond::RankLe
                                  : (lx.expect("=="), Cond::RankEq);
          c.n = lx.value().i;
        } else {
          c.ref = lx.ident();
          if (lx.eat("is")) c.kind = lx.eat("not") ? Cond::NotNone : Cond::IsNone, lx.expect("None");
          else if (lx.eat("==")) { c.kind = Cond::Eq; c.v = lx.value(); }
          else { lx.expect("!="); c.kind = Cond::Ne; c.v = lx.value(); }
        }
        cur->conds.push_back(c);
        continue;
      }
      if (lx.eat("return")) {
        do cur->returns.push_back(lx.ident()); while (lx.eat(","));
        continue;
      }
      Step s;
      do s.results.push_back(lx.ident()); while (lx.eat(","));
      lx.expect("=");
      std::string callee = lx.ident();
      s.target = callee.rfind("_operator.", 0) == 0 ? callee : targetOf(callee);
      if (s.target.empty()) ruleError(where, "'" + callee + "' is not ns::op.overload");
      lx.expect("(");
      if (!lx.eat(")")) {
        do {
          std::string k = lx.ident();
          lx.expect("=");
          s.args.emplace_back(k, lx.value());
        } while (lx.eat(","));
        lx.expect(")");
      }
      if (lx.eat(":")) {
        do s.metas.push_back(parseMeta(lx)); while (lx.eat(";"));
      }
      if (!lx.atEnd()) ruleError(where, "unexpected text at column " + std::to_string(lx.p + 1));
      cur->steps.push_back(std::move(s));
    }
  }
  for (const Rule &r : rules)
    if (r.returns.empty())
      ruleError(r.family + " rules", r.schema.qualifiedName() + " returns nothing");
  return rules;
}

} // namespace

const std::vector<Rule> &table() {
  static const std::vector<Rule> rules = parseTable();
  return rules;
}


} // namespace kiln::decomp
