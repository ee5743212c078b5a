// kiln-run — the command line: --help text and option parsing.
#include "KilnRunInternal.h"

#include "kiln/kiln.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace kiln::run {

std::string usage() {
  return R"(usage: kiln-run MODEL.so [--input F.npy]... [--cotangent F.npy|--tangent F.npy]...
                [--residuals DIR]
                [--output-dir DIR] [--expect F.npy]... [--expect-grads DIR] [--expect-params DIR]
                [--gradcheck [--gradcheck-range LO,HI]]
                [--rtol R] [--atol A] [--torch-tolerances] [--runs N] [--bench N]
                [--weights F.pt2] [--plugin LIB.so]... [--device cpu|cuda|hip]
                [--no-cuda-graphs] [--threads N] [--seed S]
       kiln-run MODEL.pt2 [same options but --weights, --device, --threads and --seed]
       kiln-run --batch FILE

Runs a compiled kiln model on .npy inputs. A .pt2 archive runs eagerly instead:
op by op through the runtime's dispatcher, the reference to compare a compiled
model with when bisecting numerical problems.
  --batch FILE       run many models in one process (a GPU's context is set up
                     once): each line of FILE is one run's arguments, the model
                     then its options, separated by tabs; each run's output is
                     framed by "kiln-run batch: begin N", "kiln-run batch:
                     stderr N" (its stderr follows) and "kiln-run batch: end N
                     exit E"; the batch stops after a run that fails while
                     running (exit 3), with that exit code
  --input F.npy      one per model input, in order
  --cotangent F.npy  a model compiled with kiln-compile --grad: one per model
                     output, the seeds of its backward pass (passed after the
                     --input tensors)
  --residuals DIR    a model compiled with kiln-compile --grad --split=backward:
                     its residual inputs are read from the forward half's
                     --output-dir DIR (residuals/<i>.npy, output<k>.npy) and
                     the --input files (the forward's inputs, which it reads
                     as they are); pass the --cotangent files after them
  --tangent F.npy    a model compiled with kiln-compile --jvp: one per
                     floating-point model input, the direction of the
                     Jacobian-vector product (passed after the --input tensors)
  --output-dir DIR   write output{i}.npy there (created if needed); the
                     gradients of a --grad model go to DIR/grads/<name>.npy
                     (input{i}.npy, <parameter name>.npy), the tangents of a
                     --jvp model to DIR/tangents/output{i}.npy, the residuals
                     of a --grad --split=forward model to DIR/residuals/<i>.npy,
                     and the weights
                     the runs updated (a --train-step model's trained
                     parameters and optimizer state, batch-norm statistics)
                     to DIR/params/<name>.npy
  --expect-params DIR  after the runs, compare every weight the model holds
                     with DIR/<name>.npy, for each .npy in DIR (the parameters
                     a --train-step model has trained)
  --gradcheck        a --grad model whose inputs are all user inputs: run it on
                     seeded random inputs and cotangents and compare each
                     gradient grads/input<i> with central differences of
                     sum(output * cotangent); a --jvp model: each tangent
                     with central differences along the tangents (step 1e-6,
                     atol 1e-5, rtol 1e-3; meant for f64 programs)
  --gradcheck-range LO,HI  the random inputs' range (default -1,1)
  --expect-grads DIR a --grad model: compare every gradient with DIR/<name>.npy
                     (a corpus grads/ folder; its cotangent{i}.npy are seeds,
                     and every other .npy there must be a gradient of the model)
  --expect F.npy     one per model output, in order: compare, printing the max
                     absolute and relative error; an element matches when
                     |actual - expected| <= atol + rtol * |expected| (NaN == NaN)
                     for floating-point outputs; integer and bool outputs
                     must match exactly. bf16 values are read from and
                     written to f32 files (NumPy has no bfloat16)
  --rtol R           relative tolerance (default 1e-4)
  --atol A           absolute tolerance (default 1e-5)
  --torch-tolerances per output dtype, torch.testing.assert_close's defaults
                     (f64 1e-7/1e-7, f32 1.3e-6/1e-5, f16 1e-3/1e-5,
                     bf16 1.6e-2/1e-5 as rtol/atol); --rtol/--atol override
  --runs N           run N times on the same input tensors (default 1), so
                     state the model mutates (buffers, inputs) carries over;
                     --output-dir and --expect see the last run's outputs
  --bench N          after a warm-up, time N runs; print min/median/p90 in ms
                     (and, on the host clock, the CPU time a run)
                     (a GPU model: inputs and outputs stay on the GPU and each
                     run is timed with CUDA or HIP events)
  --device D         where the model must run: cpu, cuda (a model compiled
                     with --target=cuda) or hip (a model compiled with
                     --target=rocm, on an AMD GPU); inputs are copied to the
                     GPU and the outputs back. Default: where the model was
                     compiled for
  --no-cuda-graphs   launch a GPU model's kernels one by one on every run
                     (default: a model with static shapes replays a CUDA
                     graph of them after its first run)
  --threads N        a compiled CPU model's calls run on N threads (1 to 1024;
                     default: KILN_NUM_THREADS if set, else the cores this
                     process may run on)
  --seed S           the seed of a model's random ops (dropout, rand, randn,
                     randint, bernoulli; 0 to 2^63-1; default: KILN_SEED if
                     set, else PyTorch's default seed); each run (--runs,
                     --bench) draws new numbers
  --weights F.pt2    read external weights from this archive (.so only)
  --plugin LIB.so    load a plugin (custom op kernels) first; repeatable
  --version          print kiln's version and the runtime's C ABI version
  --help             this text
Exit codes: 0 success, 1 an output differs from --expect, 2 bad usage or input
(missing file, wrong count, dtype, rank, shape, dynamic dim out of range) or a
GPU problem (no GPU or driver, wrong architecture, out of GPU memory, a failed
launch), 3 the model failed while running.
)";
}

void usageError(const std::string &msg) { throw RunError(kExitUsage, msg); }

namespace {

double parseNumber(const std::string &flag, const std::string &v) {
  char *end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || errno || !std::isfinite(d) || d < 0)
    usageError(flag + " expects a non-negative number, got '" + v + "'");
  return d;
}

} // namespace

Options parseArgs(const std::vector<std::string> &args) {
  Options o;
  bool haveModel = false;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool inlineValue = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        inlineValue = true;
      }
    }
    auto next = [&]() -> std::string {
      if (inlineValue) return value;
      if (i + 1 >= args.size()) usageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") o.help = true;
    else if (a == "--version") o.version = true;
    else if (a == "--input") o.inputs.push_back(next());
    else if (a == "--expect") o.expects.push_back(next());
    else if (a == "--cotangent") o.cotangents.push_back(next());
    else if (a == "--tangent") o.tangents.push_back(next());
    else if (a == "--residuals") o.residuals = next();
    else if (a == "--expect-grads") o.expectGrads = next();
    else if (a == "--expect-params") o.expectParams = next();
    else if (a == "--gradcheck") o.gradcheck = true;
    else if (a == "--gradcheck-range") {
      std::string v = next();
      size_t comma = v.find(',');
      char *e1 = nullptr, *e2 = nullptr;
      std::string lo = v.substr(0, comma), hi = comma == std::string::npos ? "" : v.substr(comma + 1);
      o.gradLo = std::strtod(lo.c_str(), &e1);
      o.gradHi = std::strtod(hi.c_str(), &e2);
      if (comma == std::string::npos || lo.empty() || hi.empty() || *e1 || *e2 || !(o.gradLo < o.gradHi))
        usageError("--gradcheck-range expects LO,HI with LO < HI, got '" + v + "'");
    }
    else if (a == "--plugin") o.plugins.push_back(next());
    else if (a == "--output-dir") o.outputDir = next();
    else if (a == "--weights") o.weights = next();
    else if (a == "--rtol") { o.rtol = parseNumber(a, next()); o.rtolGiven = true; }
    else if (a == "--atol") { o.atol = parseNumber(a, next()); o.atolGiven = true; }
    else if (a == "--torch-tolerances") o.torchTolerances = true;
    else if (a == "--no-cuda-graphs") o.cudaGraphs = false;
    else if (a == "--device") {
      o.device = next();
      if (o.device != "cpu" && o.device != "cuda" && o.device != "hip")
        usageError("--device expects cpu, cuda or hip, got '" + o.device + "'");
    }
    else if (a == "--runs") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || n > 1000000)
        usageError("--runs expects a positive integer, got '" + v + "'");
      o.runs = n;
    }
    else if (a == "--threads") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || !std::isdigit((unsigned char)v[0]) || *end || n < 1 || n > KILN_MAX_NUM_THREADS)
        usageError("--threads expects a thread count from 1 to " + std::to_string(KILN_MAX_NUM_THREADS) +
                   ", got '" + v + "'");
      o.threads = (int)n;
    }
    else if (a == "--seed") {
      std::string v = next();
      char *end = nullptr;
      errno = 0;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || !std::isdigit((unsigned char)v[0]) || *end || errno)
        usageError("--seed expects a seed from 0 to 2^63-1, got '" + v + "'");
      o.seed = (int64_t)n;
    }
    else if (a == "--bench") {
      std::string v = next();
      char *end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || n > 100000000)
        usageError("--bench expects a positive integer, got '" + v + "'");
      o.bench = n;
    } else if (a.size() > 1 && a[0] == '-') {
      usageError("unknown option '" + args[i] + "' (see --help)");
    } else {
      if (haveModel) usageError("more than one model given ('" + o.model + "' and '" + a + "')");
      o.model = a;
      haveModel = true;
    }
  }
  if (!o.help && !o.version && !haveModel) usageError("no model given (see --help)");
  return o;
}

} // namespace kiln::run
