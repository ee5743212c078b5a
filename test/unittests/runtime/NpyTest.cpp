// kiln tests — .npy reading and writing: round trips, versions, Fortran order, bad files.
#include "TestUtil.h"
#include "kiln/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <numeric>

using namespace kiln;
using kiln::test::TempDir;

namespace {

// Builds a .npy by hand: magic, version, header-length field, dict, data.
std::string npyBytes(int major, const std::string &dict, const std::string &data) {
  std::string h = dict;
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += (char)major;
  out += (char)0;
  out += (char)(h.size() & 0xff);
  out += (char)((h.size() >> 8) & 0xff);
  if (major != 1) {
    out += (char)((h.size() >> 16) & 0xff);
    out += (char)((h.size() >> 24) & 0xff);
  }
  return out + h + data;
}

template <typename T> std::string raw(std::initializer_list<T> v) {
  std::vector<T> vec(v);
  return std::string(reinterpret_cast<const char *>(vec.data()), vec.size() * sizeof(T));
}


std::string errorOf(const std::string &bytes) {
  try {
    parseNpy(bytes.data(), bytes.size(), "bad.npy");
  } catch (const NpyError &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST(Npy, RoundTripEveryDType) {
  TempDir dir;
  for (DType d : {DType::Float32, DType::Float64, DType::Float16, DType::Int64, DType::Int32,
                  DType::Int16, DType::Int8, DType::UInt8, DType::Bool}) {
    Tensor t = Tensor::empty({3, 5}, d);
    auto *p = static_cast<uint8_t *>(t.rawData());
    for (size_t i = 0; i < t.nbytes(); ++i) p[i] = d == DType::Bool ? (i % 3 == 0) : (uint8_t)(i * 7 + 1);
    std::string path = dir / (std::string(dtypeName(d)) + ".npy");
    writeNpy(path, t);
    Tensor r = readNpy(path);
    EXPECT_EQ(r.dtype(), d) << dtypeName(d);
    EXPECT_EQ(r.sizes(), t.sizes());
    EXPECT_EQ(std::memcmp(r.rawData(), t.rawData(), t.nbytes()), 0) << dtypeName(d);
  }
}

namespace {
uint16_t bf16Bits(const Tensor &t, int64_t i) { return t.data<uint16_t>()[i]; }
Tensor bf16(std::vector<uint16_t> bits) {
  Tensor t = Tensor::empty({(int64_t)bits.size()}, DType::BFloat16);
  std::copy(bits.begin(), bits.end(), t.data<uint16_t>());
  return t;
}
} // namespace

// NumPy has no bfloat16: bf16 tensors are written as exact <f4 files and read
// back as bf16 by readNpyFor when the consumer wants bf16.
TEST(Npy, BFloat16TravelsAsFloat32) {
  TempDir dir;
  // 1.0, -2.5, the smallest normal, a subnormal, +inf, -0.0, a NaN, 3.0e38
  Tensor t = bf16({0x3f80, 0xc020, 0x0080, 0x0001, 0x7f80, 0x8000, 0x7fc0, 0x7f61});
  writeNpy(dir / "b.npy", t);
  Tensor f = readNpy(dir / "b.npy");
  ASSERT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(f.data<float>()[0], 1.0f);
  EXPECT_EQ(f.data<float>()[1], -2.5f);
  EXPECT_EQ(f.data<float>()[2], std::ldexp(1.0f, -126));
  EXPECT_EQ(f.data<float>()[3], std::ldexp(1.0f, -133));
  EXPECT_TRUE(std::isinf(f.data<float>()[4]));
  EXPECT_TRUE(std::signbit(f.data<float>()[5]));
  EXPECT_TRUE(std::isnan(f.data<float>()[6]));
  Tensor back = readNpyFor(dir / "b.npy", DType::BFloat16);
  ASSERT_EQ(back.dtype(), DType::BFloat16);
  ASSERT_EQ(back.sizes(), t.sizes());
  for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(bf16Bits(back, i), bf16Bits(t, i)) << i;
  // Other wanted dtypes get the file as it is.
  EXPECT_EQ(readNpyFor(dir / "b.npy", DType::Float32).dtype(), DType::Float32);
  EXPECT_EQ(readNpyFor(dir / "b.npy", DType::Int64).dtype(), DType::Float32);
}

TEST(Npy, Float32ToBFloat16RoundsToNearestEven) {
  Tensor f = Tensor::empty({7}, DType::Float32);
  float *p = f.data<float>();
  p[0] = 1.0f + std::ldexp(1.0f, -8);      // halfway between 1 and 1+2^-7: ties to even (1)
  p[1] = 1.0f + 3 * std::ldexp(1.0f, -8);  // halfway, rounds up to the even 1+2^-6
  p[2] = 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20);  // above halfway: up
  p[3] = -1.0f - std::ldexp(1.0f, -9);     // below halfway: down in magnitude
  p[4] = std::numeric_limits<float>::max();  // rounds to +inf, as PyTorch does
  p[5] = -std::numeric_limits<float>::quiet_NaN();
  p[6] = 0.0f;
  Tensor b = f32ToBf16(f);
  EXPECT_EQ(bf16Bits(b, 0), 0x3f80);
  EXPECT_EQ(bf16Bits(b, 1), 0x3f82);
  EXPECT_EQ(bf16Bits(b, 2), 0x3f81);
  EXPECT_EQ(bf16Bits(b, 3), 0xbf80);
  EXPECT_EQ(bf16Bits(b, 4), 0x7f80);
  EXPECT_EQ(bf16Bits(b, 5) & 0x7f80, 0x7f80);  // still a NaN
  EXPECT_NE(bf16Bits(b, 5) & 0x007f, 0);
  EXPECT_EQ(bf16Bits(b, 5) & 0x8000, 0x8000);  // with its sign
  EXPECT_EQ(bf16Bits(b, 6), 0);
  EXPECT_THROW(f32ToBf16(b), NpyError);
  EXPECT_THROW(bf16ToF32(f), NpyError);
}

TEST(Npy, RoundTripScalarEmptyAndStrided) {
  TempDir dir;
  Tensor s = Tensor::empty({}, DType::Float64);
  *s.data<double>() = 2.5;
  writeNpy(dir / "s.npy", s);
  Tensor rs = readNpy(dir / "s.npy");
  EXPECT_EQ(rs.dim(), 0);
  EXPECT_EQ(*rs.data<double>(), 2.5);

  Tensor e = Tensor::empty({0, 4}, DType::Int32);
  writeNpy(dir / "e.npy", e);
  EXPECT_EQ(readNpy(dir / "e.npy").sizes(), (std::vector<int64_t>{0, 4}));

  Tensor base = Tensor::empty({2, 3}, DType::Int32);
  std::iota(base.data<int32_t>(), base.data<int32_t>() + 6, 0);
  Tensor tr = Tensor::view(base.storage(), 0, {3, 2}, {1, 3}, DType::Int32);
  writeNpy(dir / "t.npy", tr);
  Tensor r = readNpy(dir / "t.npy");
  EXPECT_EQ(std::vector<int32_t>(r.data<int32_t>(), r.data<int32_t>() + 6),
            (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Npy, HeaderIsAlignedAndNumpyShaped) {
  Tensor t = Tensor::zeros({7}, DType::Float32);
  std::string b = serializeNpy(t);
  size_t hl = (uint8_t)b[8] | (size_t)(uint8_t)b[9] << 8;
  EXPECT_EQ((10 + hl) % 64, 0u);
  EXPECT_NE(b.find("'shape': (7,)"), std::string::npos);
  EXPECT_NE(b.find("'descr': '<f4'"), std::string::npos);
  EXPECT_EQ(b[10 + hl - 1], '\n');
}

TEST(Npy, ReadsVersions2And3) {
  std::string data = raw<int16_t>({1, -2, 3});
  for (int v : {2, 3}) {
    std::string b = npyBytes(v, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", data);
    Tensor t = parseNpy(b.data(), b.size(), "v.npy");
    EXPECT_EQ(t.dtype(), DType::Int16);
    EXPECT_EQ(t.data<int16_t>()[1], -2);
  }
}

TEST(Npy, FortranOrderBecomesCContiguous) {
  // 2x3 array [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5.
  std::string b = npyBytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                           raw<double>({0, 3, 1, 4, 2, 5}));
  Tensor t = parseNpy(b.data(), b.size(), "f.npy");
  ASSERT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(t.isContiguous());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<double>()[i], i);
}

TEST(Npy, ReadsNumpyWrittenCorpusFile) {
  Tensor t = readNpy(std::string(KILN_TEST_CORPUS) + "/mlp/input0.npy");
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{8, 64}));
}

TEST(Npy, MalformedFilesAreRejectedWithReasons) {
  std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string data = raw<float>({1, 2});
  EXPECT_NE(errorOf("hello world, not npy").find("bad magic"), std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, ok, data).substr(0, 20)).find("truncated"), std::string::npos);
  std::string v9 = npyBytes(1, ok, data);
  v9[6] = 9;
  EXPECT_NE(errorOf(v9).find("unsupported .npy format version 9"), std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, ok, data.substr(0, 5))).find("data is truncated"), std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, ok, data + "xx")).find("trailing bytes"), std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data))
                .find("unsupported .npy dtype '>f4'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data))
                .find("unsupported .npy dtype '<c8'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<f4', 'shape': (2,), }", data)).find("missing"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", data))
                .find("fortran_order"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data))
                .find("malformed .npy header"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data))
                .find("unexpected key 'x'"),
            std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "['descr', '<f4']", data)).find("malformed"), std::string::npos);
  EXPECT_NE(errorOf(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", data))
                .find("too large"),
            std::string::npos);
  // Every message names the file.
  EXPECT_EQ(errorOf("junk").rfind("'bad.npy'", 0), 0u);
}

TEST(Npy, MissingFileIsNamed) {
  try {
    readNpy("/nonexistent/kiln/x.npy");
    FAIL();
  } catch (const NpyError &e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kiln/x.npy"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
  }
}

TEST(Npy, FailedWriteLeavesNothingBehind) {
  TempDir dir;
  Tensor t = Tensor::zeros({4}, DType::Float32);
  // Renaming onto a directory fails after the data was written: the temp file goes.
  std::filesystem::create_directory(dir / "taken.npy");
  std::filesystem::create_directory(dir / "taken.npy/inside");
  EXPECT_THROW(writeNpy(dir / "taken.npy", t), NpyError);
  EXPECT_THROW(writeNpy(dir / "no/such/dir/x.npy", t), NpyError);
  std::vector<std::string> left;
  for (auto &e : std::filesystem::directory_iterator(dir.path())) left.push_back(e.path().filename());
  EXPECT_EQ(left, (std::vector<std::string>{"taken.npy"}));
}

TEST(Npy, OverwriteReplacesAtomically) {
  TempDir dir;
  writeNpy(dir / "x.npy", Tensor::zeros({100}, DType::Float64));
  Tensor small = Tensor::empty({1}, DType::Int8);
  *small.data<int8_t>() = 5;
  writeNpy(dir / "x.npy", small);
  Tensor r = readNpy(dir / "x.npy");
  EXPECT_EQ(r.dtype(), DType::Int8);
  EXPECT_EQ(*r.data<int8_t>(), 5);
}
