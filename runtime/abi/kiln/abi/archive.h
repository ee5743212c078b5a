/* kiln ABI — reading the members of a .pt2 (zip) archive: the one reader behind the importer, the eager interpreter and the weights loader. Plain C. */
/*
 * The runtime defines these (runtime/src/loader/Archive.cpp, libzip); the
 * compiler reaches them through this header and the runtime library only.
 * Nothing here interprets a member: JSON parsing and tensor layout belong to
 * the callers. Every read checks the size a member claims against a limit
 * (kiln/abi/limits.h) before it allocates, and grows its buffer only as data
 * really arrives, so a lying zip directory cannot make kiln allocate more than
 * the archive holds. Error messages name the archive and the member; the
 * caller frees them with kiln_archive_free(). An archive handle is not
 * thread-safe; distinct handles are independent.
 */
#ifndef KILN_ABI_ARCHIVE_H
#define KILN_ABI_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_archive kiln_archive;

/// Opens `path` read-only and lists its members. On failure (a missing file, a
/// directory, not a zip, a truncated zip) returns NULL and sets *error to a
/// message naming `path`.
kiln_archive *kiln_archive_open(const char *path, char **error);
/// Closes `archive` (NULL is ignored).
void kiln_archive_close(kiln_archive *archive);
/// The path `archive` was opened with.
const char *kiln_archive_path(const kiln_archive *archive);
/// The number of members, and the name of member `index` (valid until close).
size_t kiln_archive_member_count(const kiln_archive *archive);
const char *kiln_archive_member_name(const kiln_archive *archive, size_t index);
/// 1 if `member` (a full name inside the zip) exists, else 0.
int kiln_archive_has_member(const kiln_archive *archive, const char *member);
/// Reads `member` whole. Refuses, before allocating, a member that claims
/// more than `limit` bytes (0: kiln_limit_tensor_bytes()). On success returns
/// 0, *data (free with kiln_archive_free; never NULL, even for an empty member)
/// and *size; on failure returns -1 and sets *error.
int kiln_archive_read(const kiln_archive *archive, const char *member, uint64_t limit, char **data,
                      uint64_t *size, char **error);
/// The size `member` claims in the zip directory, without reading it; -1 and
/// *error if there is no such member or it claims more than `limit` bytes (0:
/// kiln_limit_tensor_bytes()), as kiln_archive_read would say. Reading it
/// later checks the claim against what the member really holds.
int kiln_archive_member_size(const kiln_archive *archive, const char *member, uint64_t limit, uint64_t *size,
                             char **error);
/// Reads `member` whole into a buffer the caller owns: `grow(context, n)`
/// returns a buffer of at least `n` bytes holding the bytes read so far (as
/// realloc does), or NULL when out of memory; it is asked for more only as
/// data arrives, 16 MiB at a time, after the same limit check as
/// kiln_archive_read. A caller that reuses one buffer for many members (the
/// compiler writing a model's weights) reads each without a fresh allocation.
/// Returns 0 and *size, or -1 and *error.
typedef void *(*kiln_archive_grow_fn)(void *context, uint64_t size);
int kiln_archive_read_into(const kiln_archive *archive, const char *member, uint64_t limit,
                           kiln_archive_grow_fn grow, void *context, uint64_t *size, char **error);
/// Frees a buffer or a message this API returned.
void kiln_archive_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* KILN_ABI_ARCHIVE_H */
