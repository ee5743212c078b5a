// kiln-gpu-graph-check — a GPU model's CUDA graph replays compute what its kernels compute.
//
// usage: kiln-gpu-graph-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--rtol R] [--atol A] [--random K]
//                             [--weights F.pt2] [--plugin LIB.so]...
//
// 1. The sample inputs, three runs with CUDA graphs (the first captures, the
//    others replay): each run's outputs against EXPECTED (PyTorch's).
// 2. K fresh random inputs (normal, the samples' shapes; integer inputs are
//    the sample's values shuffled), each run with graphs (a replay) and without: the
//    outputs must be identical (same kernels, same order), and must differ
//    from the previous input's (the replay really reads the new inputs).
// 3. A replay on a caller's stream with inputs and outputs on the GPU.
// Prints one line per check; exits 1 if any fails, 2 on bad usage or no GPU.
#include "CheckUtil.h"
#include "kiln/cuda.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace kiln::gpucheck;

int main(int argc, char **argv) {
  programName() = "kiln-gpu-graph-check";
  Case c(argc, argv,
         "kiln-gpu-graph-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--rtol R] [--atol A] [--random K]");
  kiln_model_t m = c.m;
  const std::vector<kiln::Tensor> &samples = c.samples;
  const std::vector<kiln_tensor_t> &in = c.in;
  const Outputs &want = c.want;
  double rtol = c.rtol, atol = c.atol;
  int randoms = c.randoms;
  Report report;

  for (int r = 0; r < 3; ++r) {
    Outputs got = run(m, in, true);
    for (size_t k = 0; k < got.size() && k < want.size(); ++k) {
      double w = worst(got[k], want[k], rtol, atol);
      report(w <= 1, "run " + std::to_string(r) + (r ? " (replay)" : " (capture)") + " output " + std::to_string(k) +
                         " vs expected: worst error " + std::to_string(w) + " of the tolerance");
    }
  }

  std::mt19937_64 rng(1234);
  Outputs previous = run(m, in, false);
  for (int r = 0; r < randoms; ++r) {
    std::vector<kiln_tensor_t> rin;
    for (const kiln::Tensor &s : samples) {
      kiln::Tensor t = randomLike(s, rng);
      rin.push_back(wrap(t));
    }
    Outputs replay = run(m, rin, true), plain = run(m, rin, false);
    for (size_t k = 0; k < plain.size(); ++k) {
      bool same = replay[k] == plain[k];
      bool changed = plain[k] != previous[k];
      report(same && changed, "random " + std::to_string(r) + " output " + std::to_string(k) +
                                  ": replay " + (same ? "identical to" : "DIFFERS from") +
                                  " kernel-by-kernel run" + (changed ? "" : ", but UNCHANGED from the previous input"));
    }
    previous = plain;
    for (kiln_tensor_t t : rin) kiln_tensor_release(t);
  }

  // A caller's stream, inputs and outputs on the GPU.
  void *stream = kiln::cuda::createStream();
  std::vector<kiln_tensor_t> din;
  for (kiln_tensor_t t : in) {
    kiln_tensor_t d = nullptr;
    check(kiln_tensor_copy_to(t, KILN_DEVICE_CUDA, stream, &d), "copying an input to the GPU");
    din.push_back(d);
  }
  kiln_run_options_t o;
  kiln_run_options_init(&o);
  o.stream = stream;
  o.output_device = KILN_DEVICE_CUDA;
  std::vector<kiln_tensor_t> dout(kiln_model_num_outputs(m), nullptr);
  check(kiln_model_run_with_options(m, &o, din.data(), din.size(), dout.data(), dout.size()),
        "running on a caller's stream");
  for (size_t k = 0; k < dout.size(); ++k) {
    bool onGPU = kiln_tensor_device(dout[k]) == KILN_DEVICE_CUDA;
    kiln_tensor_t h = nullptr;
    check(kiln_tensor_copy_to(dout[k], KILN_DEVICE_CPU, stream, &h), "copying an output back");
    double w = k < want.size() ? worst(values(h), want[k], rtol, atol) : INFINITY;
    report(onGPU && w <= 1, "caller's stream output " + std::to_string(k) + (onGPU ? " on the GPU" : " NOT on the GPU") +
                                ": worst error " + std::to_string(w) + " of the tolerance");
    kiln_tensor_release(h);
    kiln_tensor_release(dout[k]);
  }
  for (kiln_tensor_t t : din) kiln_tensor_release(t);
  kiln::cuda::destroyStream(stream);
  kiln::cuda::MemoryStats st = kiln::cuda::memoryStats();
  std::printf("allocator: %zu bytes in use, %zu cached, %zu driver allocations\n", st.inUseBytes, st.cachedBytes,
              st.driverAllocations);
  return report.failures ? 1 : 0;
}
