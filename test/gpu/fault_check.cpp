// kiln-gpu-fault-check — one CUDA model shared by two host threads, and running out of GPU memory, through the C ABI.
//
// usage: kiln-gpu-fault-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--rtol R] [--atol A] [--random K]
//                             [--weights F.pt2] [--plugin LIB.so]... [--only threads|oom|launch]
//
// 1. threads: K random inputs (the samples' shapes) run one at a time give the
//    reference results; then two host threads share the one loaded model, each
//    running every input three times in its own order, with CUDA graphs: every
//    result must be identical to the reference (same kernels on each thread's
//    stream, no buffer shared between the threads' runs).
// 2. oom: a second load of the model, the allocator's cache emptied, and the
//    GPU's free memory taken by this program through the driver: a run must
//    fail with an error status naming GPU memory (never abort or hang); once
//    the memory is given back, the same model runs again and matches
//    EXPECTED (PyTorch's), and so does the first model: the process stays usable.
// 3. launch (only with --only launch and KILN_FAULT_LAUNCH=N, which makes the
//    N-th kernel launch of the process fail): that run is an error status
//    naming the launch; the next runs succeed and match EXPECTED.
// Run it under compute-sanitizer (memcheck, racecheck) for the checks on the GPU side.
// Prints one line per check; exits 1 if any fails, 2 on bad usage or no GPU.
#include "CheckUtil.h"
#include "kiln/cuda.h"

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace kiln::gpucheck;

namespace {

/// The few driver entry points the memory grab needs, from libcuda itself
/// (the checker links no CUDA library, like the runtime).
struct Driver {
  int (*devicePrimaryCtxRetain)(void **, int) = nullptr;
  int (*ctxSetCurrent)(void *) = nullptr;
  int (*memAlloc)(unsigned long long *, size_t) = nullptr;
  int (*memFree)(unsigned long long) = nullptr;
  Driver() {
    void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) die(2, "cannot load libcuda.so.1");
    devicePrimaryCtxRetain = reinterpret_cast<decltype(devicePrimaryCtxRetain)>(::dlsym(lib, "cuDevicePrimaryCtxRetain"));
    ctxSetCurrent = reinterpret_cast<decltype(ctxSetCurrent)>(::dlsym(lib, "cuCtxSetCurrent"));
    memAlloc = reinterpret_cast<decltype(memAlloc)>(::dlsym(lib, "cuMemAlloc_v2"));
    memFree = reinterpret_cast<decltype(memFree)>(::dlsym(lib, "cuMemFree_v2"));
    if (!devicePrimaryCtxRetain || !ctxSetCurrent || !memAlloc || !memFree) die(2, "libcuda.so.1 lacks a symbol");
    void *ctx = nullptr;
    if (devicePrimaryCtxRetain(&ctx, 0) || ctxSetCurrent(ctx)) die(2, "cannot make device 0's context current");
  }
};

/// Takes the GPU's free memory: blocks from 1 GiB down to 256 bytes, each
/// size until the driver refuses it.
std::vector<unsigned long long> grabAll(Driver &d, size_t &taken) {
  std::vector<unsigned long long> blocks;
  taken = 0;
  for (size_t size = size_t(1) << 30; size >= 256; size /= 2) {
    unsigned long long p = 0;
    while (d.memAlloc(&p, size) == 0) {
      blocks.push_back(p);
      taken += size;
    }
  }
  return blocks;
}

std::vector<std::vector<kiln_tensor_t>> randomInputs(const Case &c, int k) {
  std::mt19937_64 rng(4321);
  std::vector<std::vector<kiln_tensor_t>> all(k);
  for (auto &in : all)
    for (const kiln::Tensor &s : c.samples) in.push_back(wrap(randomLike(s, rng)));
  return all;
}

void checkThreads(const Case &c, Report &report) {
  int k = std::max(c.randoms, 2);
  auto inputs = randomInputs(c, k);
  std::vector<Outputs> reference;
  for (auto &in : inputs) reference.push_back(run(c.m, in, true));
  constexpr int kThreads = 2, kRounds = 3;
  std::vector<int> mismatches(kThreads, 0), errors(kThreads, 0);
  std::vector<std::string> firstError(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r)
        for (int i = 0; i < k; ++i) {
          int which = t % 2 ? k - 1 - i : i; // the threads walk the inputs in opposite orders
          Outputs got;
          kiln_status_t s = tryRun(c.m, inputs[which], true, got);
          if (s) {
            if (!errors[t]++) firstError[t] = kiln_status_message(s);
            kiln_status_free(s);
            continue;
          }
          mismatches[t] += got != reference[which];
        }
    });
  for (auto &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    report(!mismatches[t] && !errors[t],
           "thread " + std::to_string(t) + " of " + std::to_string(kThreads) + " sharing the model, " +
               std::to_string(kRounds * k) + " runs: " + std::to_string(mismatches[t]) +
               " differ from the runs made one at a time, " + std::to_string(errors[t]) + " failed" +
               (errors[t] ? " (" + firstError[t] + ")" : ""));
  for (auto &in : inputs)
    for (kiln_tensor_t h : in) kiln_tensor_release(h);
}

void checkOutOfMemory(const Case &c, Report &report) {
  Driver d;
  kiln_model_t fresh = c.load();
  kiln::cuda::emptyCache();
  size_t taken = 0;
  std::vector<unsigned long long> blocks = grabAll(d, taken);
  Outputs got;
  kiln_status_t s = tryRun(fresh, c.in, true, got);
  std::string msg = s ? kiln_status_message(s) : "";
  kiln_status_code_t code = kiln_status_code(s);
  kiln_status_free(s);
  bool namesMemory = msg.find("memory") != std::string::npos;
  report(s && namesMemory && code == KILN_STATUS_RESOURCE_EXHAUSTED,
         "with " + std::to_string(taken >> 20) + " MiB of the GPU taken, a run fails with status " +
             std::to_string((int)code) + (s ? ": " + msg : " (it SUCCEEDED)"));
  for (unsigned long long p : blocks) d.memFree(p);
  for (bool graphs : {true, false}) {
    double w = INFINITY;
    kiln_status_t again = tryRun(fresh, c.in, graphs, got);
    if (!again) w = c.worstAgainstExpected(got);
    report(!again && w <= 1, std::string("memory given back, the same model runs again") +
                                 (graphs ? " with graphs" : " kernel by kernel") + ": " +
                                 (again ? kiln_status_message(again) : "worst error " + std::to_string(w) +
                                                                            " of the tolerance"));
    kiln_status_free(again);
  }
  kiln_model_free(fresh);
  double w = c.worstAgainstExpected(run(c.m, c.in, true));
  report(w <= 1, "the first model still runs: worst error " + std::to_string(w) + " of the tolerance");
}

/// With KILN_FAULT_LAUNCH=N set (one of the first run's launches fails): the
/// failing run is an error status naming the launch, and the next runs of the
/// same model succeed and match EXPECTED.
void checkLaunchFailure(const Case &c, Report &report) {
  Outputs got;
  kiln_status_t s = tryRun(c.m, c.in, false, got);
  std::string msg = s ? kiln_status_message(s) : "";
  kiln_status_code_t code = kiln_status_code(s);
  kiln_status_free(s);
  report(s && code == KILN_STATUS_DEVICE_ERROR && msg.find("KILN_FAULT_LAUNCH") != std::string::npos,
         "a kernel launch that fails: status " + std::to_string((int)code) + (s ? ": " + msg : " (it SUCCEEDED)"));
  for (bool graphs : {false, true}) {
    double w = INFINITY;
    kiln_status_t again = tryRun(c.m, c.in, graphs, got);
    if (!again) w = c.worstAgainstExpected(got);
    report(!again && w <= 1, std::string("the next run") + (graphs ? " with graphs" : " kernel by kernel") + ": " +
                                 (again ? kiln_status_message(again) : "worst error " + std::to_string(w) +
                                                                            " of the tolerance"));
    kiln_status_free(again);
  }
}

} // namespace

int main(int argc, char **argv) {
  programName() = "kiln-gpu-fault-check";
  std::string only;
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else args.push_back(argv[i]);
  }
  Case c((int)args.size(), args.data(),
         "kiln-gpu-fault-check MODEL.so INPUT.npy... -- EXPECTED.npy... [--random K] [--only threads|oom|launch]");
  Report report;
  if (only.empty() || only == "threads") checkThreads(c, report);
  if (only.empty() || only == "oom") checkOutOfMemory(c, report);
  if (only == "launch") checkLaunchFailure(c, report);
  return report.failures ? 1 : 0;
}
