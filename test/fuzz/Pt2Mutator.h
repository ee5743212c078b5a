// kiln fuzz targets — a structure-aware mutator for .pt2 (zip + JSON) fuzz inputs.
#ifndef KILN_TEST_FUZZ_PT2MUTATOR_H
#define KILN_TEST_FUZZ_PT2MUTATOR_H

#include <cstddef>
#include <cstdint>

namespace kiln::fuzz {

/// Mutates a .pt2 archive in place (libFuzzer's custom-mutator contract): it
/// unpacks the zip, then changes one JSON member structurally (a value of
/// another kind, a huge or negative number, a deleted or duplicated entry, a
/// deep nest), truncates or grows a raw member, or falls back to byte-level
/// mutation of one member, and packs the zip again. Inputs that are not a
/// zip get byte-level mutation.
size_t mutatePt2(uint8_t *data, size_t size, size_t maxSize, unsigned seed);

} // namespace kiln::fuzz

#endif
