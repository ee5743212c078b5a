// Tests of the schema parser: valid schemas of every shape, printing, and
// errors that point at the column.
#include "kiln/schema.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln;
using K = SchemaType::Kind;

TEST(Schema, FullExample) {
  FunctionSchema s = parseSchema(
      "ns::name.overload(Tensor x, Tensor(a!) out, float scale=1.0, int[]? dims=None, SymInt n, "
      "Scalar s, *, bool keepdim=False) -> (Tensor, Tensor)");
  EXPECT_EQ(s.ns, "ns");
  EXPECT_EQ(s.name, "name");
  EXPECT_EQ(s.overload, "overload");
  EXPECT_EQ(s.qualifiedName(), "ns::name.overload");
  ASSERT_EQ(s.arguments.size(), 7u);
  EXPECT_EQ(s.arguments[0].type->kind, K::Tensor);
  EXPECT_FALSE(s.arguments[0].alias);
  ASSERT_TRUE(s.arguments[1].alias);
  EXPECT_TRUE(s.arguments[1].isWrite());
  EXPECT_EQ(s.arguments[1].alias->beforeSets, std::vector<std::string>{"a"});
  EXPECT_EQ(s.arguments[2].type->kind, K::Float);
  ASSERT_TRUE(s.arguments[2].defaultValue);
  EXPECT_DOUBLE_EQ(s.arguments[2].defaultValue->toDouble(), 1.0);
  EXPECT_TRUE(s.arguments[3].type->isOptional());
  EXPECT_EQ(s.arguments[3].type->elem->kind, K::List);
  EXPECT_TRUE(s.arguments[3].defaultValue->isNone());
  EXPECT_EQ(s.arguments[4].type->kind, K::SymInt);
  EXPECT_EQ(s.arguments[5].type->kind, K::Scalar);
  EXPECT_FALSE(s.arguments[5].kwargOnly);
  EXPECT_TRUE(s.arguments[6].kwargOnly);
  EXPECT_FALSE(s.arguments[6].defaultValue->toBool());
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_TRUE(s.isMutable());
  EXPECT_EQ(s.argumentIndex("scale"), 2);
}

TEST(Schema, AtenSchemasRoundTrip) {
  const char *schemas[] = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
      "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
      "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
      "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
      "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      "aten::gelu(Tensor self, *, str approximate='none') -> Tensor",
      "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
      "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      "aten::_foreach_add.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]",
      "aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
      "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
      "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
      "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
      "aten::_fused_sdp_choice(Tensor q, float dropout_p=0., float? scale=None) -> int",
      "aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
      "aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
      "SymInt ignore_index=-100) -> Tensor",
      "aten::_assert_async(Tensor self) -> ()",
      "kilntest::scaled_gelu(Tensor x, float scale) -> Tensor",
  };
  for (const char *text : schemas) {
    SCOPED_TRACE(text);
    FunctionSchema s = parseSchema(text);
    // Printing and re-parsing gives the same schema.
    FunctionSchema again = parseSchema(s.str());
    EXPECT_EQ(s.str(), again.str());
    EXPECT_EQ(s.arguments.size(), again.arguments.size());
  }
}

TEST(Schema, Details) {
  FunctionSchema s = parseSchema(
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
      "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor");
  EXPECT_EQ(s.arguments[3].type->fixedSize, 2);
  EXPECT_EQ(s.arguments[3].defaultValue->toIntList(), (std::vector<int64_t>{1, 1}));
  FunctionSchema split = parseSchema(
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_EQ(split.arguments[0].alias->afterSets, std::vector<std::string>{"*"});
  EXPECT_TRUE(split.returns[0].type->isTensorListLike());
  FunctionSchema mx = parseSchema("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> "
                                  "(Tensor values, Tensor indices)");
  EXPECT_EQ(mx.returns[1].name, "indices");
  FunctionSchema gelu = parseSchema("aten::gelu(Tensor self, *, str approximate='tanh') -> Tensor");
  EXPECT_EQ(gelu.arguments[1].defaultValue->toString(), "tanh");
  FunctionSchema ln = parseSchema("aten::f(float eps=1e-05, float[] w=[1.5, 2], int[] e=[]) -> ()");
  EXPECT_DOUBLE_EQ(ln.arguments[0].defaultValue->toDouble(), 1e-5);
  EXPECT_EQ(ln.arguments[1].defaultValue->toDoubleList(), (std::vector<double>{1.5, 2.0}));
  EXPECT_TRUE(ln.arguments[2].defaultValue->toIntList().empty());
  EXPECT_TRUE(ln.returns.empty());
  // Namespace from the library; name-only lookups.
  FunctionSchema noNs = parseSchema("relu(Tensor self) -> Tensor", "aten");
  EXPECT_EQ(noNs.qualifiedName(), "aten::relu");
  FunctionSchema nameOnly = parseSchema("ns::op.ov", "", /*allowNameOnly=*/true);
  EXPECT_EQ(nameOnly.qualifiedName(), "ns::op.ov");
}

struct BadSchema {
  const char *text;
  size_t column;
  const char *message;
};

TEST(Schema, ErrorsPointAtTheColumn) {
  const BadSchema bad[] = {
      {"ns::f(Tensor x, float scale -> Tensor", 29, "expected ',' or ')'"},
      {"ns::f(Tensor x) Tensor", 17, "expected '->'"},
      {"ns::f(Tensr x) -> Tensor", 7, "unknown type 'Tensr'"},
      {"ns::f(Tensor x, Tensor x) -> Tensor", 24, "appears twice"},
      {"ns::f(int x=None) -> Tensor", 13, "not optional"},
      {"ns::f(Tensor(a! x) -> Tensor", 17, "expected ')'"},
      {"f(Tensor x) -> Tensor", 1, "namespace"},
      {"ns::f(Tensor x) -> Tensor junk", 27, "after the schema"},
      {"ns::f(int[] x=3) -> ()", 15, "unsized list"},
      {"ns::f(Tensor x) -> (Tensor, Tensor", 35, "expected ',' or ')'"},
      {"ns::f.default(Tensor x) -> Tensor", 7, "'default'"},
      // Found by fuzz-schema: the list size overflowed int64 (UBSan).
      {"ns::f(int[777777777777777777777777777777777770] k) -> Tensor", 11, "list size too large"},
  };
  for (const BadSchema &b : bad) {
    SCOPED_TRACE(b.text);
    try {
      parseSchema(b.text);
      ADD_FAILURE() << "parsed a bad schema";
    } catch (const SchemaParseError &e) {
      EXPECT_EQ(e.column(), b.column) << e.what();
      EXPECT_NE(e.message().find(b.message), std::string::npos) << e.what();
      std::string what = e.what();
      EXPECT_EQ(what.rfind("schema error at column " + std::to_string(b.column) + ": ", 0), 0u);
      // The caret line puts '^' under the column.
      size_t caret = what.rfind('\n');
      ASSERT_NE(caret, std::string::npos);
      EXPECT_EQ(what.substr(caret + 1), "  " + std::string(b.column - 1, ' ') + "^");
    }
  }
}

TEST(Schema, NonIntegralDefaultsOfIntListsAreErrors) {
  // Found by fuzz-schema: a NaN default of a list of ints was converted to
  // int64 (undefined behaviour, UBSan). Infinities and huge values too.
  for (const char *text : {"ns::f(int[2] k=nan) -> Tensor", "ns::f(int[2] k=inf) -> Tensor",
                           "ns::f(int[2] k=1e300) -> Tensor", "ns::f(int k=-inf) -> Tensor"}) {
    SCOPED_TRACE(text);
    EXPECT_ANY_THROW(parseSchema(text));
  }
  EXPECT_ANY_THROW(IValue(std::nan("")).toInt());
  EXPECT_ANY_THROW(IValue(1e300).toInt());
  EXPECT_EQ(IValue(3.0).toInt(), 3);
}

TEST(Schema, ColumnOfTheIssueExample) {
  // The first bad token of "...float scale -> " is '-' at column 29 (1-based).
  try {
    parseSchema("ns::f(Tensor x, float scale -> Tensor");
    FAIL();
  } catch (const SchemaParseError &e) {
    EXPECT_NE(std::string(e.what()).find("expected ',' or ')' but found '-'"), std::string::npos)
        << e.what();
  }
}
