// kiln-opcheck — checks an op the way torch.library.opcheck does (see kiln/opcheck.h).
#include "kiln/library.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

static int usage(int code) {
  std::cerr << "usage: kiln-opcheck [--plugin LIB.so]... [--samples N] [--seed S] [--list] "
               "[--table] ns::op[.overload]...\n"
               "  Checks each op's schema annotations against what its kernel does to its\n"
               "  inputs, its fake function against the real kernel, its autograd formula\n"
               "  against finite differences, every dispatch key it has a kernel for, and\n"
               "  its batching rule against running the op once per sample.\n"
               "  Exit status 0 only if every check passes.\n"
               "  --list   print the ops the dispatcher knows and exit\n"
               "  --table  also print each op's dispatch table\n";
  return code;
}

int main(int argc, char **argv) {
  std::vector<std::string> plugins, ops;
  kiln::OpcheckOptions opts;
  bool list = false, table = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "kiln-opcheck: " << flag << " needs a value\n";
        std::exit(usage(2));
      }
      return argv[++i];
    };
    if (a == "--plugin") plugins.push_back(value("--plugin"));
    else if (a.rfind("--plugin=", 0) == 0) plugins.push_back(a.substr(9));
    else if (a == "--samples") opts.numSamples = std::atoi(value("--samples").c_str());
    else if (a == "--seed") opts.seed = (unsigned)std::strtoul(value("--seed").c_str(), nullptr, 10);
    else if (a == "--list") list = true;
    else if (a == "--table") table = true;
    else if (a == "-h" || a == "--help") return usage(0);
    else if (!a.empty() && a[0] == '-') {
      std::cerr << "kiln-opcheck: unknown option " << a << "\n";
      return usage(2);
    } else ops.push_back(a);
  }
  for (const std::string &p : plugins) {
    std::string err;
    if (!kiln::loadPlugin(p, err)) {
      std::cerr << "kiln-opcheck: " << err << "\n";
      return 2;
    }
  }
  if (list) {
    for (const std::string &n : kiln::Dispatcher::get().ops())
      std::cout << kiln::Dispatcher::get().findOp(n).schema().str() << "\n";
    return 0;
  }
  if (ops.empty()) return usage(2);
  if (opts.numSamples < 1) {
    std::cerr << "kiln-opcheck: --samples must be at least 1\n";
    return 2;
  }
  bool allOk = true;
  for (const std::string &op : ops) {
    try {
      kiln::OperatorHandle h = kiln::Dispatcher::get().findOpOrThrow(op);
      std::cout << "== " << h.schema().str() << "\n";
      if (table) std::cout << h.dumpTable();
      kiln::OpcheckReport rep = kiln::opcheck(op, opts);
      std::cout << rep.str();
      size_t failed = rep.failures().size();
      std::cout << (failed ? "FAILED: " + std::to_string(failed) + " check(s) of " : "OK: ")
                << h.name() << "\n";
      allOk = allOk && rep.ok();
    } catch (const std::exception &e) {
      std::cerr << "kiln-opcheck: " << e.what() << "\n";
      allOk = false;
    }
  }
  return allOk ? 0 : 1;
}
