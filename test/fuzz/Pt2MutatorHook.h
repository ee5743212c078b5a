// kiln fuzz targets — installs the .pt2 structure-aware mutator in a libFuzzer target.
#ifndef KILN_TEST_FUZZ_PT2MUTATORHOOK_H
#define KILN_TEST_FUZZ_PT2MUTATORHOOK_H

#include "Pt2Mutator.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize,
                                          unsigned int seed) {
  return kiln::fuzz::mutatePt2(data, size, maxSize, seed);
}

#endif
