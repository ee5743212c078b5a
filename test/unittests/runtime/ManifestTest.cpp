// kiln tests — the manifest parser: a full manifest, and each kind of malformed line.
#include "kiln/error.h"
#include "Manifest.h"

#include <gtest/gtest.h>

using namespace kiln;

TEST(Manifest, ParsesEveryDirective) {
  Manifest m = parseManifest("kiln-manifest 1\n"
                             "name mlp\n"
                             "\n"
                             "# comments and blank lines are ignored\n"
                             "weights embedded\n"
                             "arg param l1.weight f32 2 16 8 0 512\n"
                             "arg buffer bn.num_batches_tracked i64 0 512 8\n"
                             "arg constant c0 bool 1 3 576 3\n"
                             "arg input x f32 2 s0 8\r\n"
                             "arg input mask bool 3 s0 ? 2\n"
                             "out y bf16 2 s0 16\n"
                             "sym s0 1 -1\n"
                             "end\n");
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.name, "mlp");
  EXPECT_FALSE(m.externalWeights);
  ASSERT_EQ(m.symbols.size(), 1u);
  EXPECT_EQ(m.symbols[0].min, 1);
  EXPECT_EQ(m.symbols[0].max, -1);
  ASSERT_EQ(m.args.size(), 5u);
  EXPECT_EQ(m.args[0].kind, ValueKind::Param);
  EXPECT_EQ(m.args[0].name, "l1.weight");
  EXPECT_EQ(m.args[0].offset, 0);
  EXPECT_EQ(m.args[0].nbytes, 512);
  EXPECT_EQ(m.args[1].kind, ValueKind::Buffer);
  EXPECT_EQ(m.args[1].dtype, DType::Int64);
  EXPECT_TRUE(m.args[1].dims.empty());
  EXPECT_EQ(m.args[2].kind, ValueKind::Constant);
  EXPECT_EQ(m.args[3].kind, ValueKind::Input);
  EXPECT_EQ(m.args[3].dims[0].symbol, 0);  // declared after use: still resolved
  EXPECT_EQ(m.args[3].dims[1].size, 8);
  EXPECT_FALSE(m.args[4].dims[1].isStatic());
  EXPECT_EQ(m.args[4].dims[1].symbol, -1);  // `?`
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].dtype, DType::BFloat16);
  EXPECT_EQ(dimsToString(m, m.args[4].dims), "[s0, ?, 2]");
}

TEST(Manifest, UpdatesNameTheArgTheyWrite) {
  Manifest m = parseManifest("kiln-manifest 1\nweights external\n"
                             "arg buffer total f32 1 4\narg buffer calls i64 0\n"
                             "arg input x f32 2 s0 4\nsym s0 1 8\n"
                             "out y f32 2 s0 4\n"
                             "update buffer calls i64 0\nupdate input x f32 2 s0 4\nend\n");
  ASSERT_EQ(m.updates.size(), 2u);
  EXPECT_EQ(m.updates[0].kind, ValueKind::Buffer);
  EXPECT_EQ(m.updates[0].name, "calls");
  ASSERT_EQ(m.updateArgs.size(), 2u);
  EXPECT_EQ(m.updateArgs[0], 1u);
  EXPECT_EQ(m.updates[1].kind, ValueKind::Input);
  EXPECT_EQ(m.updateArgs[1], 2u);
  EXPECT_EQ(m.updates[1].dims[0].symbol, 0);
}

TEST(Manifest, ExternalWeightsNeedNoOffsets) {
  Manifest m = parseManifest("kiln-manifest 1\nweights external\narg param w f16 1 4\n"
                             "arg input x f16 1 4\nout y f16 1 4\nend\n");
  EXPECT_TRUE(m.externalWeights);
  EXPECT_EQ(m.args[0].offset, -1);
}

TEST(Manifest, LayoutPermutesAWeight) {
  Manifest m = parseManifest("kiln-manifest 1\nweights external\narg param conv.weight f32 4 8 3 5 5\n"
                             "arg param b f32 1 8\narg input x f32 4 1 3 5 5\nout y f32 1 8\n"
                             "layout conv.weight 0 2 3 1\nend\n");
  EXPECT_EQ(m.args[0].layout, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_TRUE(m.args[1].layout.empty());
}

TEST(Manifest, DerivedArgsNameTheirRecipeAndOperands) {
  Manifest m = parseManifest("kiln-manifest 1\nname m\nweights external\n"
                             "arg param c.weight f32 4 8 3 3 3\narg buffer bn.running_mean f32 1 8\n"
                             "arg buffer bn.running_var f32 1 8\narg input x f32 4 1 3 8 8\n"
                             "arg derived c.weight#bn f32 4 8 3 3 3\narg derived c.weight#bn_bias f32 1 8\n"
                             "derive c.weight#bn conv-bn-weight 1e-05 c.weight - bn.running_var\n"
                             "derive c.weight#bn_bias conv-bn-bias 0.001 - - - bn.running_mean bn.running_var\n"
                             "layout c.weight#bn 0 2 3 1\nout y f32 4 1 8 6 6\nend\n");
  ASSERT_EQ(m.args.size(), 6u);
  EXPECT_EQ(m.args[4].kind, ValueKind::Derived);
  EXPECT_EQ(m.args[4].recipe, "conv-bn-weight");
  EXPECT_DOUBLE_EQ(m.args[4].eps, 1e-5);
  EXPECT_EQ(m.args[4].from, (std::vector<int>{0, -1, 2}));
  EXPECT_EQ(m.args[4].layout, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(m.args[5].recipe, "conv-bn-bias");
  EXPECT_EQ(m.args[5].from, (std::vector<int>{-1, -1, -1, 1, 2}));
  EXPECT_FALSE(m.args[4].isWeight());
}

// `weights appended`: the blob follows the .so's code in its file; weights
// keep their offsets into it, as embedded ones do.
TEST(Manifest, AppendedWeightsHaveOffsets) {
  Manifest m = parseManifest("kiln-manifest 1\nweights appended\narg param w f32 1 4 64 16\n"
                             "arg input x f32 1 4\nout y f32 1 4\nend\n");
  EXPECT_TRUE(m.appendedWeights);
  EXPECT_FALSE(m.externalWeights);
  EXPECT_EQ(m.args[0].offset, 64);
  EXPECT_EQ(m.args[0].nbytes, 16);
  EXPECT_FALSE(parseManifest("kiln-manifest 1\nweights embedded\nend\n").appendedWeights);
}

TEST(Manifest, OpsAndPluginsTheModelNeeds) {
  Manifest m = parseManifest("kiln-manifest 1\nweights embedded\narg input x f32 1 4\nout y f32 1 4\n"
                             "op kilntest::scaled_gelu\nop aten::erfinv\nplugin libops.so\nend\n");
  EXPECT_EQ(m.ops, (std::vector<std::string>{"kilntest::scaled_gelu", "aten::erfinv"}));
  EXPECT_EQ(m.plugins, (std::vector<std::string>{"libops.so"}));
}

namespace {
struct Bad {
  const char *body;   // lines after the header (line 2 onwards)
  const char *needle; // expected in the message
  int line;           // expected line number, 0 for "no line"
};
void PrintTo(const Bad &b, std::ostream *os) { *os << '"' << b.body << '"'; }

std::string errorOf(const std::string &text) {
  try {
    parseManifest(text);
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
    return e.what();
  }
  return "(no error)";
}
} // namespace

class ManifestBad : public ::testing::TestWithParam<Bad> {};

TEST_P(ManifestBad, NamesTheLine) {
  const Bad &b = GetParam();
  std::string msg = errorOf(std::string("kiln-manifest 1\n") + b.body);
  EXPECT_NE(msg.find(b.needle), std::string::npos) << msg;
  if (b.line) EXPECT_NE(msg.find("manifest line " + std::to_string(b.line)), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Lines, ManifestBad,
    ::testing::Values(
        Bad{"frobnicate 3\nend\n", "unknown directive 'frobnicate'", 2},
        Bad{"op scaled_gelu\nend\n", "expected 'op <namespace>::<name>'", 2},
        Bad{"op\nend\n", "expected 'op <namespace>::<name>'", 2},
        Bad{"plugin a b\nend\n", "expected 'plugin <file-name>'", 2},
        Bad{"name\nend\n", "expected 'name <model-name>'", 2},
        Bad{"name a\nname b\nend\n", "duplicate 'name'", 3},
        Bad{"weights inside\nend\n", "'weights embedded', 'weights appended' or 'weights external'", 2},
        Bad{"weights appended\narg param w f32 1 4\nend\n", "has no '<offset> <nbytes>'", 3},
        Bad{"weights embedded\nweights external\nend\n", "duplicate 'weights'", 3},
        Bad{"sym s0 1\nend\n", "expected 'sym <symbol> <min> <max>'", 2},
        Bad{"sym s0 x 4\nend\n", "symbol minimum 'x'", 2},
        Bad{"sym s0 -1 4\nend\n", "symbol minimum '-1'", 2},
        Bad{"sym s0 5 4\nend\n", "symbol maximum '4'", 2},
        Bad{"sym s0 1 99999999999999999999\nend\n", "symbol maximum", 2},
        Bad{"sym 12 1 4\nend\n", "bad symbol name '12'", 2},
        Bad{"sym s0 1 4\nsym s0 1 8\nend\n", "duplicate symbol 's0'", 3},
        Bad{"arg weight w f32 1 4\nend\n", "unknown arg kind 'weight'", 2},
        Bad{"arg input x\nend\n", "expected 'arg <kind> <name> <dtype> <rank> <dim>...'", 2},
        Bad{"arg input x f33 1 4\nend\n", "unknown dtype 'f33'", 2},
        Bad{"arg input x f32 two 4\nend\n", "rank 'two'", 2},
        Bad{"arg input x f32 -1\nend\n", "rank '-1'", 2},
        Bad{"arg input x f32 3 4 4\nend\n", "rank 3 but only 2 dims given", 2},
        Bad{"arg input x f32 1 -4\nend\n", "negative dim -4", 2},
        Bad{"arg input x f32 1 4 9\nend\n", "unexpected token(s) after the dims", 2},
        Bad{"arg input x f32 1 s9\nend\n", "dim 's9' is neither a size, '?' nor a declared symbol", 2},
        Bad{"arg input x f32 1 4\narg input x f32 1 4\nend\n", "duplicate arg name 'x'", 3},
        Bad{"arg param w f32 1 4 0\nend\n", "expected '<offset> <nbytes>' or nothing", 2},
        Bad{"arg param w f32 1 4 a 16\nend\n", "weight offset 'a'", 2},
        Bad{"arg param w f32 1 4 0 -16\nend\n", "weight size '-16'", 2},
        Bad{"arg param w f32 1 4\nend\n", "has no '<offset> <nbytes>'", 2},
        Bad{"arg param w f32 1 4 0 12\nend\n", "needs 16", 2},
        Bad{"sym s 1 2\narg param w f32 1 s 0 4\nend\n", "dynamic dim", 3},
        Bad{"out y f32 1\nend\n", "rank 1 but only 0 dims given", 2},
        Bad{"out y f32 1 4 0 16\nend\n", "unexpected token(s)", 2},
        Bad{"update buffer\nend\n", "expected 'update <kind> <name> <dtype> <rank> <dim>...'", 2},
        Bad{"update weight w f32 0\nend\n", "unknown arg kind 'weight'", 2},
        Bad{"update input x f32 1 4 0 16\nend\n", "unexpected token(s)", 2},
        Bad{"update input x f32 1 4\nout y f32 0\nend\n", "'out' after an 'update' line", 3},
        Bad{"arg input x f32 1 4\nupdate buffer x f32 1 4\nend\n",
            "update of buffer 'x', which is not an arg of that kind", 3},
        Bad{"arg input x f32 1 4\nupdate input x i64 1 4\nend\n", "another dtype or rank", 3},
        Bad{"arg input x f32 1 4\nupdate input x f32 1 4\nupdate input x f32 1 4\nend\n",
            "'x' is updated twice", 4},
        Bad{"layout\nend\n", "expected 'layout <name> <p0> <p1> ...'", 2},
        Bad{"arg derived d f32 1 4\nend\n", "derived arg 'd' has no 'derive' line", 2},
        Bad{"arg derived d f32 1 4 0 16\nend\n", "unexpected token(s)", 2},
        Bad{"derive d conv-bn-bias 0 - - - m v\nend\n", "no earlier derived arg", 2},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d fold 0 - - - m m\nend\n", "unknown recipe 'fold'", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d conv-bn-bias 0 m m\nend\n", "takes 5 operands, got 2", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d conv-bn-bias x - - - m m\nend\n", "eps 'x' is not a number", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d conv-bn-bias 0 - - - m v\nend\n", "'v' is no earlier weight arg", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d conv-bn-bias 0 m - - - m\nend\n", "needs its mean and variance", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 8\n"
            "derive d concat-rows 0 m\nend\n", "takes 2 or more operands, got 1", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 8\n"
            "derive d concat-rows 0 m -\nend\n", "takes no absent operand", 5},
        Bad{"weights external\narg param m f32 1 4\narg derived d f32 1 4\n"
            "derive d conv-bn-bias 0 - - - m m\nderive d conv-bn-bias 0 - - - m m\nend\n",
            "a second derive line", 6},
        Bad{"weights external\nlayout w 1 0\narg param w f32 2 3 4\nend\n", "no earlier weight arg", 3},
        Bad{"weights external\narg input w f32 2 3 4\nlayout w 1 0\nend\n", "no earlier weight arg", 4},
        Bad{"weights external\narg param w f32 2 3 4\nlayout w 1 0 2\nend\n", "has 3 entries for a weight of rank 2", 4},
        Bad{"weights external\narg param w f32 2 3 4\nlayout w 1 1\nend\n", "not a permutation", 4},
        Bad{"weights external\narg param w f32 2 3 4\nlayout w 0 2\nend\n", "not a permutation", 4},
        Bad{"weights external\narg param w f32 2 3 4\nlayout w 1 0\nlayout w 1 0\nend\n", "a second layout", 5},
        Bad{"end\nname late\n", "content after 'end'", 3},
        Bad{"end now\n", "'end' takes no operands", 2},
        Bad{"kiln-manifest 1\nend\n", "duplicate 'kiln-manifest'", 2},
        Bad{"name x\n", "without an 'end' line", 0}),
    [](const ::testing::TestParamInfo<Bad> &info) { return "Case" + std::to_string(info.index); });

TEST(Manifest, HeaderErrors) {
  EXPECT_NE(errorOf("").find("manifest is empty"), std::string::npos);
  EXPECT_NE(errorOf("name x\nend\n").find("expected 'kiln-manifest <version>' as the first line"),
            std::string::npos);
  EXPECT_NE(errorOf("kiln-manifest 2\nend\n").find("unsupported manifest version 2"), std::string::npos);
  EXPECT_NE(errorOf("kiln-manifest one\nend\n").find("manifest line 1"), std::string::npos);
}
