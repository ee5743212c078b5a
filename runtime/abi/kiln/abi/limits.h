/* kiln ABI — limits on what kiln reads from files, shared by the runtime and the compiler. Plain C. */
/*
 * Every reader of outside data (.pt2 archives, their JSON, .npy files, the
 * manifest of a compiled model) checks sizes and nesting against these limits
 * before it allocates, and fails with a clear error when a file exceeds them.
 * Each limit is read once from its environment variable (a positive integer,
 * bytes or levels; docs/limits.md):
 *   KILN_MAX_TENSOR_BYTES  one tensor, weight or archive member   (default 32 GiB)
 *   KILN_MAX_JSON_BYTES    one JSON document                       (default 1 GiB)
 *   KILN_MAX_JSON_DEPTH    nesting of arrays and objects in JSON   (default 256)
 * All functions are thread-safe. The runtime defines them (runtime/src/loader/Limits.cpp).
 */
#ifndef KILN_ABI_LIMITS_H
#define KILN_ABI_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The largest tensor (or archive member) kiln reads, in bytes.
uint64_t kiln_limit_tensor_bytes(void);
/// The largest JSON document kiln parses, in bytes.
uint64_t kiln_limit_json_bytes(void);
/// The deepest nesting of JSON arrays and objects kiln parses.
uint32_t kiln_limit_json_depth(void);
/// The deepest nesting of '[' and '{' in `text` (outside strings); a scan
/// that never recurses, run before a parser that does.
uint64_t kiln_json_nesting_depth(const char *text, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* KILN_ABI_LIMITS_H */
