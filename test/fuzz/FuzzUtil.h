// kiln fuzz targets — shared helpers: fuzz input as a file path, limits for fuzzing and the initializer that sets them.
#ifndef KILN_TEST_FUZZ_FUZZUTIL_H
#define KILN_TEST_FUZZ_FUZZUTIL_H

#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

/// A program may legally ask for more memory than there is (an intermediate
/// of 2^40 elements): kiln's allocator then throws std::bad_alloc, an error
/// status at the C ABI. ASan would abort on such a request instead, so it
/// returns null here as the system allocator does. (Each target is one
/// source file including this header once.)
extern "C" __attribute__((used)) const char *__asan_default_options() { return "allocator_may_return_null=1"; }

namespace kiln::fuzz {

/// The fuzz input as a file the readers can open by path: an anonymous
/// in-memory file (memfd), named through /proc/self/fd.
class MemFile {
public:
  MemFile(const uint8_t *data, size_t size) {
    fd_ = ::memfd_create("kiln-fuzz", MFD_CLOEXEC);
    if (fd_ < 0)
      std::abort();
    size_t off = 0;
    while (off < size) {
      ssize_t n = ::write(fd_, data + off, size - off);
      if (n <= 0)
        std::abort();
      off += (size_t)n;
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;
  const std::string &path() const { return path_; }

private:
  int fd_ = -1;
  std::string path_;
};

/// Limits small enough that a fuzzer's memory limit (-rss_limit_mb) is never
/// the thing that stops an over-large tensor: kiln's own limit must.
inline void setFuzzLimits() {
  ::setenv("KILN_MAX_TENSOR_BYTES", "67108864", 0); // 64 MiB
  ::setenv("KILN_MAX_JSON_BYTES", "16777216", 0);   // 16 MiB
}

} // namespace kiln::fuzz

/// Defines the target's LLVMFuzzerInitialize: kiln's fuzzing limits
/// (setFuzzLimits) are set before the first input.
#define KILN_FUZZ_INITIALIZE_WITH_LIMITS()                                                         \
  extern "C" int LLVMFuzzerInitialize(int *, char ***) {                                           \
    kiln::fuzz::setFuzzLimits();                                                                   \
    return 0;                                                                                      \
  }

#endif
