// kiln runtime — what the model loader needs of the CPU library calls: their errors and their weight cache.
#ifndef KILN_RUNTIME_CPU_LIBRARY_H
#define KILN_RUNTIME_CPU_LIBRARY_H

#include <string>

namespace kiln::cpu {

/// Forgets the calling thread's library-call error (before a model's entry runs).
void clearError();
/// The first library-call error on the calling thread since clearError(),
/// or empty; clears it.
std::string takeError();
/// Drops every weight copy the library calls keep (a model is unloaded: the
/// memory of its weights may be reused for other data).
void forgetWeights();

} // namespace kiln::cpu

#endif // KILN_RUNTIME_CPU_LIBRARY_H
