// kiln-run — the tool: run a model on .npy inputs, compare, benchmark (runMain).
#include "KilnRunInternal.h"
#include "kiln/abi/io_names.h"

#include "kiln/gpu.h"
#include "kiln/dispatcher.h"
#include "kiln/eager.h"
#include "kiln/kiln.h"
#include "kiln/npy.h"


#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <iomanip>
#include <ostream>
#include <sstream>


namespace kiln::run {

namespace {

/// The .npy files of an --expect-grads / --expect-params folder, sorted.
std::vector<std::string> npyFilesIn(const std::string &dir, const std::string &flag) {
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".npy") files.push_back(entry.path().filename().string());
  if (ec) usageError("cannot read " + flag + " '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

/// Compares `actual` with the .npy file at `path` and prints one line,
/// "<label> vs '<path>': <detail>: OK|MISMATCH"; whether they match.
bool compareWithFile(std::ostream &out, const std::string &label, const Tensor &actual,
                     const std::string &path, const std::string &flag, double rtol, double atol) {
  Tensor expected;
  try {
    expected = readNpy(path);
  } catch (const NpyError &e) {
    usageError(flag + " " + e.what());
  }
  Comparison c = compareTensors(actual, expected, rtol, atol);
  out << label << " vs '" << path << "': " << c.detail << ": " << (c.match ? "OK" : "MISMATCH") << "\n";
  return c.match;
}

int runChecked(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  Options o = parseArgs(args);
  if (o.version) {
    uint32_t abi = kiln_abi_version();
    out << "kiln-run " KILN_VERSION_STRING " (runtime C ABI " << (abi >> 16) << "." << (abi & 0xffff) << ")\n";
    return kExitOk;
  }
  if (o.help) {
    out << usage();
    return kExitOk;
  }
  std::unique_ptr<Executable> exe = openExecutable(o);
  // A --grad model's gradients are the outputs named grads/<name>; its
  // cotangents are its last inputs, one per other output.
  // A --jvp model's tangents are the outputs named tangents/<name>, and the
  // --jacobian/--hessian/--hvp results are named jacobian/, hessian/, hvp/.
  std::vector<bool> isGrad(exe->numOutputs());
  size_t numGrads = 0;
  for (size_t i = 0; i < exe->numOutputs(); ++i) {
    std::string label = exe->outputLabel(i);
    for (const char *prefix : {KILN_GRADS_PREFIX, KILN_TANGENTS_PREFIX, KILN_JACOBIAN_PREFIX,
                               KILN_HESSIAN_PREFIX, KILN_HVP_PREFIX, KILN_RESIDUALS_PREFIX})
      isGrad[i] = isGrad[i] || label.rfind(prefix, 0) == 0;
    numGrads += isGrad[i];
  }
  if (o.gradcheck) {
    if (!numGrads)
      usageError("'" + o.model + "' has no gradient outputs: --gradcheck needs a model compiled with "
                 "kiln-compile --grad or --jvp");
    return gradcheck(*exe, o, isGrad, out);
  }
  if (!o.expectGrads.empty() && !numGrads)
    usageError("'" + o.model + "' has no gradient outputs: --expect-grads needs a model compiled "
               "with kiln-compile --grad");
  if (!o.residuals.empty()) {
    // A --grad --split=backward model: its residual inputs come from the
    // forward half's --output-dir (residuals/<i>.npy, output<k>.npy) and
    // from the forward's own inputs (the --input files, in order).
    std::vector<std::string> forwardInputs = std::move(o.inputs);
    o.inputs.clear();
    const std::string inPrefix = KILN_RESIDUALS_INPUT_PREFIX, outPrefix = KILN_RESIDUALS_OUTPUT_PREFIX;
    for (size_t i = 0; i < exe->numInputs(); ++i) {
      std::string label = exe->inputLabel(i);
      if (label.rfind(KILN_RESIDUALS_PREFIX, 0) != 0)
        continue;
      std::filesystem::path dir(o.residuals);
      if (label.rfind(inPrefix, 0) == 0) {
        size_t k = std::stoul(label.substr(inPrefix.size()));
        if (k >= forwardInputs.size())
          usageError("'" + o.model + "' reads the forward's input " + std::to_string(k) + " ('" + label +
                     "'), but only " + std::to_string(forwardInputs.size()) + " --input were given");
        o.inputs.push_back(forwardInputs[k]);
      } else if (label.rfind(outPrefix, 0) == 0) {
        o.inputs.push_back((dir / ("output" + label.substr(outPrefix.size()) + ".npy")).string());
      } else {
        o.inputs.push_back((dir / (label + ".npy")).string());
      }
    }
    if (o.inputs.empty())
      usageError("'" + o.model + "' takes no residuals: --residuals needs a model compiled with "
                 "kiln-compile --grad --split=backward");
  }
  if (!o.cotangents.empty()) {
    // The seeds of a --grad model or a --train-step: inputs named cotangent<i>.
    size_t numCotangents = 0;
    for (size_t i = 0; i < exe->numInputs(); ++i)
      numCotangents += exe->inputLabel(i).rfind(KILN_COTANGENT_PREFIX, 0) == 0;
    if (!numCotangents)
      usageError("'" + o.model + "' takes no cotangents: --cotangent needs a model compiled with "
                 "kiln-compile --grad or --train-step");
    if (o.cotangents.size() != numCotangents)
      usageError("'" + o.model + "' takes " + std::to_string(numCotangents) + " cotangent(s), got " +
                 std::to_string(o.cotangents.size()) + " --cotangent");
    o.inputs.insert(o.inputs.end(), o.cotangents.begin(), o.cotangents.end());
  }
  o.inputs.insert(o.inputs.end(), o.tangents.begin(), o.tangents.end());
  if (o.inputs.size() != exe->numInputs()) {
    std::string msg = "'" + o.model + "' takes " + std::to_string(exe->numInputs()) + " input(s), got " +
                      std::to_string(o.inputs.size()) + " --input";
    for (size_t i = 0; i < exe->numInputs(); ++i) msg += "\n  " + exe->inputName(i);
    usageError(msg);
  }
  // A --grad model's --expect may list its outputs only (the gradients are
  // then checked with --expect-grads).
  if (!o.expects.empty() && o.expects.size() != exe->numOutputs() &&
      !(numGrads && o.expects.size() == exe->numOutputs() - numGrads))
    usageError("'" + o.model + "' has " + std::to_string(exe->numOutputs()) + " output(s), got " +
               std::to_string(o.expects.size()) + " --expect");

  std::vector<Tensor> inputs;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    Tensor t;
    try {
      // NumPy has no bfloat16: a bf16 input is read from an f32 file.
      t = readNpyFor(o.inputs[i], exe->inputDType(i));
    } catch (const NpyError &e) {
      usageError(std::string("--input ") + e.what());
    }
    inputs.push_back(t);
  }
  std::vector<Tensor> expects;
  for (const std::string &p : o.expects) {
    try {
      expects.push_back(readNpy(p));
    } catch (const NpyError &e) {
      usageError(std::string("--expect ") + e.what());
    }
  }

  std::vector<Tensor> outputs = exe->run(inputs);
  for (long r = 1; r < o.runs; ++r) outputs = exe->run(inputs);

  if (!o.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.outputDir, ec);
    if (ec) usageError("cannot create --output-dir '" + o.outputDir + "': " + ec.message());
    for (size_t i = 0, k = 0; i < outputs.size(); ++i) {
      std::string file = isGrad[i] ? exe->outputLabel(i) + ".npy" : "output" + std::to_string(k++) + ".npy";
      std::filesystem::path full = std::filesystem::path(o.outputDir) / file;
      std::filesystem::create_directories(full.parent_path(), ec);
      if (ec) usageError("cannot create '" + full.parent_path().string() + "': " + ec.message());
      std::string path = full.string();
      if (outputs[i].dtype() == DType::BFloat16)
        err << "kiln-run: note: " << exe->outputName(i) << " is bf16; written as f32 (NumPy has no bfloat16)\n";
      try {
        writeNpy(path, outputs[i]);
      } catch (const NpyError &e) {
        usageError(std::string("writing ") + e.what());
      }
    }
    // The weights the runs updated (a --train-step model's trained
    // parameters and optimizer state): DIR/params/<name>.npy.
    for (const std::string &name : exe->mutatedParams()) {
      Tensor value;
      if (!exe->readParam(name, value)) continue;
      std::filesystem::path full = std::filesystem::path(o.outputDir) / "params" / (name + ".npy");
      std::filesystem::create_directories(full.parent_path(), ec);
      if (ec) usageError("cannot create '" + full.parent_path().string() + "': " + ec.message());
      try {
        writeNpy(full.string(), value);
      } catch (const NpyError &e) {
        usageError(std::string("writing ") + e.what());
      }
    }
  }

  int code = kExitOk;
  for (size_t i = 0; i < expects.size(); ++i) {
    double rtol = o.rtol, atol = o.atol;
    if (o.torchTolerances) {
      Tolerance t = torchTolerance(outputs[i].dtype());
      if (!o.rtolGiven) rtol = t.rtol;
      if (!o.atolGiven) atol = t.atol;
    }
    Comparison c = compareTensors(outputs[i], expects[i], rtol, atol);
    out << exe->outputName(i) << " vs '" << o.expects[i] << "': " << c.detail << ": "
        << (c.match ? "OK" : "MISMATCH") << "\n";
    if (!c.match) code = kExitMismatch;
  }

  if (!o.expectGrads.empty()) {
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (exe->outputLabel(i).rfind(KILN_GRADS_PREFIX, 0) == 0)
        byName[exe->outputLabel(i).substr(sizeof(KILN_GRADS_PREFIX) - 1)] = i;
    size_t compared = 0;
    for (const std::string &f : npyFilesIn(o.expectGrads, "--expect-grads")) {
      std::string stem = f.substr(0, f.size() - 4);
      if (stem.rfind(KILN_COTANGENT_PREFIX, 0) == 0) continue;
      std::string path = (std::filesystem::path(o.expectGrads) / f).string();
      auto it = byName.find(stem);
      if (it == byName.end()) {
        out << "'" << path << "': the model has no gradient named '" << stem << "': MISMATCH\n";
        code = kExitMismatch;
        continue;
      }
      if (!compareWithFile(out, exe->outputName(it->second), outputs[it->second], path, "--expect-grads",
                           o.rtol, o.atol))
        code = kExitMismatch;
      ++compared;
    }
    if (!compared)
      usageError("--expect-grads '" + o.expectGrads + "' holds no gradient (.npy other than cotangent*)");
  }

  if (!o.expectParams.empty()) {
    std::vector<std::string> files = npyFilesIn(o.expectParams, "--expect-params");
    if (files.empty()) usageError("--expect-params '" + o.expectParams + "' holds no .npy file");
    for (const std::string &f : files) {
      std::string name = f.substr(0, f.size() - 4);
      std::string path = (std::filesystem::path(o.expectParams) / f).string();
      Tensor actual;
      if (!exe->readParam(name, actual)) {
        out << "'" << path << "': the model has no weight named '" << name << "': MISMATCH\n";
        code = kExitMismatch;
        continue;
      }
      if (!compareWithFile(out, "weight \"" + name + "\"", actual, path, "--expect-params", o.rtol, o.atol))
        code = kExitMismatch;
    }
  }

  // Nothing to compare against: say what the run gave, one line per output.
  if (expects.empty() && o.expectGrads.empty() && o.expectParams.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i)
      out << exe->outputName(i) << ": " << describeOutput(outputs[i]) << "\n";
    out << "kiln-run: ran " << (o.runs > 1 ? std::to_string(o.runs) + " times" : std::string("once")) << ", "
        << outputs.size() << " output" << (outputs.size() == 1 ? "" : "s")
        << (o.outputDir.empty() ? "" : " written to '" + o.outputDir + "'") << "\n";
  }

  if (o.bench > 0) {
    long warmup = std::min<long>(std::max<long>(o.bench / 10, 1), 10);
    std::vector<double> ms = exe->timeRuns(inputs, warmup, o.bench);
    std::sort(ms.begin(), ms.end());
    auto pct = [&](double p) { return ms[std::min(ms.size() - 1, (size_t)std::ceil(p * ms.size()) - (p > 0 ? 1 : 0))]; };
    // The median of an even count is the mean of the middle two.
    size_t mid = ms.size() / 2;
    double median = ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
    out << std::fixed << std::setprecision(4) << "bench: " << o.bench << " runs after " << warmup
        << " warm-up: min " << ms.front() << " ms, median " << median << " ms, p90 " << pct(0.9)
        << " ms (" << exe->timing() << ")";
    if (exe->cpuMsPerRun >= 0) out << ", CPU time " << exe->cpuMsPerRun << " ms a run";
    out << "\n";
    out.unsetf(std::ios::fixed);
  }
  return code;
}

} // namespace

/// kiln-run --batch FILE: every line of FILE holds one run's arguments (the
/// model, then its options), separated by tabs; they run one after the other
/// in this process, so a GPU's context and libraries are set up once. Each
/// run's output is framed by "kiln-run batch: begin N", "... stderr N" (what
/// it wrote to stderr follows) and "... end N exit E" (its exit code), flushed
/// as it ends. The batch stops after a run that fails while running (exit 3:
/// a device error can leave the device unusable for the next ones) with that
/// code; the caller goes on with the next line in a new process.
int runBatch(const std::string &file, std::ostream &out, std::ostream &err) {
  std::ifstream in(file);
  if (!in) {
    err << "kiln-run: error: cannot read --batch '" << file << "': " << std::strerror(errno) << "\n";
    return kExitUsage;
  }
  std::string line;
  for (size_t n = 0; std::getline(in, line);) {
    if (line.empty())
      continue;
    std::vector<std::string> args{"kiln-run"};
    for (size_t start = 0;;) {
      size_t tab = line.find('\t', start);
      args.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos)
        break;
      start = tab + 1;
    }
    std::ostringstream runOut, runErr;
    int rc = runMain(args, runOut, runErr);
    out << "kiln-run batch: begin " << n << "\n" << runOut.str() << "kiln-run batch: stderr " << n << "\n"
        << runErr.str() << "kiln-run batch: end " << n << " exit " << rc << "\n" << std::flush;
    if (rc >= kExitFailure)
      return rc;
    ++n;
  }
  return kExitOk;
}

int runMain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  if (args.size() >= 2 && args[1] == "--batch") {
    if (args.size() != 3) {
      err << "kiln-run: error: --batch takes one file and no other option (see --help)\n";
      return kExitUsage;
    }
    return runBatch(args[2], out, err);
  }
  try {
    return runChecked(args, out, err);
  } catch (const RunError &e) {
    err << "kiln-run: error: " << e.what() << "\n";
    if (e.exitCode() == kExitUsage && std::string(e.what()).find("see --help") != std::string::npos)
      err << "usage: kiln-run MODEL.so|MODEL.pt2 [--input F.npy]... [--output-dir DIR] [--expect F.npy]... ...\n";
    return e.exitCode();
  } catch (const std::bad_alloc &) {
    err << "kiln-run: error: out of memory\n";
  } catch (const std::exception &e) {
    err << "kiln-run: internal error: " << e.what() << "\n";
  } catch (...) {
    err << "kiln-run: internal error (unknown exception)\n";
  }
  return kExitFailure;
}

} // namespace kiln::run
