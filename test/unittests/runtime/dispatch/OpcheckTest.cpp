// Tests of opcheck (C++ API and the kiln-opcheck tool) on good ops and on
// deliberately broken plugins.
#include "kiln/library.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
void loadOrDie(const char *path) {
  std::string err;
  ASSERT_TRUE(loadPlugin(path, err)) << err;
}
/// The failures of one test in a report.
std::vector<OpcheckResult> failuresOf(const OpcheckReport &r, const std::string &test) {
  std::vector<OpcheckResult> f;
  for (const OpcheckResult &x : r.failures())
    if (x.test == test) f.push_back(x);
  return f;
}
int run(const std::string &cmd, std::string &out) {
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
} // namespace

TEST(Opcheck, ExampleOpPasses) {
  loadOrDie(KILN_EXAMPLE_OPS);
  OpcheckOptions o;
  o.numSamples = 4;
  OpcheckReport r = opcheck("kilntest::scaled_gelu", o);
  EXPECT_TRUE(r.ok()) << r.str();
  // The gradient was really checked (not skipped) on every sample.
  int grads = 0;
  for (auto &x : r.results)
    if (x.test == "test_autograd" && !x.skipped && x.passed) ++grads;
  EXPECT_EQ(grads, 4) << r.str();
}

TEST(Opcheck, AtenOpsPassWithExplicitSamples) {
  Tensor x = Tensor::empty({2, 3, 5, 5}, DType::Float32);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = (float)((i * 37) % 11) - 5;
  Tensor w = Tensor::empty({4, 3, 3, 3}, DType::Float32);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = (float)((i * 13) % 7) / 7;
  OpcheckOptions o;
  o.samples = {Stack{x, w, std::nullopt, std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1}}};
  OpcheckReport r = opcheck("aten::conv2d", o);
  EXPECT_TRUE(r.ok()) << r.str();
  OpcheckOptions gen; // generated samples suit elementwise ops
  for (const char *op : {"aten::relu", "aten::gelu", "aten::add.Tensor", "aten::mul.Tensor", "aten::t"}) {
    if (std::string(op) == "aten::t") gen.numSamples = 1; // t wants rank <= 2: the first shape
    OpcheckReport rr = opcheck(op, gen);
    EXPECT_TRUE(rr.ok()) << rr.str();
  }
  OpcheckOptions views;
  views.samples = {Stack{x, std::vector<int64_t>{0, 2, 3, 1}}};
  OpcheckReport pr = opcheck("aten::permute", views);
  EXPECT_TRUE(pr.ok()) << pr.str(); // a declared alias (Tensor(a) -> Tensor(a))
}

namespace {
Tensor wavy(const std::vector<int64_t> &shape, double phase) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = (float)(2 * std::sin(1.7 * (double)i + phase));
  return t;
}
Tensor positive(const std::vector<int64_t> &shape) {
  Tensor t = wavy(shape, 0.3);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.5f + std::fabs(t.data<float>()[i]);
  return t;
}
} // namespace

// Every aten op's kernels, Meta kernel and backward formula agree (the
// gradient in float64 against finite differences).
TEST(Opcheck, AtenFormulasMatchFiniteDifferences) {
  using V = std::vector<int64_t>;
  Tensor img = wavy({2, 3, 5, 5}, 0.1), w = wavy({4, 3, 3, 3}, 0.7), b4 = wavy({4}, 1.1);
  Tensor m23 = wavy({2, 3}, 0.2), m34 = wavy({3, 4}, 0.4), v4 = wavy({4}, 0.9), w43 = wavy({4, 3}, 0.5);
  Tensor c3 = wavy({3}, 0.6), c3b = wavy({3}, 1.6), mean3 = wavy({3}, 2.1), var3 = positive({3});
  struct Case {
    const char *op;
    Stack args;
  };
  std::vector<Case> cases = {
      {"aten::conv2d", {img, w, b4, V{2, 1}, V{1, 0}, V{1, 1}, (int64_t)1}},
      {"aten::convolution", {img, w, std::nullopt, V{1, 1}, V{1, 1}, V{1, 1}, false, V{0, 0}, (int64_t)1}},
      {"aten::linear", {wavy({2, 2, 3}, 0.3), w43, v4}},
      {"aten::addmm", {v4, m23, m34, 0.5, 2.0}},
      {"aten::mm", {m23, m34}},
      {"aten::max_pool2d", {img, V{2, 2}}},
      {"aten::max_pool2d_with_indices", {img, V{3, 3}, V{2, 2}, V{1, 1}}},
      {"aten::adaptive_avg_pool2d", {img, V{3, 2}}},
      {"aten::batch_norm", {img, c3, c3b, mean3, var3, false, 0.1, 1e-5, false}},
      {"aten::_native_batch_norm_legit_no_training", {img, c3, c3b, mean3, var3, 0.1, 1e-5}},
      {"aten::mean.dim", {img, V{-1, -2}, true}},
      {"aten::permute", {img, V{0, 2, 3, 1}}},
      {"aten::view", {img, V{6, -1}}},
      {"aten::flatten.using_ints", {img, (int64_t)1}},
      {"aten::transpose.int", {img, (int64_t)1, (int64_t)3}},
      {"aten::add.Tensor", {m23, c3, 3.0}},
      {"aten::mul.Tensor", {img, wavy({3, 1, 1}, 0.8)}},
      {"aten::gelu", {m23, std::string("tanh")}},
  };
  for (Case &c : cases) {
    OpcheckOptions o;
    o.samples = {c.args};
    OpcheckReport r = opcheck(c.op, o);
    EXPECT_TRUE(r.ok()) << r.str();
    bool gradChecked = false;
    for (auto &x : r.results)
      if (x.test == "test_autograd" && x.passed && !x.skipped) gradChecked = true;
    EXPECT_TRUE(gradChecked) << c.op << " has no checked formula:\n" << r.str();
  }
}

namespace {
Tensor ints(const std::vector<int64_t> &values) {
  Tensor t = Tensor::empty({(int64_t)values.size()}, DType::Int64);
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}
/// Values in (-0.9, 0.9): grid_sampler's normalized coordinates.
Tensor inside(const std::vector<int64_t> &shape, double phase) {
  Tensor t = wavy(shape, phase);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] *= 0.45f;
  return t;
}
} // namespace

// The formulas of ops compiled programs hand to the runtime (their "<op>#backward"
// calls) against finite differences: structural, indexed, reducing, resampling and
// special ops (the linear algebra's are checked in test/e2e/grad-gradcheck.test).
TEST(Opcheck, RuntimeOpFormulasMatchFiniteDifferences) {
  using V = std::vector<int64_t>;
  struct Case {
    const char *op;
    Stack args;
  };
  std::vector<Case> cases = {
      {"aten::cross", {wavy({2, 3}, 0.1), wavy({2, 3}, 0.9), (int64_t)1}},
      {"aten::diag", {wavy({3, 4}, 0.2), (int64_t)1}},
      {"aten::diag_embed", {wavy({2, 3}, 0.3), (int64_t)-1, (int64_t)0, (int64_t)2}},
      {"aten::fft_fftshift", {wavy({4, 5}, 0.4), std::nullopt}},
      {"aten::put", {wavy({3, 4}, 0.5), ints({7, 0, 11}), wavy({3}, 1.5), false}},
      {"aten::index_reduce", {wavy({4, 3}, 0.6), (int64_t)0, ints({0, 2, 0}), wavy({3, 3}, 1.2),
                              std::string("prod"), true}},
      {"aten::tensordot", {wavy({2, 3, 4}, 0.7), wavy({4, 3, 2}, 1.7), V{1, 2}, V{1, 0}}},
      {"aten::cdist", {wavy({2, 3}, 0.8), wavy({4, 3}, 1.8), 2.0, std::nullopt}},
      {"aten::trapezoid.x", {wavy({3, 5}, 0.9), wavy({5}, 1.9), (int64_t)-1}},
      {"aten::cumulative_trapezoid.x", {wavy({3, 5}, 1.0), wavy({3, 5}, 2.0), (int64_t)1}},
      {"aten::renorm", {wavy({3, 4}, 1.1), 2.0, (int64_t)0, 2.5}},
      {"aten::linalg_vander", {wavy({4}, 1.2), std::nullopt}},
      {"aten::segment_reduce", {wavy({6}, 1.3), std::string("mean"), ints({2, 3, 1}), std::nullopt, std::nullopt,
                                (int64_t)0, false, std::nullopt}},
      {"aten::grid_sampler_2d", {wavy({1, 2, 4, 4}, 1.4), inside({1, 3, 3, 2}, 2.4), (int64_t)0, (int64_t)0, false}},
      {"aten::multi_margin_loss", {wavy({3, 4}, 1.5), ints({0, 3, 1}), (int64_t)1, 1.0, std::nullopt, (int64_t)1}},
      {"aten::linalg_householder_product", {wavy({4, 3}, 1.6), wavy({3}, 0.4)}},
      {"aten::special_i1e", {wavy({6}, 1.7)}},
      {"aten::special_erfcx", {wavy({6}, 1.8)}},
      {"aten::special_log_ndtr", {wavy({6}, 1.9)}},
      {"aten::mvlgamma", {positive({6}), (int64_t)1}},
  };
  for (Case &c : cases) {
    OpcheckOptions o;
    o.samples = {c.args};
    OpcheckReport r = opcheck(c.op, o);
    bool gradChecked = false;
    for (auto &x : r.results) {
      if (x.test != "test_autograd") continue;
      EXPECT_TRUE(x.passed || x.skipped) << c.op << ":\n" << r.str();
      gradChecked |= x.passed && !x.skipped;
    }
    EXPECT_TRUE(gradChecked) << c.op << " has no checked formula:\n" << r.str();
  }
}

// opcheck's generated samples give these losses targets whose backward formula
// used to index out of bounds (a crash); the formulas now refuse such a target.
TEST(Opcheck, MarginLossFormulasRefuseOutOfRangeTargets) {
  for (const char *op : {"aten::multi_margin_loss", "aten::multilabel_margin_loss"}) {
    OpcheckReport r = opcheck(op);
    bool refused = false;
    for (auto &x : r.results)
      refused |= x.test == "test_autograd" && !x.passed &&
                 x.message.find("backward: target") != std::string::npos &&
                 x.message.find("is out of range") != std::string::npos;
    EXPECT_TRUE(refused) << op << ":\n" << r.str();
  }
}

TEST(Opcheck, CatchesBrokenPlugins) {
  loadOrDie(KILN_BROKEN_OPS);
  OpcheckReport fake = opcheck("kilnbroken::wrong_fake");
  EXPECT_FALSE(fake.ok());
  auto ff = failuresOf(fake, "test_faketensor");
  ASSERT_FALSE(ff.empty()) << fake.str();
  EXPECT_EQ(ff[0].sample, 0);
  EXPECT_NE(ff[0].message.find("fake shape [3, 5], real shape [3, 4]"), std::string::npos) << fake.str();

  OpcheckReport grad = opcheck("kilnbroken::wrong_grad");
  auto gf = failuresOf(grad, "test_autograd");
  ASSERT_FALSE(gf.empty()) << grad.str();
  EXPECT_NE(gf[0].message.find("gradient of argument 'x'"), std::string::npos) << grad.str();
  EXPECT_TRUE(failuresOf(grad, "test_faketensor").empty()) << grad.str();

  OpcheckReport mut = opcheck("kilnbroken::sneaky_mutation");
  auto mf = failuresOf(mut, "test_schema");
  ASSERT_FALSE(mf.empty()) << mut.str();
  EXPECT_NE(mf[0].message.find("argument 'x' was modified in place"), std::string::npos) << mut.str();

  OpcheckReport alias = opcheck("kilnbroken::sneaky_alias");
  auto af = failuresOf(alias, "test_schema");
  ASSERT_FALSE(af.empty()) << alias.str();
  EXPECT_NE(af[0].message.find("shares memory with argument 'x'"), std::string::npos) << alias.str();

  OpcheckReport ok = opcheck("kilnbroken::declared_mutation");
  EXPECT_TRUE(ok.ok()) << ok.str();
}

TEST(Opcheck, OpWithoutFakeFails) {
  Library def(Library::DEF, "ktnofake", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor x) -> Tensor");
  Library cpu(Library::IMPL, "ktnofake", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", [](const Tensor &x) { return x.clone(); });
  OpcheckReport r = opcheck("ktnofake::f");
  auto f = failuresOf(r, "test_faketensor");
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].message.find("no fake function"), std::string::npos);
}

TEST(Opcheck, Tool) {
  std::string out;
  EXPECT_EQ(run(std::string(KILN_OPCHECK_EXE) + " --plugin " + KILN_EXAMPLE_OPS +
                    " kilntest::scaled_gelu --samples 2",
                out),
            0)
      << out;
  EXPECT_NE(out.find("PASS kilntest::scaled_gelu test_autograd [sample 1]"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run(std::string(KILN_OPCHECK_EXE) + " --plugin " + KILN_BROKEN_OPS +
                    " kilnbroken::wrong_grad",
                out),
            1)
      << out;
  EXPECT_NE(out.find("FAIL kilnbroken::wrong_grad test_autograd [sample 0]"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run(std::string(KILN_OPCHECK_EXE) + " --plugin /nonexistent.so kilntest::scaled_gelu", out), 2)
      << out;
  out.clear();
  EXPECT_EQ(run(std::string(KILN_OPCHECK_EXE) + " nosuch::op", out), 1) << out;
  EXPECT_NE(out.find("unknown op 'nosuch::op'"), std::string::npos) << out;
}
