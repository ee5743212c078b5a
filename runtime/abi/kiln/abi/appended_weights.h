/* kiln ABI — a model's weight blob appended to its .so file (manifest `weights appended`). Plain C. */
/*
 * kiln-compile links a model's code into the .so and then writes the weight
 * blob once, straight after it, instead of into an object the linker copies
 * (docs/Rationale/appended-weights.md):
 *
 *   [the linked shared object][zeros][blob][trailer]
 *
 * - the blob starts at a multiple of KILN_APPENDED_WEIGHTS_ALIGNMENT bytes
 *   from the start of the file; a weight's `<offset> <nbytes>` in the
 *   manifest locate it in the blob, as for `weights embedded`;
 * - the trailer is the file's last KILN_APPENDED_WEIGHTS_TRAILER_BYTES bytes:
 *   the 8 bytes of KILN_APPENDED_WEIGHTS_MAGIC, then the blob's offset in the
 *   file and its size in bytes, each a little-endian uint64.
 * The dynamic loader maps only the shared object's segments and never reads
 * past them; kiln's loader maps the blob read-only from the same file. Tools
 * that rewrite the shared object (strip, objcopy) drop the appended bytes:
 * the loader then reports the missing trailer.
 */
#ifndef KILN_ABI_APPENDED_WEIGHTS_H
#define KILN_ABI_APPENDED_WEIGHTS_H

#define KILN_APPENDED_WEIGHTS_MAGIC "kilnWTS1"
#define KILN_APPENDED_WEIGHTS_MAGIC_BYTES 8
#define KILN_APPENDED_WEIGHTS_TRAILER_BYTES 24
#define KILN_APPENDED_WEIGHTS_ALIGNMENT 4096

#endif /* KILN_ABI_APPENDED_WEIGHTS_H */
