// kiln-run — the logic behind the kiln-run tool: options, running a model, comparing outputs.
#ifndef KILN_TOOLS_KILNRUN_H
#define KILN_TOOLS_KILNRUN_H

#include "kiln/tensor.h"

#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::run {

/// kiln-run's exit codes.
enum ExitCode : int {
  kExitOk = 0,        ///< ran; every --expect matched
  kExitMismatch = 1,  ///< an output differs from its --expect file
  kExitUsage = 2,     ///< bad usage or bad input (files, count, dtype, shape, range)
  kExitFailure = 3,   ///< the model failed while running, or an internal error
};

/// An error with the exit code it maps to.
class RunError : public std::runtime_error {
public:
  RunError(int exitCode, const std::string &message)
      : std::runtime_error(message), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

private:
  int exitCode_;
};

struct Options {
  std::string model;
  std::vector<std::string> inputs, expects, plugins;
  std::vector<std::string> cotangents;  ///< --cotangent: inputs after --input (a --grad model)
  std::vector<std::string> tangents;    ///< --tangent: inputs after --input (a --jvp model)
  std::string residuals;                ///< --residuals DIR: a --split=backward model's residuals
  std::string expectGrads;              ///< --expect-grads DIR
  std::string expectParams;             ///< --expect-params DIR
  bool gradcheck = false;               ///< --gradcheck: gradients vs central differences
  double gradLo = -1.0, gradHi = 1.0;   ///< --gradcheck-range LO,HI of the random inputs
  std::string outputDir, weights;
  std::string device;  ///< --device: "cpu", "cuda", or empty for the model's own
  bool cudaGraphs = true;  ///< off with --no-cuda-graphs
  double rtol = 1e-4, atol = 1e-5;
  bool rtolGiven = false, atolGiven = false;  ///< --rtol/--atol on the command line
  bool torchTolerances = false;               ///< --torch-tolerances
  long runs = 1;   ///< --runs: how many times to run before comparing
  long bench = 0;
  int64_t seed = -1;  ///< --seed: the random ops' seed; -1: the runtime's default (KILN_SEED)
  int threads = 0;  ///< --threads: a compiled CPU model's thread count; 0: the runtime's default
  bool help = false;
  bool version = false;
};

/// Parses the command line (argv[0] is the program). Throws RunError(kExitUsage).
Options parseArgs(const std::vector<std::string> &args);
/// The --help text.
std::string usage();

/// Something kiln-run can execute: a compiled model .so (through the C ABI) or
/// a .pt2 program run eagerly, op by op, through the dispatcher.
class Executable {
public:
  virtual ~Executable() = default;
  virtual size_t numInputs() const = 0;
  virtual size_t numOutputs() const = 0;
  /// "input 0 (\"x\"): f32 [s0, 4]"-style description for messages.
  virtual std::string inputName(size_t i) const = 0;
  virtual std::string outputName(size_t i) const = 0;
  virtual DType inputDType(size_t i) const = 0;
  /// The output's name in the model ("grads/l1.weight"); empty if it has none.
  virtual std::string outputLabel(size_t i) const { return ""; }
  virtual std::string inputLabel(size_t i) const { return ""; }
  /// The current value of the weight `name`; false if there is none.
  virtual bool readParam(const std::string &name, Tensor &out) const { return false; }
  /// The weights a run writes (a --train-step model's parameters and optimizer
  /// state, buffers such as batch-norm statistics), by state-dict name.
  virtual std::vector<std::string> mutatedParams() const { return {}; }
  /// Static dims of an input / output (-1 for a dynamic dim); empty if unknown.
  virtual std::vector<int64_t> inputDims(size_t i) const { return {}; }
  virtual std::vector<int64_t> outputDims(size_t i) const { return {}; }
  virtual DType outputDType(size_t i) const { return DType::Float32; }
  /// Throws RunError with the exit code the failure maps to.
  virtual std::vector<Tensor> run(const std::vector<Tensor> &inputs) = 0;
  /// Times `n` runs after `warmup` untimed ones; milliseconds per run. The
  /// default times run() with the host clock; a GPU model keeps its inputs
  /// and outputs on the GPU and times each run with device events.
  virtual std::vector<double> timeRuns(const std::vector<Tensor> &inputs, long warmup, long n);
  /// How timeRuns measures ("host clock", "CUDA events on ...").
  virtual std::string timing() const { return "host clock"; }
  /// The host-clock timeRuns also measures the process's CPU time over the
  /// timed runs (all its threads, spinning ones included), per run, in ms:
  /// on a loaded machine the figure that other processes inflate least.
  /// Negative when not measured.
  double cpuMsPerRun = -1;
};

/// Opens options.model according to its kind: a name ending in .pt2 runs
/// eagerly (kiln::eager::Program), anything else loads as a compiled model.
/// Throws RunError.
std::unique_ptr<Executable> openExecutable(const Options &options);

/// Result of comparing one output against an expected tensor.
struct Comparison {
  bool match = false;
  std::string detail;  ///< one line: errors, and the first failing element if any
};
/// Floating-point outputs: |a - b| <= atol + rtol * |b| elementwise, NaN matches
/// NaN, an infinity only the same infinity. Integer and bool outputs: exact
/// equality (the tolerances do not apply). Shape or dtype differences are
/// mismatches (a bf16 output may be compared with f32 data).
Comparison compareTensors(const Tensor &actual, const Tensor &expected, double rtol, double atol);

/// A relative and absolute tolerance.
struct Tolerance {
  double rtol, atol;
};
/// torch.testing.assert_close's default tolerance for a dtype ({0, 0} for
/// integers and bool, which compare exactly).
Tolerance torchTolerance(DType t);

/// The whole tool: returns the exit code; never throws.
int runMain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace kiln::run

#endif // KILN_TOOLS_KILNRUN_H
