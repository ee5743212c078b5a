// kiln tests — writes small zip archives (hand-built .pt2 files) with libzip.
#ifndef KILN_TEST_ZIPWRITER_H
#define KILN_TEST_ZIPWRITER_H

#include <gtest/gtest.h>
#include <zip.h>

#include <list>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test {

// Writes a zip holding `members` (name -> bytes).
inline void writeZip(const std::string &path, const std::vector<std::pair<std::string, std::string>> &members) {
  int err = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  std::list<std::string> keep;  // libzip reads the buffers at zip_close
  for (const auto &[name, bytes] : members) {
    keep.push_back(bytes);
    zip_source_t *src = zip_source_buffer(z, keep.back().data(), keep.back().size(), 0);
    ASSERT_NE(src, nullptr);
    ASSERT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

} // namespace kiln::test

#endif // KILN_TEST_ZIPWRITER_H
