// kiln runtime — oneDNN loaded at first use, plan and weight caches, and running a plan on the caller's buffers.
//
// The runtime never links oneDNN (a 40 MB library that GPU deployments do
// not need): it is dlopen'ed at the first CPU library call. Plans (a
// primitive and the reorders around it) are cached per problem for the
// process's life; weights marked constant are reordered once into the
// primitive's blocked layout and kept until a model is unloaded. Each call
// runs on the calling thread's stream with its own scratchpad, so one model
// may run from many threads at once.
#include "Dnnl.h"
#include "Gemm.h"

#include "kiln/abi/cpu_calls.h"
#include "Library.h"
#include "Mkl.h"
#include "OpenMPTeam.h"
#include "Threads.h"
#include "Winograd.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <atomic>
#include <map>
#include <mutex>
#include <unordered_map>

namespace kiln::cpu {
namespace {

thread_local std::string tError;

/// A 64-byte aligned buffer that only grows.
struct Scratch {
  void *ptr = nullptr;
  size_t size = 0;
  void *get(size_t bytes) {
    if (bytes <= size) return ptr;
    std::free(ptr);
    size = (bytes + 63) / 64 * 64;
    ptr = std::aligned_alloc(64, size);
    if (!ptr) {
      size = 0;
      throw std::runtime_error("out of memory for a " + std::to_string(bytes) + "-byte oneDNN buffer");
    }
    return ptr;
  }
  ~Scratch() { std::free(ptr); }
};

/// omp_set_num_threads of the OpenMP runtime oneDNN runs on (null: oneDNN
/// is not an OpenMP build), and the count last set on the calling thread.
void (*gSetOmpThreads)(int) = nullptr;
thread_local int tOmpThreads = 0;

/// How long an OpenMP thread of oneDNN busy-waits for the next parallel
/// region before it sleeps, unless the user chose (OMP_WAIT_POLICY or
/// GOMP_SPINCOUNT); libgomp reads it once, when it loads, so it is set
/// before oneDNN is opened (docs/Rationale/cpu-threads.md). A model call
/// runs its generated loops on the same threads (OpenMPTeam.h), so a thread
/// that keeps spinning through the short gaps between a library call and
/// the loops around it saves a futex wake-up per call; on a machine whose
/// cores are all taken by other work, spinning threads lose the scheduler's
/// favour and wait behind the other processes, so there they sleep soon.
constexpr const char *kSpinWhenIdle = "100000";  // about 2 ms of pause instructions
constexpr const char *kSpinWhenBusy = "1000";    // about 20 us

/// Whether the OpenMP threads wait long between calls (an idle machine, or the
/// user's own wait policy): only then do kiln's loops run on them too; on a busy
/// machine they stay on oneTBB, whose threads sleep instead of spinning.
bool gLongSpin = true;

void configureOpenMP() {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  // Busy: the last minute's load average (runnable threads, ours included)
  // reaches the cores this process may use.
  double load[1] = {0};
  bool busy = ::getloadavg(load, 1) == 1 && load[0] >= availableCores();
  gLongSpin = !busy;
  ::setenv("GOMP_SPINCOUNT", busy ? kSpinWhenBusy : kSpinWhenIdle, 0);
}

std::mutex gPlansMutex;
std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> gPlans;

/// Weights reordered for a plan, per (plan, weight buffer).
std::mutex gWeightsMutex;
std::map<std::pair<const Plan *, const void *>, std::shared_ptr<Scratch>> gWeights;
/// Bumped by forgetWeights(): a thread's reference to a gWeights entry made
/// before is looked up again.
std::atomic<uint64_t> gWeightsGeneration{0};

/// A memory object bound to the buffer it was last given.
struct Bound {
  dnnl_memory_t memory = nullptr;
  const void *ptr = nullptr;
  Bound() = default;
  Bound(const Bound &) = delete;
  Bound &operator=(const Bound &) = delete;
  ~Bound() {
    if (memory) dnnl().memory_destroy(memory);
  }
  /// The memory object of `md` on `p`: made once, rebound when the buffer
  /// changes (a model's buffers are mostly the same run after run).
  dnnl_memory_t at(const dnnl_memory_desc_t &md, const void *p) {
    if (!memory) {
      check(dnnl().memory_create(&memory, &md, dnnl().engine, const_cast<void *>(p)), "dnnl_memory_create");
      ptr = p;
    } else if (p != ptr) {
      check(dnnl().memory_set_data_handle(memory, const_cast<void *>(p)), "dnnl_memory_set_data_handle");
      ptr = p;
    }
    return memory;
  }
};

/// What one thread keeps per plan between calls: a memory object for each
/// operand (making and destroying them per call cost as much as a small
/// primitive's work) and the plan's constant weights it used last.
struct PlanMemories {
  Bound userSrc, src, userWeights, weights, userDst, dst, scratchpad, bias, userBinary, binary;
  const void *weightsFor = nullptr;  ///< the user's weight buffer `kept` was reordered from
  uint64_t weightsGeneration = 0;
  std::shared_ptr<Scratch> kept;
};

struct KeyHash {
  size_t operator()(const std::vector<int64_t> &key) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : key) h = (h ^ (uint64_t)v) * 1099511628211ull;
    return (size_t)h;
  }
};

/// The calling thread's stream, temporary buffers, plans and memory objects.
struct ThreadState {
  dnnl_stream_t stream = nullptr;
  Scratch scratchpad, src, weights, dst, binary;
  std::unordered_map<std::vector<int64_t>, std::shared_ptr<const Plan>, KeyHash> plans;
  std::unordered_map<const Plan *, std::unique_ptr<PlanMemories>> memories;
};
thread_local ThreadState tState;

void run(dnnl_primitive_t p, std::initializer_list<dnnl_exec_arg_t> args, const char *what) {
  check(dnnl().primitive_execute(p, tState.stream, static_cast<int>(args.size()), args.begin()), what);
}

/// A reorder primitive from `from` to `to`, or null where they are equal.
dnnl_primitive_t reorder(const dnnl_memory_desc_t &from, const dnnl_memory_desc_t &to) {
  const DnnlApi &d = dnnl();
  if (d.memory_desc_equal(&from, &to)) return nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  check(d.reorder_primitive_desc_create(&pd, &from, d.engine, &to, d.engine, nullptr), "a oneDNN reorder");
  dnnl_primitive_t p = nullptr;
  dnnl_status_t s = d.primitive_create(&p, pd);
  d.primitive_desc_destroy(pd);
  check(s, "a oneDNN reorder");
  return p;
}

} // namespace

const DnnlApi &dnnl() {
  static DnnlApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    DnnlApi &a = api;
    std::string tried;
    void *lib = nullptr;
    // KILN_DNNL, when set, is the only library tried.
    const char *env = std::getenv("KILN_DNNL");
    configureOpenMP();
    bool given = env && *env;
    for (const char *name : {env, "libdnnl.so.2", "libdnnl.so"}) {
      if (!name || !*name || (given && name != env)) continue;
      if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      tried += std::string(tried.empty() ? "" : ", ") + name;
    }
    if (!lib) {
      a.error = "this model runs its convolutions and matrix products with oneDNN, but no oneDNN 2 library "
                "loads (tried " + tried + "; install oneDNN 2 (Debian: libdnnl2) or set KILN_DNNL to the path of libdnnl.so.2, "
                "or compile with --cpu-library=off)";
      return;
    }
#define KILN_DNNL_FN(name)                                                                          \
  if (!(a.name = reinterpret_cast<decltype(a.name)>(::dlsym(lib, "dnnl_" #name)))) {                \
    a.error = "the oneDNN library loaded lacks dnnl_" #name " (kiln needs oneDNN 2.x)";            \
    return;                                                                                        \
  }
    KILN_DNNL_FUNCTIONS(KILN_DNNL_FN)
#undef KILN_DNNL_FN
    // oneDNN's threads are OpenMP's: each call sets their count to the
    // model's (enterCall).
    gSetOmpThreads = reinterpret_cast<void (*)(int)>(::dlsym(lib, "omp_set_num_threads"));
    // ... and from now on kiln's parallel loops' too (OpenMPTeam.h), where
    // those threads wait long enough between calls to pay.
    if (gLongSpin)
      adoptOpenMP(lib);
    if (dnnl_status_t s = a.engine_create(&a.engine, dnnl_cpu, 0))
      a.error = "oneDNN has no CPU engine (status " + std::to_string(static_cast<int>(s)) + ")";
  });
  return api;
}

void check(dnnl_status_t s, const std::string &what) {
  if (s == dnnl_success) return;
  const char *text = s == dnnl_out_of_memory       ? "out of memory"
                     : s == dnnl_invalid_arguments ? "invalid arguments"
                     : s == dnnl_unimplemented     ? "not implemented for these shapes and strides"
                     : s == dnnl_runtime_error     ? "runtime error"
                                                   : "failed";
  throw std::runtime_error(what + ": oneDNN: " + text + " (status " + std::to_string(static_cast<int>(s)) + ")");
}

dnnl_memory_desc_t stridedDesc(const std::vector<int64_t> &dims, std::vector<int64_t> strides) {
  // A unit dim may carry any stride; give it the one an outermost dim would
  // have, so a packed NCHW or NHWC view is recognised as such.
  int64_t outer = 1;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1) outer = std::max(outer, strides[i] * dims[i]);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 1) strides[i] = outer;
  dnnl_memory_desc_t md;
  check(dnnl().memory_desc_init_by_strides(&md, static_cast<int>(dims.size()), dims.data(), dnnl_f32,
                                           strides.data()),
        "a oneDNN memory descriptor");
  return md;
}

dnnl_memory_desc_t anyDesc(const std::vector<int64_t> &dims) {
  dnnl_memory_desc_t md;
  check(dnnl().memory_desc_init_by_tag(&md, static_cast<int>(dims.size()), dims.data(), dnnl_f32,
                                       dnnl_format_tag_any),
        "a oneDNN memory descriptor");
  return md;
}

Plan::~Plan() {
  for (dnnl_primitive_t p : {prim, srcIn, weightsIn, dstIn, dstOut, binaryIn})
    if (p) dnnl().primitive_destroy(p);
}

std::shared_ptr<const Plan> cachedPlan(std::vector<int64_t> key,
                                       const std::function<std::unique_ptr<Plan>()> &make) {
  // A primitive splits its work for the thread count it was made with.
  key.push_back(tOmpThreads);
  // The thread's own map first (no lock: a model asks for the same plans
  // run after run), then the process's.
  auto &mine = tState.plans;
  auto it = mine.find(key);
  if (it != mine.end()) return it->second;
  std::shared_ptr<const Plan> plan;
  {
    std::lock_guard<std::mutex> lock(gPlansMutex);
    auto git = gPlans.find(key);
    if (git != gPlans.end()) {
      plan = git->second;
    } else {
      plan = make();
      gPlans.emplace(key, plan);
    }
  }
  mine.emplace(std::move(key), plan);
  return plan;
}

void enterCall() {
  // The model's thread count (its load option, KILN_NUM_THREADS, or the
  // cores available), set on the calling thread before its plan is looked
  // up: oneDNN sizes a primitive's work split by the count when it is made.
  int n = maxThreads();
  if (gSetOmpThreads && n != tOmpThreads) gSetOmpThreads(n);
  tOmpThreads = n;
}

bool isReference(dnnl_primitive_desc_t pd) {
  const char *impl = nullptr;
  if (dnnl().primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) != dnnl_success || !impl) return false;
  return std::strncmp(impl, "ref", 3) == 0;
}

dnnl_primitive_attr_t makeAttr(bool sum, int32_t activation, const dnnl_memory_desc_t *addend) {
  const DnnlApi &d = dnnl();
  dnnl_primitive_attr_t attr = nullptr;
  check(d.primitive_attr_create(&attr), "oneDNN attributes");
  check(d.primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user), "oneDNN attributes");
  activation &= KILN_CPU_RELU | KILN_CPU_HARDSWISH | KILN_CPU_SILU | KILN_CPU_SIGMOID;
  if (sum || activation || addend) {
    dnnl_post_ops_t ops = nullptr;
    check(d.post_ops_create(&ops), "oneDNN post-ops");
    if (sum) d.post_ops_append_sum(ops, 1.0f);
    if (addend) check(d.post_ops_append_binary(ops, dnnl_binary_add, addend), "oneDNN post-ops");
    // swish with alpha 1 is x * sigmoid(x) (SiLU); hardswish takes no parameters.
    if (activation)
      d.post_ops_append_eltwise(ops, 1.0f,
                                activation == KILN_CPU_RELU        ? dnnl_eltwise_relu
                                : activation == KILN_CPU_HARDSWISH ? dnnl_eltwise_hardswish
                                : activation == KILN_CPU_SILU      ? dnnl_eltwise_swish
                                                                   : dnnl_eltwise_logistic,
                                activation == KILN_CPU_SILU ? 1.0f : 0.0f, 0.0f);
    dnnl_status_t s = d.primitive_attr_set_post_ops(attr, ops);
    d.post_ops_destroy(ops);
    check(s, "oneDNN post-ops");
  }
  return attr;
}

void finishPlan(Plan &plan, dnnl_primitive_desc_t pd) {
  const DnnlApi &d = dnnl();
  struct Destroy {
    dnnl_primitive_desc_t pd;
    ~Destroy() { dnnl().primitive_desc_destroy(pd); }
  } destroy{pd};
  plan.src = *d.primitive_desc_query_md(pd, plan.srcQuery, 0);
  plan.weights = *d.primitive_desc_query_md(pd, plan.weightsQuery, 0);
  plan.dst = *d.primitive_desc_query_md(pd, plan.dstQuery, 0);
  if (plan.hasBias) plan.bias = *d.primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
  plan.scratchpad = d.memory_desc_get_size(d.primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
  int64_t scratchDims[1] = {static_cast<int64_t>(plan.scratchpad ? plan.scratchpad : 64)};
  check(d.memory_desc_init_by_tag(&plan.scratchpadMd, 1, scratchDims, dnnl_u8, dnnl_x), "a oneDNN scratchpad");
  plan.srcIn = reorder(plan.userSrc, plan.src);
  plan.weightsIn = reorder(plan.userWeights, plan.weights);
  plan.dstOut = reorder(plan.dst, plan.userDst);
  if (plan.binaryArg) plan.binaryIn = reorder(plan.userBinary, plan.binary);
  if (plan.dstOut) plan.dstIn = reorder(plan.userDst, plan.dst);
  check(d.primitive_create(&plan.prim, pd), "a oneDNN primitive");
}

void execute(const Plan &plan, const void *src, const void *weights, void *dst, const void *bias,
             bool constWeights, const void *binary) {
  const DnnlApi &d = dnnl();
  ThreadState &t = tState;
  if (!t.stream) check(d.stream_create(&t.stream, d.engine, dnnl_stream_default_flags), "a oneDNN stream");
  std::unique_ptr<PlanMemories> &slot = t.memories[&plan];
  if (!slot) slot = std::make_unique<PlanMemories>();
  PlanMemories &mem = *slot;
  // Source and destination in the primitive's layout.
  const void *s = src;
  if (plan.srcIn) {
    void *buf = t.src.get(d.memory_desc_get_size(&plan.src));
    run(plan.srcIn, {{DNNL_ARG_FROM, mem.userSrc.at(plan.userSrc, src)}, {DNNL_ARG_TO, mem.src.at(plan.src, buf)}},
        "reordering a oneDNN source");
    s = buf;
  }
  void *o = dst;
  if (plan.dstOut) {
    o = t.dst.get(d.memory_desc_get_size(&plan.dst));
    if (plan.dstIn)
      run(plan.dstIn, {{DNNL_ARG_FROM, mem.userDst.at(plan.userDst, dst)}, {DNNL_ARG_TO, mem.dst.at(plan.dst, o)}},
          "reordering a oneDNN destination");
  }
  // Weights: from the cache (this thread's reference to it while the
  // buffer and the cache's generation stay the same), or reordered for
  // this call.
  const void *w = weights;
  if (plan.weightsIn && constWeights) {
    uint64_t generation = gWeightsGeneration.load(std::memory_order_acquire);
    if (mem.weightsFor != weights || mem.weightsGeneration != generation || !mem.kept) {
      std::lock_guard<std::mutex> lock(gWeightsMutex);
      std::shared_ptr<Scratch> &cached = gWeights[{&plan, weights}];
      if (!cached) {
        auto buf = std::make_shared<Scratch>();
        void *p = buf->get(d.memory_desc_get_size(&plan.weights));
        run(plan.weightsIn,
            {{DNNL_ARG_FROM, mem.userWeights.at(plan.userWeights, weights)},
             {DNNL_ARG_TO, mem.weights.at(plan.weights, p)}},
            "reordering a oneDNN weight");
        check(d.stream_wait(t.stream), "reordering a oneDNN weight");
        cached = buf;
      }
      mem.kept = cached;
      mem.weightsFor = weights;
      mem.weightsGeneration = generation;
    }
    w = mem.kept->ptr;
  } else if (plan.weightsIn) {
    void *buf = t.weights.get(d.memory_desc_get_size(&plan.weights));
    run(plan.weightsIn,
        {{DNNL_ARG_FROM, mem.userWeights.at(plan.userWeights, weights)}, {DNNL_ARG_TO, mem.weights.at(plan.weights, buf)}},
        "reordering a oneDNN weight");
    w = buf;
  }
  // The added tensor in the destination's layout.
  const void *addend = binary;
  if (plan.binaryIn) {
    void *buf = t.binary.get(d.memory_desc_get_size(&plan.binary));
    run(plan.binaryIn,
        {{DNNL_ARG_FROM, mem.userBinary.at(plan.userBinary, binary)}, {DNNL_ARG_TO, mem.binary.at(plan.binary, buf)}},
        "reordering a oneDNN post-op operand");
    addend = buf;
  }
  void *scratch = t.scratchpad.get(plan.scratchpad ? plan.scratchpad : 64);
  // Where no reorder stands between, the primitive reads and writes the
  // user's buffer through the user's memory object (the descriptors are
  // equal then).
  dnnl_exec_arg_t args[6] = {
      {plan.srcArg, plan.srcIn ? mem.src.at(plan.src, s) : mem.userSrc.at(plan.src, s)},
      {plan.weightsArg, plan.weightsIn ? mem.weights.at(plan.weights, w) : mem.userWeights.at(plan.weights, w)},
      {plan.dstArg, plan.dstOut ? mem.dst.at(plan.dst, o) : mem.userDst.at(plan.dst, o)},
      {DNNL_ARG_SCRATCHPAD, mem.scratchpad.at(plan.scratchpadMd, scratch)}};
  int nargs = 4;
  if (plan.hasBias) args[nargs++] = {DNNL_ARG_BIAS, mem.bias.at(plan.bias, bias)};
  if (plan.binaryArg)
    args[nargs++] = {plan.binaryArg, plan.binaryIn ? mem.binary.at(plan.binary, addend)
                                                   : mem.userBinary.at(plan.binary, addend)};
  check(d.primitive_execute(plan.prim, t.stream, nargs, args), "a oneDNN primitive");
  if (plan.dstOut)
    run(plan.dstOut, {{DNNL_ARG_FROM, mem.dst.at(plan.dst, o)}, {DNNL_ARG_TO, mem.userDst.at(plan.userDst, dst)}},
        "reordering a oneDNN destination");
  check(d.stream_wait(t.stream), "a oneDNN primitive");
}

void fail(const std::string &message) {
  if (tError.empty()) tError = message;
}

void clearError() { tError.clear(); }

std::string takeError() {
  std::string e;
  e.swap(tError);
  return e;
}

void forgetWeights() {
  std::lock_guard<std::mutex> lock(gWeightsMutex);
  gWeights.clear();
  // Threads drop their references at their next call of each plan.
  gWeightsGeneration.fetch_add(1, std::memory_order_release);
  forgetMklWeights();
  forgetGemmWeights();
  forgetWinogradWeights();
}

} // namespace kiln::cpu
