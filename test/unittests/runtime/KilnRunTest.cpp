// kiln tests — the kiln-run tool against the fake models and, run eagerly, the .pt2
// corpus: exit codes, output files, messages.
#include "KilnRun.h"
#include "TestUtil.h"
#include "kiln/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace kiln;
using kiln::test::TempDir;

namespace {

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Tensor f32(std::vector<int64_t> sizes, std::vector<float> v) {
  Tensor t = Tensor::empty(sizes, DType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

std::vector<float> values(const Tensor &t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

class KilnRun : public ::testing::Test {
protected:
  void SetUp() override {
    writeNpy(dir / "x.npy", f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
    writeNpy(dir / "b.npy", f32({2}, {10, 20}));
    writeNpy(dir / "y.npy", f32({2, 4}, {12, 15, 20, 27, 26, 33, 42, 53}));
    writeNpy(dir / "w.npy", f32({4}, {1, 2, 3, 4}));
  }
  // Runs the real kiln-run binary; stdout/stderr land in `out` and `err`.
  int run(const std::string &args) {
    std::string cmd = std::string("'") + KILN_RUN_EXE + "' " + args + " >'" + (dir / "stdout") +
                      "' 2>'" + (dir / "stderr") + "'";
    int rc = std::system(cmd.c_str());
    out = slurp(dir / "stdout");
    err = slurp(dir / "stderr");
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  }
  std::string model() const { return std::string("'") + KILN_FAKE_MODEL + "'"; }
  std::string inputs() const { return " --input " + (dir / "x.npy") + " --input " + (dir / "b.npy"); }
  std::string expects(const std::string &first) const {
    return " --expect " + first + " --expect " + (dir / "x.npy") + " --expect " + (dir / "w.npy");
  }

  TempDir dir;
  std::string out, err;
};

} // namespace

TEST_F(KilnRun, Help) {
  EXPECT_EQ(run("--help"), 0);
  EXPECT_NE(out.find("usage: kiln-run MODEL.so"), std::string::npos);
  EXPECT_NE(out.find("Exit codes"), std::string::npos);
}

TEST_F(KilnRun, UsageErrors) {
  EXPECT_EQ(run(""), 2);
  EXPECT_NE(err.find("no model given"), std::string::npos) << err;
  EXPECT_EQ(run(model() + " --frobnicate"), 2);
  EXPECT_NE(err.find("unknown option '--frobnicate'"), std::string::npos) << err;
  EXPECT_EQ(run(model() + inputs() + " --bench 0"), 2);
  EXPECT_EQ(run(model() + inputs() + " --rtol abc"), 2);
  EXPECT_EQ(run(model() + " --input"), 2);
  EXPECT_NE(err.find("--input needs a value"), std::string::npos) << err;
}

TEST_F(KilnRun, WritesOutputs) {
  std::string outDir = dir / "nested/out";
  ASSERT_EQ(run(model() + inputs() + " --output-dir " + outDir), 0) << err;
  EXPECT_EQ(values(readNpy(outDir + "/output0.npy")), (std::vector<float>{12, 15, 20, 27, 26, 33, 42, 53}));
  EXPECT_EQ(values(readNpy(outDir + "/output1.npy")), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(values(readNpy(outDir + "/output2.npy")), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(KilnRun, ExpectMatchAndMismatch) {
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y.npy")), 0) << err;
  EXPECT_NE(out.find("output 0 (\"y\": f32 [s0, 4])"), std::string::npos) << out;
  EXPECT_NE(out.find("max abs error 0, max rel error 0: OK"), std::string::npos) << out;

  writeNpy(dir / "y_off.npy", f32({2, 4}, {12, 15, 20, 27, 26, 33, 42, 53.5f}));
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y_off.npy")), 1);
  EXPECT_NE(out.find("max abs error 0.5"), std::string::npos) << out;
  EXPECT_NE(out.find("1 of 8 elements"), std::string::npos) << out;
  EXPECT_NE(out.find("first at [1, 3]: got 53, expected 53.5"), std::string::npos) << out;
  EXPECT_NE(out.find("MISMATCH"), std::string::npos);
  // The same difference within a looser tolerance.
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y_off.npy") + " --atol 0.6"), 0) << out;
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y_off.npy") + " --rtol 0.01"), 0) << out;
}

TEST_F(KilnRun, ShapeOrDTypeMismatchIsAMismatch) {
  writeNpy(dir / "y_shape.npy", f32({4, 2}, {12, 15, 20, 27, 26, 33, 42, 53}));
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y_shape.npy")), 1);
  EXPECT_NE(out.find("shape [2, 4] differs from expected [4, 2]"), std::string::npos) << out;
  writeNpy(dir / "y_f64.npy", Tensor::zeros({2, 4}, DType::Float64));
  EXPECT_EQ(run(model() + inputs() + expects(dir / "y_f64.npy")), 1);
  EXPECT_NE(out.find("dtype f32 differs from expected f64"), std::string::npos) << out;
}

TEST_F(KilnRun, NanMatchesNan) {
  float nan = std::nanf("");
  writeNpy(dir / "x.npy", f32({1, 4}, {nan, 1, 1, 1}));
  writeNpy(dir / "b.npy", f32({1}, {0}));
  writeNpy(dir / "y.npy", f32({1, 4}, {nan, 3, 4, 5}));
  writeNpy(dir / "xe.npy", f32({1, 4}, {nan, 1, 1, 1}));
  std::string e = " --expect " + (dir / "y.npy") + " --expect " + (dir / "xe.npy") + " --expect " + (dir / "w.npy");
  EXPECT_EQ(run(model() + inputs() + e), 0) << out << err;
}

TEST_F(KilnRun, BadInputsExitWith2) {
  EXPECT_EQ(run(model() + " --input " + (dir / "x.npy")), 2);
  EXPECT_NE(err.find("takes 2 input(s), got 1 --input"), std::string::npos) << err;
  EXPECT_NE(err.find("input 1 (\"b\": f32 [s0])"), std::string::npos) << err;

  EXPECT_EQ(run(model() + " --input " + (dir / "missing.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("missing.npy"), std::string::npos) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;

  writeNpy(dir / "xi.npy", Tensor::zeros({2, 4}, DType::Int64));
  EXPECT_EQ(run(model() + " --input " + (dir / "xi.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("input 0 (\"x\"): dtype is i64, expected f32"), std::string::npos) << err;

  writeNpy(dir / "x3.npy", Tensor::zeros({2, 4, 1}, DType::Float32));
  EXPECT_EQ(run(model() + " --input " + (dir / "x3.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("rank is 3"), std::string::npos) << err;

  writeNpy(dir / "x5.npy", Tensor::zeros({2, 5}, DType::Float32));
  EXPECT_EQ(run(model() + " --input " + (dir / "x5.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("dim 1 is 5, expected 4"), std::string::npos) << err;

  writeNpy(dir / "xbig.npy", Tensor::zeros({17, 4}, DType::Float32));
  writeNpy(dir / "bbig.npy", Tensor::zeros({17}, DType::Float32));
  EXPECT_EQ(run(model() + " --input " + (dir / "xbig.npy") + " --input " + (dir / "bbig.npy")), 2);
  EXPECT_NE(err.find("dim 0 is 17, outside the range [1, 16] of symbol s0"), std::string::npos) << err;

  writeNpy(dir / "b3.npy", Tensor::zeros({3}, DType::Float32));
  EXPECT_EQ(run(model() + " --input " + (dir / "x.npy") + " --input " + (dir / "b3.npy")), 2);
  EXPECT_NE(err.find("dim 0 is 3, but symbol s0 is already 2"), std::string::npos) << err;

  { std::ofstream(dir / "junk.npy") << "junk"; }
  EXPECT_EQ(run(model() + " --input " + (dir / "junk.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("junk.npy"), std::string::npos) << err;

  EXPECT_EQ(run(model() + inputs() + " --expect " + (dir / "y.npy")), 2);
  EXPECT_NE(err.find("has 3 output(s), got 1 --expect"), std::string::npos) << err;
}

TEST_F(KilnRun, BadModelsExitWith2) {
  EXPECT_EQ(run((dir / "nope.so") + inputs()), 2);
  EXPECT_NE(err.find("nope.so' does not exist"), std::string::npos) << err;
  EXPECT_EQ(run(std::string(KILN_NOT_A_MODEL) + inputs()), 2);
  EXPECT_NE(err.find("is not a kiln model"), std::string::npos) << err;
  EXPECT_EQ(run(model() + inputs() + " --plugin " + (dir / "noplugin.so")), 2);
  EXPECT_NE(err.find("noplugin.so'"), std::string::npos) << err;
}

TEST_F(KilnRun, ModelFailureExitsWith3) {
  writeNpy(dir / "bfail.npy", f32({2}, {-999, 0}));
  EXPECT_EQ(run(model() + " --input " + (dir / "x.npy") + " --input " + (dir / "bfail.npy")), 3);
  EXPECT_NE(err.find("the model entry failed"), std::string::npos) << err;
}

TEST_F(KilnRun, Bench) {
  EXPECT_EQ(run(model() + inputs() + " --bench 20"), 0) << err;
  EXPECT_NE(out.find("bench: 20 runs after 2 warm-up: min "), std::string::npos) << out;
  EXPECT_NE(out.find(" ms, median "), std::string::npos) << out;
  EXPECT_NE(out.find(" ms, p90 "), std::string::npos) << out;
}

TEST_F(KilnRun, ExternalWeights) {
  writeNpy(dir / "x10.npy", Tensor::zeros({3, 10}, DType::Float32));
  std::string cmd = std::string(KILN_FAKE_MODEL_EXTERNAL) + " --input " + (dir / "x10.npy");
  EXPECT_EQ(run(cmd), 2);
  EXPECT_NE(err.find("external weights"), std::string::npos) << err;
  EXPECT_EQ(run(cmd + " --weights " + KILN_TEST_CORPUS + "/mlp/model.core.pt2 --output-dir " + dir.path()), 0) << err;
  EXPECT_EQ(readNpy(dir / "output0.npy").sizes(), (std::vector<int64_t>{3, 10}));
}

// --- .pt2 archives, run eagerly through the dispatcher -----------------------

namespace {

std::string corpus(const std::string &rel) { return std::string("'") + KILN_TEST_CORPUS + "/" + rel + "'"; }

struct EagerCase {
  std::string model;  ///< corpus dir
  std::string file;   ///< model or model.core
};

void PrintTo(const EagerCase &c, std::ostream *os) { *os << c.model << "/" << c.file << ".pt2"; }

std::string eagerCaseName(const ::testing::TestParamInfo<EagerCase> &info) {
  std::string f = info.param.file == "model" ? "" : "_core";
  return info.param.model + f;
}

class KilnRunEagerCorpus : public KilnRun, public ::testing::WithParamInterface<EagerCase> {};

} // namespace

TEST_P(KilnRunEagerCorpus, MatchesPyTorch) {
  const EagerCase &c = GetParam();
  std::string args = corpus(c.model + "/" + c.file + ".pt2") + " --input " + corpus(c.model + "/input0.npy") +
                     " --expect " + corpus(c.model + "/output0.npy") + " --output-dir " + (dir / "out");
  if (c.model == "custom_op") args += std::string(" --plugin '") + KILN_EXAMPLE_OPS + "'";
  ASSERT_EQ(run(args), 0) << out << err;
  EXPECT_NE(out.find("output 0 (\""), std::string::npos) << out;
  EXPECT_NE(out.find(": OK"), std::string::npos) << out;
  EXPECT_EQ(out.find("MISMATCH"), std::string::npos) << out;
  Tensor expected = readNpy(std::string(KILN_TEST_CORPUS) + "/" + c.model + "/output0.npy");
  EXPECT_EQ(readNpy(dir / "out/output0.npy").sizes(), expected.sizes());
}

INSTANTIATE_TEST_SUITE_P(
    KilnRunEager, KilnRunEagerCorpus,
    ::testing::Values(EagerCase{"mlp", "model"}, EagerCase{"mlp", "model.core"},
                      EagerCase{"mlp_dynamic", "model"}, EagerCase{"mlp_dynamic", "model.core"},
                      EagerCase{"convnet", "model"}, EagerCase{"convnet", "model.core"},
                      EagerCase{"convnet_dynamic", "model"}, EagerCase{"convnet_dynamic", "model.core"},
                      EagerCase{"custom_op", "model"}, EagerCase{"custom_op", "model.core"}),
    eagerCaseName);

TEST_F(KilnRun, EagerDescribesDynamicDims) {
  // The symbol of a dynamic dim comes from the archive (here s77 in [1, 1024]).
  EXPECT_EQ(run(corpus("mlp_dynamic/model.pt2")), 2);
  EXPECT_NE(err.find("takes 1 input(s), got 0 --input"), std::string::npos) << err;
  EXPECT_NE(err.find("input 0 (\"x\": f32 [s77, 64])"), std::string::npos) << err;
}

TEST_F(KilnRun, EagerDynamicBatch) {
  // Another batch size within the range runs; rows are independent, so row 0
  // of a batch of 3 equals row 0 of the reference batch.
  Tensor x = readNpy(std::string(KILN_TEST_CORPUS) + "/mlp_dynamic/input0.npy");
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{8, 64}));
  Tensor x3 = Tensor::empty({3, 64}, DType::Float32);
  std::copy(x.data<float>(), x.data<float>() + 3 * 64, x3.data<float>());
  writeNpy(dir / "x3.npy", x3);
  ASSERT_EQ(run(corpus("mlp_dynamic/model.pt2") + " --input " + (dir / "x3.npy") + " --output-dir " + dir.path()), 0)
      << err;
  Tensor y = readNpy(dir / "output0.npy"), ref = readNpy(std::string(KILN_TEST_CORPUS) + "/mlp_dynamic/output0.npy");
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{3, 10}));
  for (int i = 0; i < 30; ++i) EXPECT_NEAR(y.data<float>()[i], ref.data<float>()[i], 1e-5) << i;
}

TEST_F(KilnRun, EagerBadInputsExitWith2) {
  std::string mlp = corpus("mlp/model.pt2"), dyn = corpus("mlp_dynamic/model.pt2");
  writeNpy(dir / "x5.npy", Tensor::zeros({8, 65}, DType::Float32));
  EXPECT_EQ(run(mlp + " --input " + (dir / "x5.npy")), 2);
  EXPECT_NE(err.find("input 0 (\"x\"): dim 1 is 65, expected 64 (shape [8, 65], expected [8, 64])"),
            std::string::npos) << err;

  EXPECT_EQ(run(mlp + " --input " + (dir / "missing.npy")), 2);
  EXPECT_NE(err.find("missing.npy"), std::string::npos) << err;
  EXPECT_NE(err.find("does not exist"), std::string::npos) << err;

  writeNpy(dir / "xi.npy", Tensor::zeros({8, 64}, DType::Int64));
  EXPECT_EQ(run(dyn + " --input " + (dir / "xi.npy")), 2);
  EXPECT_NE(err.find("input 0 (\"x\"): dtype is i64, expected f32"), std::string::npos) << err;

  writeNpy(dir / "x3.npy", Tensor::zeros({8, 64, 1}, DType::Float32));
  EXPECT_EQ(run(dyn + " --input " + (dir / "x3.npy")), 2);
  EXPECT_NE(err.find("rank is 3 (shape [8, 64, 1]), expected 2 [s77, 64]"), std::string::npos) << err;

  writeNpy(dir / "xbig.npy", Tensor::zeros({1025, 64}, DType::Float32));
  EXPECT_EQ(run(dyn + " --input " + (dir / "xbig.npy")), 2);
  EXPECT_NE(err.find("dim 0 is 1025, outside the range [1, 1024] of symbol s77"), std::string::npos) << err;

  EXPECT_EQ(run(mlp + " --input " + (dir / "x.npy") + " --input " + (dir / "b.npy")), 2);
  EXPECT_NE(err.find("takes 1 input(s), got 2 --input"), std::string::npos) << err;

  std::string ok = mlp + " --input " + corpus("mlp/input0.npy");
  EXPECT_EQ(run(ok + " --expect " + (dir / "y.npy") + " --expect " + (dir / "y.npy")), 2);
  EXPECT_NE(err.find("has 1 output(s), got 2 --expect"), std::string::npos) << err;
}

TEST_F(KilnRun, EagerBadModelsExitWith2) {
  std::string in = " --input " + corpus("mlp/input0.npy");
  EXPECT_EQ(run((dir / "nope.pt2") + in), 2);
  EXPECT_NE(err.find("nope.pt2' does not exist"), std::string::npos) << err;

  { std::ofstream(dir / "junk.pt2") << "junk"; }
  EXPECT_EQ(run((dir / "junk.pt2") + in), 2);
  EXPECT_NE(err.find("junk.pt2"), std::string::npos) << err;

  // --weights is for compiled models only.
  EXPECT_EQ(run(corpus("mlp/model.pt2") + in + " --weights " + corpus("mlp/model.pt2")), 2);
  EXPECT_NE(err.find("--weights does not apply to a .pt2 archive"), std::string::npos) << err;

  // A custom op without its plugin, and a plugin that does not exist.
  std::string custom = corpus("custom_op/model.pt2") + " --input " + corpus("custom_op/input0.npy");
  EXPECT_EQ(run(custom), 2);
  EXPECT_NE(err.find("kilntest::scaled_gelu"), std::string::npos) << err;
  EXPECT_NE(err.find("--plugin"), std::string::npos) << err;
  EXPECT_EQ(run(custom + " --plugin " + (dir / "noplugin.so")), 2);
  EXPECT_NE(err.find("noplugin.so'"), std::string::npos) << err;
}

TEST_F(KilnRun, EagerExpectMismatchExitsWith1) {
  Tensor ref = readNpy(std::string(KILN_TEST_CORPUS) + "/mlp/output0.npy");
  Tensor off = ref.contiguous().clone();
  off.data<float>()[13] += 0.5f;
  writeNpy(dir / "off.npy", off);
  std::string cmd = corpus("mlp/model.pt2") + " --input " + corpus("mlp/input0.npy") + " --expect " + (dir / "off.npy");
  EXPECT_EQ(run(cmd), 1) << err;
  EXPECT_NE(out.find("output 0 (\"linear_2\": f32 [8, 10])"), std::string::npos) << out;
  EXPECT_NE(out.find("1 of 80 elements outside atol + rtol*|expected|, first at [1, 3]"), std::string::npos) << out;
  EXPECT_NE(out.find("MISMATCH"), std::string::npos) << out;
  EXPECT_EQ(run(cmd + " --atol 0.6"), 0) << out << err;
}

TEST_F(KilnRun, EagerBench) {
  std::string cmd = corpus("mlp/model.pt2") + " --input " + corpus("mlp/input0.npy") + " --bench 20";
  EXPECT_EQ(run(cmd), 0) << err;
  EXPECT_NE(out.find("bench: 20 runs after 2 warm-up: min "), std::string::npos) << out;
  EXPECT_NE(out.find(" ms, p90 "), std::string::npos) << out;
}

// --- every dtype through a model's inputs, outputs and --expect --------------

namespace {

// One input per dtype of fake_model_dtypes (f32 f64 f16 bf16 i64 i32 i16 i8 u8 bool),
// 3 elements each. bf16's input file is f32 (NumPy has no bfloat16).
struct DTypeFiles {
  std::vector<std::string> paths;
  explicit DTypeFiles(const TempDir &dir) {
    auto put = [&](const std::string &name, Tensor t) {
      writeNpy(dir / name, t);
      paths.push_back(dir / name);
    };
    put("f32.npy", f32({3}, {1.5f, -2.0f, NAN}));
    Tensor f64 = Tensor::empty({3}, DType::Float64);
    f64.data<double>()[0] = 0.1, f64.data<double>()[1] = -1e300, f64.data<double>()[2] = INFINITY;
    put("f64.npy", f64);
    Tensor f16 = Tensor::empty({3}, DType::Float16);
    f16.data<uint16_t>()[0] = 0x3c00, f16.data<uint16_t>()[1] = 0xc000, f16.data<uint16_t>()[2] = 0x7bff;
    put("f16.npy", f16);
    // The last value is not a bf16: it is rounded to 1 + 2^-7 on the way in.
    put("bf16.npy", f32({3}, {1.0f, 0.15625f, 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)}));
    Tensor i64 = Tensor::empty({3}, DType::Int64);
    i64.data<int64_t>()[0] = (int64_t(1) << 53) + 1, i64.data<int64_t>()[1] = -7,
    i64.data<int64_t>()[2] = INT64_MIN;
    put("i64.npy", i64);
    Tensor i32 = Tensor::empty({3}, DType::Int32);
    i32.data<int32_t>()[0] = 2147483647, i32.data<int32_t>()[1] = -1, i32.data<int32_t>()[2] = 0;
    put("i32.npy", i32);
    Tensor i16 = Tensor::empty({3}, DType::Int16);
    i16.data<int16_t>()[0] = -32768, i16.data<int16_t>()[1] = 5, i16.data<int16_t>()[2] = 32767;
    put("i16.npy", i16);
    Tensor i8 = Tensor::empty({3}, DType::Int8);
    i8.data<int8_t>()[0] = -128, i8.data<int8_t>()[1] = 0, i8.data<int8_t>()[2] = 127;
    put("i8.npy", i8);
    Tensor u8 = Tensor::empty({3}, DType::UInt8);
    u8.data<uint8_t>()[0] = 0, u8.data<uint8_t>()[1] = 128, u8.data<uint8_t>()[2] = 255;
    put("u8.npy", u8);
    Tensor b = Tensor::empty({3}, DType::Bool);
    b.data<uint8_t>()[0] = 1, b.data<uint8_t>()[1] = 0, b.data<uint8_t>()[2] = 1;
    put("bool.npy", b);
  }
  std::string flags(const std::string &flag) const {
    std::string s;
    for (const std::string &p : paths) s += " " + flag + " '" + p + "'";
    return s;
  }
};

std::string dtypesModel() { return std::string("'") + KILN_FAKE_MODEL_DTYPES + "'"; }

} // namespace

TEST_F(KilnRun, EveryDTypeInAndOut) {
  DTypeFiles files(dir);
  std::string outDir = dir / "out";
  ASSERT_EQ(run(dtypesModel() + files.flags("--input") + " --output-dir " + outDir), 0) << err;
  // bf16 is written as f32, with a note.
  EXPECT_NE(err.find("output 3 (\"y_bf16\": bf16 [?]) is bf16; written as f32"), std::string::npos) << err;
  const DType want[] = {DType::Float32, DType::Float64, DType::Float16, DType::Float32, DType::Int64,
                        DType::Int32,   DType::Int16,   DType::Int8,    DType::UInt8,   DType::Bool};
  for (int k = 0; k < 10; ++k) {
    Tensor got = readNpy(outDir + "/output" + std::to_string(k) + ".npy");
    Tensor in = readNpy(files.paths[k]);
    EXPECT_EQ(got.dtype(), want[k]) << k;
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{3})) << k;
    if (k != 3) {
      if (k == 0) {  // NaN bits need not survive exactly, NaN-ness must
        EXPECT_EQ(got.data<float>()[0], 1.5f);
        EXPECT_TRUE(std::isnan(got.data<float>()[2]));
      } else {
        EXPECT_EQ(std::memcmp(got.rawData(), in.rawData(), in.nbytes()), 0) << k;
      }
    }
  }
  // The bf16 round trip: exact values survive, the rest were rounded to bf16.
  Tensor b = readNpy(outDir + "/output3.npy");
  EXPECT_EQ(b.data<float>()[0], 1.0f);
  EXPECT_EQ(b.data<float>()[1], 0.15625f);
  EXPECT_EQ(b.data<float>()[2], 1.0f + std::ldexp(1.0f, -7));

  // Every output matches its own input used as the expected file (bf16 vs its f32
  // file within bf16's tolerance, the integers exactly, NaN == NaN, inf == inf).
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + files.flags("--expect")), 1) << out << err;
  EXPECT_NE(out.find("output 3 (\"y_bf16\": bf16 [?]) vs '" + files.paths[3] + "': max abs error 0.0039053"),
            std::string::npos) << out;
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + files.flags("--expect") + " --torch-tolerances"), 0)
      << out << err;
  EXPECT_NE(out.find("output 4 (\"y_i64\": i64 [?]) vs '" + files.paths[4] + "': max abs error 0 (exact): OK"),
            std::string::npos) << out;
  EXPECT_NE(out.find("output 9 (\"y_bool\": bool [?])"), std::string::npos) << out;
}

TEST_F(KilnRun, IntegersCompareExactly) {
  DTypeFiles files(dir);
  // 2^53 + 1 vs 2^53: equal as doubles, different as int64.
  Tensor i64 = readNpy(files.paths[4]);
  i64.data<int64_t>()[0] -= 1;
  writeNpy(dir / "i64_off.npy", i64);
  std::vector<std::string> expects = files.paths;
  expects[4] = dir / "i64_off.npy";
  std::string e;
  for (const std::string &p : expects) e += " --expect '" + p + "'";
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + e + " --atol 100 --rtol 1"), 1) << out << err;
  EXPECT_NE(out.find("max abs error 1 (exact); 1 of 3 elements differ, first at [0]: got 9007199254740993, "
                     "expected 9007199254740992: MISMATCH"),
            std::string::npos) << out;

  // A bool that differs, however loose the tolerance.
  Tensor b = readNpy(files.paths[9]);
  b.data<uint8_t>()[1] = 1;
  writeNpy(dir / "bool_off.npy", b);
  expects = files.paths;
  expects[9] = dir / "bool_off.npy";
  e.clear();
  for (const std::string &p : expects) e += " --expect '" + p + "'";
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + e + " --atol 10"), 1) << out << err;
  EXPECT_NE(out.find("first at [1]: got 0, expected 1: MISMATCH"), std::string::npos) << out;
}

TEST_F(KilnRun, InputDTypeMustMatch) {
  DTypeFiles files(dir);
  std::vector<std::string> in = files.paths;
  std::swap(in[4], in[5]);  // i32 data for the i64 input
  std::string flags;
  for (const std::string &p : in) flags += " --input '" + p + "'";
  EXPECT_EQ(run(dtypesModel() + flags), 2);
  EXPECT_NE(err.find("input 4 (\"a_i64\"): dtype is i32, expected i64"), std::string::npos) << err;
  // An f64 file is not silently narrowed into the bf16 input.
  in = files.paths;
  in[3] = files.paths[1];
  flags.clear();
  for (const std::string &p : in) flags += " --input '" + p + "'";
  EXPECT_EQ(run(dtypesModel() + flags), 2);
  EXPECT_NE(err.find("input 3 (\"a_bf16\"): dtype is f64, expected bf16"), std::string::npos) << err;
}

TEST_F(KilnRun, TorchTolerancesPerDType) {
  DTypeFiles files(dir);
  // f16 output 1.0 against 1.0005: outside rtol 1e-4, inside f16's 1e-3.
  std::vector<std::string> expects = files.paths;
  Tensor f16 = readNpy(files.paths[2]);
  f16.data<uint16_t>()[0] = 0x3c01;  // 1 + 2^-10
  writeNpy(dir / "f16_off.npy", f16);
  expects[2] = dir / "f16_off.npy";
  std::string e;
  for (const std::string &p : expects) e += " --expect '" + p + "'";
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + e), 1) << out;
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + e + " --torch-tolerances"), 0) << out;
  // An explicit --rtol wins over the per-dtype default.
  EXPECT_EQ(run(dtypesModel() + files.flags("--input") + e + " --torch-tolerances --rtol 1e-5"), 1) << out;
}

TEST(KilnRunCompare, TorchTolerance) {
  EXPECT_EQ(run::torchTolerance(DType::Float32).rtol, 1.3e-6);
  EXPECT_EQ(run::torchTolerance(DType::Float32).atol, 1e-5);
  EXPECT_EQ(run::torchTolerance(DType::Float64).rtol, 1e-7);
  EXPECT_EQ(run::torchTolerance(DType::Float64).atol, 1e-7);
  EXPECT_EQ(run::torchTolerance(DType::Float16).rtol, 1e-3);
  EXPECT_EQ(run::torchTolerance(DType::BFloat16).rtol, 1.6e-2);
  EXPECT_EQ(run::torchTolerance(DType::Int64).rtol, 0);
  Tensor a = Tensor::empty({1}, DType::Int32), b = Tensor::empty({1}, DType::Int32);
  a.data<int32_t>()[0] = 1000000, b.data<int32_t>()[0] = 1000001;
  EXPECT_FALSE(run::compareTensors(a, b, 1, 1).match);
  EXPECT_TRUE(run::compareTensors(a, a, 0, 0).match);
}

TEST(KilnRunCompare, Tolerances) {
  Tensor a = f32({3}, {1, 2, 3}), b = f32({3}, {1, 2, 3.001f});
  EXPECT_FALSE(run::compareTensors(a, b, 1e-4, 1e-5).match);
  EXPECT_TRUE(run::compareTensors(a, b, 1e-3, 0).match);
  EXPECT_TRUE(run::compareTensors(a, b, 0, 2e-3).match);
  Tensor inf = f32({1}, {INFINITY});
  EXPECT_TRUE(run::compareTensors(inf, inf, 0, 0).match);
  EXPECT_FALSE(run::compareTensors(inf, f32({1}, {-INFINITY}), 0, 0).match);
  EXPECT_FALSE(run::compareTensors(f32({1}, {NAN}), f32({1}, {1}), 1, 1).match);
}

TEST(KilnRunArgs, Parses) {
  run::Options o = run::parseArgs({"kiln-run", "m.so", "--input", "a.npy", "--input=b.npy", "--rtol",
                                   "1e-3", "--atol=0", "--bench", "7", "--plugin", "p.so", "--weights", "w.pt2",
                                   "--output-dir", "d", "--expect", "e.npy"});
  EXPECT_EQ(o.model, "m.so");
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"a.npy", "b.npy"}));
  EXPECT_EQ(o.rtol, 1e-3);
  EXPECT_EQ(o.atol, 0);
  EXPECT_EQ(o.bench, 7);
  EXPECT_EQ(o.plugins, (std::vector<std::string>{"p.so"}));
  EXPECT_EQ(o.weights, "w.pt2");
  EXPECT_EQ(o.outputDir, "d");
  EXPECT_EQ(o.expects, (std::vector<std::string>{"e.npy"}));
  EXPECT_THROW(run::parseArgs({"kiln-run", "a.so", "b.so"}), run::RunError);
}
