/* kiln — the buffers of compiled CPU models: allocated and freed through the runtime. Plain C.
 *
 * kiln-compile lowers the model's heap buffers (memref.alloc / dealloc) to
 * these two calls (kiln-lower-buffer-allocs) instead of libc's aligned_alloc
 * and free. The runtime keeps large freed blocks for the next allocation of
 * the same size, so a model that runs again reuses its buffers instead of
 * mapping fresh, zero-filled pages every run
 * (docs/Rationale/cpu-buffer-cache.md).
 */
#ifndef KILN_ABI_CPU_MEMORY_H
#define KILN_ABI_CPU_MEMORY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symbols compiled code calls. */
#define KILN_SYM_CPU_ALLOC "kiln_cpu_alloc"
#define KILN_SYM_CPU_FREE "kiln_cpu_free"

/* Like aligned_alloc(alignment, size): `alignment` a power of two, the result
 * aligned to it (and to 64 bytes) and not aliasing any live block; NULL when
 * memory runs out. Thread-safe. */
void *kiln_cpu_alloc(size_t alignment, size_t size);

/* Frees a block of kiln_cpu_alloc, or of libc's malloc family (so a caller
 * may free any model output with it). NULL is ignored. Thread-safe. */
void kiln_cpu_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif /* KILN_ABI_CPU_MEMORY_H */
