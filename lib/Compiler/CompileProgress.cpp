//===- CompileProgress.cpp - progress lines and per-function compile times ---===//
#include "CompileProgress.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <thread>
#include <vector>

using namespace mlir;

namespace kiln {

void Progress::report(StringRef stage, StringRef detail, bool force) {
  std::lock_guard<std::mutex> lock(mutex);
  auto now = std::chrono::steady_clock::now();
  // A terminal is redrawn at most 20 times a second; a log gets every line.
  if (redraw && !force && now - last < std::chrono::milliseconds(50))
    return;
  last = now;
  std::string line = ("kiln-compile: " + stage + (detail.empty() ? "" : ": ") + detail).str();
  if (redraw) {
    // Keep the line within a usual terminal's width.
    if (line.size() > 100)
      line.resize(100);
    os << "\r\x1b[K" << line;
    dirty = true;
  } else {
    os << line << "\n";
  }
  os.flush();
}

void Progress::stage(StringRef name, StringRef detail) { report(name, detail, /*force=*/true); }

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex);
  if (redraw && dirty) {
    os << "\r\x1b[K";
    os.flush();
    dirty = false;
  }
}

namespace {

/// A pass or nested pipeline as the textual pipeline spells it, without the
/// options: "cse", "func.func(canonicalize,cse)".
std::string spell(Pass &pass) {
  std::string text, out;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  unsigned braces = 0;
  for (char c : text) {
    braces += c == '{';
    if (!braces && !std::isspace((unsigned char)c))
      out += c;
    braces -= c == '}' && braces;
  }
  return out;
}

} // namespace

unsigned countPasses(PassManager &pm) {
  // any(a{...},func.func(b,c),d): the entries at depth 1, options skipped.
  // The pass manager merges neighbouring nested pipelines on the same op
  // (func.func(a),func.func(b) runs as func.func(a,b)) before it runs.
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  std::vector<std::string> entries(1);
  unsigned depth = 0, braces = 0;
  for (char c : text) {
    if (braces || c == '{') {
      braces += c == '{';
      braces -= c == '}';
      continue;
    }
    if (c == '(' && depth++ == 1)
      entries.back() += '(';
    else if (c == ')')
      depth -= depth > 0;
    else if (depth == 1 && c == ',')
      entries.emplace_back();
    else if (depth == 1 && !std::isspace((unsigned char)c))
      entries.back() += c;
  }
  unsigned n = 0;
  for (size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].empty() &&
        !(i && entries[i].back() == '(' && entries[i] == entries[i - 1]))
      ++n;
  return n;
}

namespace {

class PassProgress : public PassInstrumentation {
public:
  PassProgress(Progress &progress, std::string stage, unsigned total)
      : progress(progress), stage(std::move(stage)), total(total) {}
  /// The top-level passes (a nested pipeline is one), as they start.
  void runBeforePass(Pass *pass, Operation *op) override {
    if (op->getParentOp())
      return;
    unsigned k = ++started;
    std::string name = spell(*pass);
    if (name.size() > 60)
      name = name.substr(0, 57) + "...";
    progress.report(stage, llvm::formatv("pass {0} of {1}, {2}", k, std::max(k, total), name).str());
  }

private:
  Progress &progress;
  std::string stage;
  unsigned total;
  unsigned started = 0;
};

class FunctionTimer : public PassInstrumentation {
public:
  explicit FunctionTimer(FunctionTimes &times) : times(times) {}
  void runBeforePass(Pass *, Operation *op) override {
    if (!isTimed(op))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    starts[{op, std::this_thread::get_id()}].push_back(std::chrono::steady_clock::now());
  }
  void runAfterPass(Pass *, Operation *op) override { stop(op); }
  void runAfterPassFailed(Pass *, Operation *op) override { stop(op); }

private:
  using Key = std::pair<Operation *, std::thread::id>;
  /// Symbols directly in the top-level module: functions and GPU modules.
  static bool isTimed(Operation *op) {
    Operation *parent = op->getParentOp();
    return parent && !parent->getParentOp() && op->hasAttr(SymbolTable::getSymbolAttrName());
  }
  void stop(Operation *op) {
    if (!isTimed(op))
      return;
    std::chrono::steady_clock::time_point start;
    std::string name;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = starts.find({op, std::this_thread::get_id()});
      if (it == starts.end() || it->second.empty())
        return;
      start = it->second.back();
      it->second.pop_back();
      // Only the outermost pass on an op counts (an adaptor runs the others).
      if (!it->second.empty())
        return;
      starts.erase(it);
    }
    if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      name = sym.getValue().str();
    times.add(0, name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

  FunctionTimes &times;
  std::mutex mutex;
  std::map<Key, std::vector<std::chrono::steady_clock::time_point>> starts;
};

} // namespace

std::unique_ptr<PassInstrumentation> Progress::passes(PassManager &pm, StringRef stage) {
  return std::make_unique<PassProgress>(*this, stage.str(), countPasses(pm));
}

std::unique_ptr<PassInstrumentation> FunctionTimes::instrumentation() {
  return std::make_unique<FunctionTimer>(*this);
}

void FunctionTimes::add(unsigned table, StringRef name, double seconds) {
  std::lock_guard<std::mutex> lock(mutex);
  tables[table][name] += seconds;
}

void FunctionTimes::addPart(unsigned part, size_t functions, size_t instructions, double cpuSeconds) {
  std::lock_guard<std::mutex> lock(mutex);
  parts.push_back({part, functions, instructions, cpuSeconds});
}

void FunctionTimes::print(llvm::raw_ostream &os, size_t n) {
  std::lock_guard<std::mutex> lock(mutex);
  const char *titles[2] = {"the pipeline's function passes", "LLVM's optimisation"};
  for (unsigned t = 0; t < 2; ++t) {
    if (tables[t].empty())
      continue;
    std::vector<std::pair<double, std::string>> rows;
    double total = 0;
    for (auto &e : tables[t]) {
      rows.push_back({e.second, e.first().str()});
      total += e.second;
    }
    std::sort(rows.begin(), rows.end(), [](auto &a, auto &b) { return a.first > b.first; });
    os << llvm::formatv("  slowest functions through {0} ({1} functions, {2:f3} s in all):\n", titles[t],
                        rows.size(), total);
    for (size_t i = 0; i < rows.size() && i < n; ++i)
      os << llvm::formatv("    {0,9:f4} s  {1}\n", rows[i].first, rows[i].second);
  }
  std::sort(parts.begin(), parts.end(), [](const Part &a, const Part &b) { return a.part < b.part; });
  if (!parts.empty())
    os << llvm::formatv("  LLVM's parts, each optimised and compiled on a thread of its own ({0}):\n", parts.size());
  for (const Part &p : parts)
    os << llvm::formatv("    part {0}: {1} functions, {2} instructions, {3:f3} s of CPU\n", p.part, p.functions,
                        p.instructions, p.cpuSeconds);
}

} // namespace kiln
