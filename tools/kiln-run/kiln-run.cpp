// kiln-run — runs a compiled kiln model on .npy inputs; see KilnRun.h.
#include "KilnRun.h"

#include <iostream>

int main(int argc, char **argv) {
  return kiln::run::runMain(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
