// kiln tests — the one .pt2 (zip) member reader (kiln/abi/archive.h): listing, reading, limits, errors.
#include "TestUtil.h"
#include "ZipWriter.h"
#include "kiln/abi/archive.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

using kiln::test::TempDir;
using kiln::test::writeZip;

namespace {

/// Takes (and frees) a message from the reader.
std::string take(char *error) {
  std::string s = error ? error : "";
  kiln_archive_free(error);
  return s;
}

TEST(Archive, ListsAndReadsMembers) {
  TempDir dir;
  writeZip(dir / "a.pt2", {{"top/one.bin", std::string("\x01\x02\x03", 3)}, {"top/empty", ""}});
  char *error = nullptr;
  kiln_archive *a = kiln_archive_open((dir / "a.pt2").c_str(), &error);
  ASSERT_NE(a, nullptr) << take(error);
  EXPECT_EQ(std::string(kiln_archive_path(a)), dir / "a.pt2");
  ASSERT_EQ(kiln_archive_member_count(a), 2u);
  EXPECT_EQ(std::string(kiln_archive_member_name(a, 0)), "top/one.bin");
  EXPECT_EQ(kiln_archive_member_name(a, 2), nullptr);
  EXPECT_EQ(kiln_archive_has_member(a, "top/one.bin"), 1);
  EXPECT_EQ(kiln_archive_has_member(a, "one.bin"), 0);

  char *data = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(kiln_archive_read(a, "top/one.bin", 0, &data, &size, &error), 0) << take(error);
  EXPECT_EQ(std::string(data, size), std::string("\x01\x02\x03", 3));
  kiln_archive_free(data);
  // An empty member still gives a buffer to free.
  ASSERT_EQ(kiln_archive_read(a, "top/empty", 0, &data, &size, &error), 0) << take(error);
  EXPECT_NE(data, nullptr);
  EXPECT_EQ(size, 0u);
  kiln_archive_free(data);
  kiln_archive_close(a);
}

TEST(Archive, RefusesWhatItCannotRead) {
  TempDir dir;
  char *error = nullptr;
  EXPECT_EQ(kiln_archive_open((dir / "missing.pt2").c_str(), &error), nullptr);
  EXPECT_NE(take(error).find("no such file"), std::string::npos);
  EXPECT_EQ(kiln_archive_open(dir.path().c_str(), &error), nullptr);
  EXPECT_NE(take(error).find("is a directory"), std::string::npos);
  std::ofstream(dir / "text.pt2") << "not a zip";
  EXPECT_EQ(kiln_archive_open((dir / "text.pt2").c_str(), &error), nullptr);
  EXPECT_NE(take(error).find("is not a readable .pt2 (zip) archive"), std::string::npos);
}

TEST(Archive, MemberErrorsNameTheMemberAndTheArchive) {
  TempDir dir;
  writeZip(dir / "a.pt2", {{"top/big.bin", std::string(4096, 'x')}});
  char *error = nullptr;
  kiln_archive *a = kiln_archive_open((dir / "a.pt2").c_str(), &error);
  ASSERT_NE(a, nullptr) << take(error);
  char *data = nullptr;
  uint64_t size = 0;
  EXPECT_EQ(kiln_archive_read(a, "top/none", 0, &data, &size, &error), -1);
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(take(error), "'" + (dir / "a.pt2") + "' has no member 'top/none'");
  // The size a member claims, without reading it, within the same limit.
  uint64_t claimed = 0;
  ASSERT_EQ(kiln_archive_member_size(a, "top/big.bin", 0, &claimed, &error), 0) << take(error);
  EXPECT_EQ(claimed, 4096u);
  EXPECT_EQ(kiln_archive_member_size(a, "top/big.bin", 1024, &claimed, &error), -1);
  EXPECT_NE(take(error).find("claims 4096 bytes, more than kiln's limit of 1024"), std::string::npos);
  EXPECT_EQ(kiln_archive_member_size(a, "top/none", 0, &claimed, &error), -1);
  EXPECT_EQ(take(error), "'" + (dir / "a.pt2") + "' has no member 'top/none'");
  // The limit is checked against the size the directory claims, before reading.
  EXPECT_EQ(kiln_archive_read(a, "top/big.bin", 1024, &data, &size, &error), -1);
  EXPECT_EQ(data, nullptr);
  std::string msg = take(error);
  EXPECT_NE(msg.find("member 'top/big.bin' of '" + (dir / "a.pt2") + "' claims 4096 bytes, more than kiln's limit of 1024"),
            std::string::npos)
      << msg;
  kiln_archive_close(a);
  kiln_archive_close(nullptr);
}

TEST(Archive, ReadsIntoTheCallersBufferAsDataArrives) {
  TempDir dir;
  std::string big(40u << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = (char)(i * 7 + (i >> 12));
  writeZip(dir / "a.pt2", {{"w/big", big}, {"w/small", "abc"}});
  char *error = nullptr;
  kiln_archive *a = kiln_archive_open((dir / "a.pt2").c_str(), &error);
  ASSERT_NE(a, nullptr) << take(error);
  struct Buffer {
    std::string bytes;
    std::vector<uint64_t> asked;
    static void *grow(void *context, uint64_t n) {
      auto *b = static_cast<Buffer *>(context);
      b->asked.push_back(n);
      b->bytes.resize(n);
      return b->bytes.data();
    }
  } buffer;
  uint64_t size = 0;
  ASSERT_EQ(kiln_archive_read_into(a, "w/big", 0, Buffer::grow, &buffer, &size, &error), 0) << take(error);
  EXPECT_EQ(size, big.size());
  EXPECT_TRUE(buffer.bytes == big);
  // 16 MiB more at a time, never more than the data that came.
  EXPECT_EQ(buffer.asked, (std::vector<uint64_t>{16u << 20, 32u << 20, big.size()}));
  // The same buffer for the next member: its bytes come first.
  buffer.asked.clear();
  ASSERT_EQ(kiln_archive_read_into(a, "w/small", 0, Buffer::grow, &buffer, &size, &error), 0) << take(error);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(buffer.bytes.substr(0, 3), "abc");
  // The limit comes first: nothing is asked for.
  buffer.asked.clear();
  EXPECT_EQ(kiln_archive_read_into(a, "w/big", 1024, Buffer::grow, &buffer, &size, &error), -1);
  EXPECT_NE(take(error).find("more than kiln's limit of 1024"), std::string::npos);
  EXPECT_TRUE(buffer.asked.empty());
  kiln_archive_close(a);
}

} // namespace
