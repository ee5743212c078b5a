// kiln tests — small helpers shared by the runtime tests.
#ifndef KILN_TEST_RUNTIME_TESTUTIL_H
#define KILN_TEST_RUNTIME_TESTUTIL_H

#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <vector>
#include <string>

namespace kiln::test {

/// n floats drawn uniformly from [-1, 1) with a fixed seed.
inline std::vector<float> randomData(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

/// Owns a C ABI status for the duration of a check and frees it after.
struct Status {
  kiln_status_t s;
  ~Status() { kiln_status_free(s); }
  kiln_status_code_t code() const { return kiln_status_code(s); }
  std::string message() const { return kiln_status_message(s); }
};

/// A fresh empty directory, removed when the object goes.
class TempDir {
public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kiln-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
    EXPECT_FALSE(path_.empty());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace kiln::test

#endif // KILN_TEST_RUNTIME_TESTUTIL_H
