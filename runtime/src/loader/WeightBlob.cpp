// kiln runtime loader — a model's weight blob found in its exported symbol or mapped from the bytes appended to its file.
#include "WeightBlob.h"

#include "kiln/error.h"
#include "Manifest.h"
#include "kiln/abi/appended_weights.h"
#include "kiln/model_format.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

size_t dynamicSymbolSize(const void *addr) {
  Dl_info info;
  const ElfW(Sym) *sym = nullptr;
  if (dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && info.dli_saddr == addr)
    return (size_t)sym->st_size;
  return 0;
}

namespace {

/// The bytes the manifest's weights need: the end of the last one.
uint64_t bytesNeeded(const Manifest &manifest) {
  uint64_t need = 0;
  for (const ManifestValue &v : manifest.args)
    if (v.isWeight() && v.nbytes > 0) need = std::max<uint64_t>(need, (uint64_t)v.offset + (uint64_t)v.nbytes);
  return need;
}

uint64_t littleEndian64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

WeightBlob mapAppended(const std::string &path, const std::string &openPath, uint64_t need) {
  auto damaged = [&](const std::string &why) {
    return Error(KILN_STATUS_INVALID_ARGUMENT,
                 "model '" + path + "' has its weights appended to its file, but " + why +
                     " (tools that rewrite shared objects, such as strip, drop them: compile the model again)");
  };
  Fd f{::open(openPath.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0)
    throw Error(KILN_STATUS_NOT_FOUND, "model '" + path + "': cannot open it to map its weights: " +
                                           std::strerror(errno));
  struct stat st;
  if (::fstat(f.fd, &st) != 0)
    throw Error(KILN_STATUS_INTERNAL, "model '" + path + "': cannot stat it: " + std::strerror(errno));
  uint64_t fileSize = (uint64_t)st.st_size;
  if (fileSize < KILN_APPENDED_WEIGHTS_TRAILER_BYTES)
    throw damaged("the file is too short to end with kiln's weight trailer");
  unsigned char trailer[KILN_APPENDED_WEIGHTS_TRAILER_BYTES];
  uint64_t trailerAt = fileSize - KILN_APPENDED_WEIGHTS_TRAILER_BYTES;
  if (::pread(f.fd, trailer, sizeof trailer, (off_t)trailerAt) != (ssize_t)sizeof trailer)
    throw Error(KILN_STATUS_INTERNAL, "model '" + path + "': cannot read its weight trailer");
  if (std::memcmp(trailer, KILN_APPENDED_WEIGHTS_MAGIC, KILN_APPENDED_WEIGHTS_MAGIC_BYTES) != 0)
    throw damaged("the file does not end with kiln's weight trailer");
  uint64_t offset = littleEndian64(trailer + 8), size = littleEndian64(trailer + 16);
  if (offset > trailerAt || size > trailerAt - offset)
    throw damaged("its trailer places " + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                  " of a " + std::to_string(fileSize) + "-byte file");
  if (offset % KILN_WEIGHT_ALIGNMENT)
    throw damaged("its trailer places the blob at offset " + std::to_string(offset) + ", not a multiple of " +
                  std::to_string(KILN_WEIGHT_ALIGNMENT));
  if (size < need)
    throw damaged("the appended blob has " + std::to_string(size) + " bytes and its weights need " +
                  std::to_string(need));
  WeightBlob blob;
  if (size == 0) return blob;
  // mmap takes a page-aligned file offset: map from the page the blob starts in.
  uint64_t page = (uint64_t)::sysconf(_SC_PAGESIZE);
  uint64_t start = offset / page * page;
  size_t length = (size_t)(offset + size - start);
  void *base = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, f.fd, (off_t)start);
  if (base == MAP_FAILED)
    throw Error(KILN_STATUS_RESOURCE_EXHAUSTED, "model '" + path + "': cannot map its " + std::to_string(size) +
                                                    " bytes of weights: " + std::strerror(errno));
  blob.mapping = std::shared_ptr<void>(base, [length](void *p) { ::munmap(p, length); });
  blob.data = static_cast<const char *>(base) + (offset - start);
  blob.size = (size_t)size;
  return blob;
}

} // namespace

WeightBlob findWeightBlob(void *handle, const std::string &path, const std::string &openPath,
                          const Manifest &manifest) {
  if (manifest.externalWeights) return {};
  uint64_t need = bytesNeeded(manifest);
  if (manifest.appendedWeights) return mapAppended(path, openPath, need);
  WeightBlob blob;
  blob.data = ::dlsym(handle, KILN_SYM_WEIGHTS);
  if (!blob.data && need)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                "model '" + path + "' has embedded weights but does not export " + KILN_SYM_WEIGHTS);
  if (blob.data && reinterpret_cast<uintptr_t>(blob.data) % KILN_WEIGHT_ALIGNMENT)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, "model '" + path + "': " + KILN_SYM_WEIGHTS + " is not " +
                                                  std::to_string(KILN_WEIGHT_ALIGNMENT) + "-byte aligned");
  if (blob.data) blob.size = dynamicSymbolSize(blob.data);
  return blob;
}

} // namespace kiln
