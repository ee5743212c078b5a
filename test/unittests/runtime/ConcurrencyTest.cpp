// kiln tests — one model from many threads, models loaded and freed and plugins registered while others run.
//
// These run in the normal suite and, built with -fsanitize=thread, as the
// TSan job of .ci/test.sh (docs/testing.md): every test here must be clean
// under TSan, so they share state only through kiln's own synchronisation.
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/library.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 16;

kiln_tensor_t f32(const std::vector<int64_t> &sizes, const std::vector<float> &values) {
  kiln_tensor_t t = nullptr;
  kiln_status_t st = kiln_tensor_create(KILN_DTYPE_F32, sizes.size(), sizes.data(), &t);
  EXPECT_EQ(st, nullptr) << kiln_status_message(st);
  kiln_status_free(st);
  std::memcpy(kiln_tensor_data(t), values.data(), kiln_tensor_nbytes(t));
  return t;
}

std::vector<float> floats(kiln_tensor_t t) {
  auto *p = static_cast<const float *>(kiln_tensor_data(t));
  return std::vector<float>(p, p + kiln_tensor_nbytes(t) / 4);
}

/// The fake model (fake_model.c) on a batch of `n` rows seeded by `seed`:
/// returns its three outputs as floats, or an error message.
struct FakeRun {
  std::vector<std::vector<float>> outputs;
  std::string error;
};
FakeRun runFake(kiln_model_t model, int64_t n, int seed) {
  std::vector<float> xv(n * 4), bv(n);
  for (int64_t i = 0; i < n * 4; ++i) xv[i] = (float)(seed * 7 + i) * 0.25f;
  for (int64_t i = 0; i < n; ++i) bv[i] = (float)(seed - i);
  kiln_tensor_t in[2] = {f32({n, 4}, xv), f32({n}, bv)};
  kiln_tensor_t out[3] = {};
  FakeRun r;
  kiln_status_t st = kiln_model_run(model, in, 2, out, 3);
  if (st) {
    r.error = kiln_status_message(st);
    kiln_status_free(st);
  } else {
    for (kiln_tensor_t o : out) {
      r.outputs.push_back(floats(o));
      kiln_tensor_release(o);
    }
  }
  kiln_tensor_release(in[0]);
  kiln_tensor_release(in[1]);
  return r;
}

kiln_model_t loadModel(const char *path) {
  kiln_model_t m = nullptr;
  kiln_status_t st = kiln_model_load(path, nullptr, &m);
  EXPECT_EQ(st, nullptr) << kiln_status_message(st);
  kiln_status_free(st);
  return m;
}

} // namespace

// One loaded model, 16 threads, each with its own batch sizes (a dynamic dim):
// every run gives exactly what the same run gives alone.
TEST(Concurrency, OneCompiledModelSixteenThreads) {
  kiln_model_t model = loadModel(KILN_FAKE_MODEL);
  ASSERT_NE(model, nullptr);
  constexpr int kRuns = 40;
  std::vector<std::vector<FakeRun>> serial(kThreads);
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRuns; ++r) {
      serial[t].push_back(runFake(model, 1 + (t * 3 + r) % 16, t * 100 + r));
      ASSERT_TRUE(serial[t].back().error.empty()) << serial[t].back().error;
    }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        FakeRun got = runFake(model, 1 + (t * 3 + r) % 16, t * 100 + r);
        if (!got.error.empty() || got.outputs != serial[t][r].outputs) ++mismatches;
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  kiln_model_free(model);
}

// Models loaded, run and freed over and over while another model runs.
TEST(Concurrency, ModelsLoadedAndFreedWhileOthersRun) {
  kiln_model_t steady = loadModel(KILN_FAKE_MODEL);
  ASSERT_NE(steady, nullptr);
  FakeRun want = runFake(steady, 5, 42);
  ASSERT_TRUE(want.error.empty()) << want.error;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, cycles{0};
  std::vector<std::thread> runners, loaders;
  for (int t = 0; t < 8; ++t)
    runners.emplace_back([&] {
      while (!stop.load()) {
        FakeRun got = runFake(steady, 5, 42);
        if (!got.error.empty() || got.outputs != want.outputs) ++failures;
      }
    });
  for (int t = 0; t < 8; ++t)
    loaders.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        kiln_model_t m = nullptr;
        const char *path = (t + i) % 2 ? KILN_FAKE_MODEL : KILN_FAKE_MODEL_DTYPES;
        kiln_status_t st = kiln_model_load(path, nullptr, &m);
        if (st) {
          ++failures;
          kiln_status_free(st);
          continue;
        }
        if (path == std::string(KILN_FAKE_MODEL)) {
          FakeRun got = runFake(m, 5, 42);
          if (!got.error.empty() || got.outputs != want.outputs) ++failures;
        }
        kiln_model_free(m);
        ++cycles;
      }
    });
  for (auto &th : loaders) th.join();
  stop = true;
  for (auto &th : runners) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cycles.load(), 8 * 25);
  kiln_model_free(steady);
}

// The eager interpreter (every op a dispatcher call) from 16 threads while a
// plugin is loaded and libraries register and drop kernels and fallbacks:
// registration is safe at any time, and never changes what runs.
TEST(Concurrency, RegistrationWhileOpsRun) {
  std::string dir = std::string(KILN_TEST_CORPUS) + "/mlp_dynamic";
  auto prog = kiln::eager::Program::load(dir + "/model.pt2");
  const kiln::eager::ValueSpec &spec = prog->inputs().at(0);
  auto input = [&](int64_t batch, int seed) {
    std::vector<int64_t> sizes = spec.sizes;
    sizes[0] = batch;
    kiln::Tensor x = kiln::Tensor::empty(sizes, kiln::DType::Float32);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = (float)((seed * 31 + i) % 17) / 8;
    return x;
  };
  auto bits = [](const kiln::Tensor &t) {
    kiln::Tensor c = t.contiguous();
    return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
  };
  std::vector<std::vector<float>> serial;
  for (int t = 0; t < kThreads; ++t)
    serial.push_back(bits(prog->run({input(1 + t, t)}).at(0)));

  std::atomic<bool> stop{false};
  std::atomic<int> mismatches{0}, errors{0}, runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      do {
        try {
          if (bits(prog->run({input(1 + t, t)}).at(0)) != serial[t]) ++mismatches;
        } catch (const std::exception &) {
          ++errors;
        }
        ++runs;
      } while (!stop.load());
    });
  std::string err;
  EXPECT_TRUE(kiln::loadPlugin(KILN_EXAMPLE_OPS, err)) << err;
  // Register until the threads have run a while (at least 50 rounds).
  for (int i = 0; i < 50 || runs.load() < kThreads * 20; ++i) {
    kiln::Library def(kiln::Library::DEF, "kiln_concurrency_" + std::to_string(i), std::nullopt,
                      __FILE__, __LINE__);
    def.def("twice(Tensor x) -> Tensor", [](const kiln::Tensor &x) { return x.clone(); });
    // A fallback rebuilds every op's dispatch table while the threads read them.
    kiln::Library meta(kiln::Library::IMPL, "_", kiln::DispatchKey::Meta, __FILE__, __LINE__);
    meta.fallback([](const kiln::OperatorHandle &, kiln::DispatchKeySet, kiln::Stack &) {});
  }
  stop = true;
  for (auto &th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}
