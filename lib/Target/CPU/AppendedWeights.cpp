// kiln — the weight blob written once, straight after the linked model's code in its .so (kiln/abi/appended_weights.h).
//
// Written as an object of its own, the blob crossed memory three times on its
// way into the .so (kiln-compile wrote the object, lld read it and copied it
// into its output): a third of the CPU time of compiling a large model
// (docs/Rationale/appended-weights.md). Appended, it is written once.
#include "kiln/Target/CPU.h"

#include "kiln/abi/appended_weights.h"
#include "kiln/abi/model_format.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace kiln {

namespace {
void zeros(raw_ostream &os, uint64_t n) {
  static const char block[4096] = {};
  for (; n > 0; n -= std::min<uint64_t>(n, sizeof(block)))
    os.write(block, std::min<uint64_t>(n, sizeof(block)));
}

void littleEndian64(raw_ostream &os, uint64_t v) {
  char bytes[8];
  for (char &b : bytes)
    b = (char)(v & 0xff), v >>= 8;
  os.write(bytes, sizeof bytes);
}
} // namespace

mlir::LogicalResult appendWeights(StringRef soPath, const WeightLayout &layout,
                                  const WeightMap &weights, std::string &error) {
  uint64_t codeBytes = 0;
  if (std::error_code ec = sys::fs::file_size(soPath, codeBytes)) {
    error = "cannot append the weights to '" + soPath.str() + "': " + ec.message();
    return mlir::failure();
  }
  std::error_code ec;
  raw_fd_ostream os(soPath, ec, sys::fs::OF_Append);
  if (ec) {
    error = "cannot append the weights to '" + soPath.str() + "': " + ec.message();
    return mlir::failure();
  }
  const uint64_t align = KILN_APPENDED_WEIGHTS_ALIGNMENT;
  uint64_t blobOffset = (codeBytes + align - 1) / align * align;
  zeros(os, blobOffset - codeBytes);

  // The blob: each weight at its offset, zeros between.
  std::vector<const WeightLayout::Entry *> order;
  for (const WeightLayout::Entry &e : layout.entries)
    order.push_back(&e);
  std::sort(order.begin(), order.end(), [](auto *a, auto *b) { return a->offset < b->offset; });
  uint64_t at = 0;
  std::vector<char> scratch;
  for (const WeightLayout::Entry *e : order) {
    auto it = weights.find(e->name);
    if (it == weights.end() || it->second.size() != e->nbytes || e->offset < at) {
      error = "weight '" + e->name + "' does not match its place in the weight layout";
      return mlir::failure();
    }
    zeros(os, e->offset - at);
    // Read now (the importer only noted where it is) into the one buffer
    // reused for every weight, and written.
    std::string readError;
    if (!it->second.withBytes([&](ArrayRef<char> data) { os.write(data.data(), data.size()); }, readError,
                              &scratch)) {
      error = "weight '" + e->name + "': " + readError;
      return mlir::failure();
    }
    at = e->offset + e->nbytes;
  }
  zeros(os, layout.totalBytes - at);

  os.write(KILN_APPENDED_WEIGHTS_MAGIC, KILN_APPENDED_WEIGHTS_MAGIC_BYTES);
  littleEndian64(os, blobOffset);
  littleEndian64(os, layout.totalBytes);
  static_assert(KILN_APPENDED_WEIGHTS_MAGIC_BYTES + 16 == KILN_APPENDED_WEIGHTS_TRAILER_BYTES,
                "the trailer is the magic, the blob's offset and its size");
  os.close();
  if (os.has_error()) {
    error = "cannot append the weights to '" + soPath.str() + "': " + os.error().message();
    os.clear_error();
    return mlir::failure();
  }
  return mlir::success();
}

} // namespace kiln
