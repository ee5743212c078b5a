// kiln tests — weights from .pt2 archives: the real corpus, hand-built zips, external binding.
#include "kiln/error.h"
#include "Model.h"
#include "Pt2Weights.h"
#include "TestUtil.h"
#include "ZipWriter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace kiln;
using kiln::test::TempDir;
using kiln::test::writeZip;

namespace {

const std::string kCorpus = KILN_TEST_CORPUS;

std::string entryJson(const std::string &name, const std::string &file, int dtype,
                      const std::vector<int64_t> &sizes, const std::vector<int64_t> &strides,
                      bool pickle = false) {
  auto list = [](const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::string("{\"as_int\": ") + std::to_string(v[i]) + "}";
    return s + "]";
  };
  return "\"" + name + "\": {\"path_name\": \"" + file + "\", \"is_param\": true, \"use_pickle\": " +
         (pickle ? "true" : "false") + ", \"tensor_meta\": {\"dtype\": " + std::to_string(dtype) +
         ", \"sizes\": " + list(sizes) + ", \"strides\": " + list(strides) +
         ", \"storage_offset\": {\"as_int\": 0}, \"layout\": 7}}";
}

template <typename T> std::string raw(std::vector<T> v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
}

template <typename Fn> Error errorOf(Fn fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e;
  }
  return Error(KILN_STATUS_OK, "(no error)");
}

} // namespace

TEST(Pt2Weights, ReadsCorpusArchivesWithEitherTopFolder) {
  Pt2Weights a(kCorpus + "/mlp/model.pt2");
  Pt2Weights b(kCorpus + "/mlp/model.core.pt2");
  EXPECT_EQ(a.prefix(), "model/");
  EXPECT_EQ(b.prefix(), "model.core/");
  EXPECT_EQ(a.entries().size(), 6u);
  Tensor w = a.read("l1.weight");
  EXPECT_EQ(w.dtype(), DType::Float32);
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{128, 64}));
  Tensor w2 = b.read("l1.weight");
  ASSERT_EQ(w2.sizes(), w.sizes());
  EXPECT_EQ(std::memcmp(w.rawData(), w2.rawData(), w.nbytes()), 0);
  EXPECT_EQ(a.read("l3.bias").sizes(), (std::vector<int64_t>{10}));
}

TEST(Pt2Weights, ReadsBuffersIncludingScalars) {
  Pt2Weights a(kCorpus + "/convnet/model.pt2");
  EXPECT_FALSE(a.entries().at("b1.running_mean").isParam);
  Tensor n = a.read("b1.num_batches_tracked");
  EXPECT_EQ(n.dtype(), DType::Int64);
  EXPECT_EQ(n.dim(), 0);
  EXPECT_EQ(a.read("c1.weight").sizes(), (std::vector<int64_t>{16, 3, 3, 3}));
}

TEST(Pt2Weights, UnknownNameIsNotFound) {
  Pt2Weights a(kCorpus + "/mlp/model.pt2");
  Error e = errorOf([&] { a.read("l9.weight"); });
  EXPECT_EQ(e.code(), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(e.what()).find("'l9.weight'"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("mlp/model.pt2"), std::string::npos);
}

TEST(Pt2Weights, RefusesPickledEntries) {
  TempDir dir;
  std::string cfg = "{\"config\": {" + entryJson("w", "weight_0", 7, {2}, {1}, /*pickle=*/true) + "}}";
  writeZip(dir / "p.pt2", {{"odd.top/data/weights/model_weights_config.json", cfg},
                           {"odd.top/data/weights/weight_0", "\x80\x02pickle-bytes"}});
  Pt2Weights a(dir / "p.pt2");
  EXPECT_EQ(a.prefix(), "odd.top/");
  Error e = errorOf([&] { a.read("w"); });
  EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(e.what()).find("never unpickles"), std::string::npos) << e.what();
}

TEST(Pt2Weights, StridedAndConstantEntries) {
  TempDir dir;
  // A 2x3 tensor stored transposed (strides [1, 2]) and a constant.
  std::string w = "{\"config\": {" + entryJson("t", "weight_0", 4, {2, 3}, {1, 2}) + "}}";
  std::string c = "{\"config\": {" + entryJson("c", "tensor_0", 13, {2}, {1}) + "}}";
  writeZip(dir / "s.pt2", {{"m/data/weights/model_weights_config.json", w},
                           {"m/data/weights/weight_0", raw<int32_t>({0, 3, 1, 4, 2, 5})},
                           {"m/data/constants/model_constants_config.json", c},
                           {"m/data/constants/tensor_0", raw<uint16_t>({0x3f80, 0x4000})}});
  Pt2Weights a(dir / "s.pt2");
  Tensor t = a.read("t");
  EXPECT_EQ(std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + 6),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  Tensor k = a.read("c");
  EXPECT_EQ(k.dtype(), DType::BFloat16);
  EXPECT_TRUE(a.entries().at("c").isConstant);
}

TEST(Pt2Weights, MalformedArchives) {
  TempDir dir;
  EXPECT_EQ(errorOf([&] { Pt2Weights(dir / "missing.pt2"); }).code(), KILN_STATUS_NOT_FOUND);
  { std::ofstream(dir / "junk.pt2") << "not a zip"; }
  EXPECT_NE(std::string(errorOf([&] { Pt2Weights(dir / "junk.pt2"); }).what()).find("not a readable .pt2"),
            std::string::npos);
  writeZip(dir / "empty.pt2", {{"model/other.txt", "x"}});
  EXPECT_NE(std::string(errorOf([&] { Pt2Weights(dir / "empty.pt2"); }).what())
                .find("no member ending in data/weights/model_weights_config.json"),
            std::string::npos);
  writeZip(dir / "badjson.pt2", {{"model/data/weights/model_weights_config.json", "{oops"}});
  EXPECT_NE(std::string(errorOf([&] { Pt2Weights(dir / "badjson.pt2"); }).what()).find("malformed JSON"),
            std::string::npos);
  writeZip(dir / "dtype.pt2", {{"model/data/weights/model_weights_config.json",
                                "{\"config\": {" + entryJson("w", "weight_0", 9, {2}, {1}) + "}}"}});
  EXPECT_NE(std::string(errorOf([&] { Pt2Weights(dir / "dtype.pt2"); }).what()).find("unsupported dtype code 9"),
            std::string::npos);
  writeZip(dir / "short.pt2", {{"model/data/weights/model_weights_config.json",
                                "{\"config\": {" + entryJson("w", "weight_0", 7, {4}, {1}) + "}}"},
                               {"model/data/weights/weight_0", raw<float>({1, 2})}});
  Pt2Weights s(dir / "short.pt2");
  EXPECT_NE(std::string(errorOf([&] { s.read("w"); }).what()).find("has 8 bytes"), std::string::npos);
}

// The external-weights fake model binds l3.bias [10] f32 by name.
TEST(ExternalWeights, BindsByNameFromEitherArchive) {
  for (const char *archive : {"/mlp/model.pt2", "/mlp/model.core.pt2"}) {
    ModelOptions o;
    o.weightsPath = kCorpus + archive;
    auto m = Model::load(KILN_FAKE_MODEL_EXTERNAL, o);
    ASSERT_EQ(m->numParams(), 1u);
    Tensor bias = Pt2Weights(o.weightsPath).read("l3.bias");
    Tensor x = Tensor::zeros({3, 10}, DType::Float32);
    x.data<float>()[12] = 5;
    std::vector<Tensor> y = m->run({x});
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].sizes(), (std::vector<int64_t>{3, 10}));
    for (int i = 0; i < 30; ++i)
      EXPECT_EQ(y[0].data<float>()[i], bias.data<float>()[i % 10] + (i == 12 ? 5 : 0));
  }
}

TEST(ExternalWeights, Errors) {
  ModelOptions none;
  Error e = errorOf([&] { Model::load(KILN_FAKE_MODEL_EXTERNAL, none); });
  EXPECT_EQ(e.code(), KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_NE(std::string(e.what()).find("external weights"), std::string::npos);

  ModelOptions wrong;
  wrong.weightsPath = kCorpus + "/convnet/model.pt2";
  e = errorOf([&] { Model::load(KILN_FAKE_MODEL_EXTERNAL, wrong); });
  EXPECT_EQ(e.code(), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(e.what()).find("'l3.bias'"), std::string::npos);

  TempDir dir;
  writeZip(dir / "shape.pt2", {{"model/data/weights/model_weights_config.json",
                                "{\"config\": {" + entryJson("l3.bias", "weight_0", 7, {5}, {1}) + "}}"},
                               {"model/data/weights/weight_0", raw<float>({1, 2, 3, 4, 5})}});
  ModelOptions shape;
  shape.weightsPath = dir / "shape.pt2";
  e = errorOf([&] { Model::load(KILN_FAKE_MODEL_EXTERNAL, shape); });
  EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(e.what()).find("is f32 [5], but model"), std::string::npos) << e.what();

  writeZip(dir / "dtype.pt2", {{"model/data/weights/model_weights_config.json",
                                "{\"config\": {" + entryJson("l3.bias", "weight_0", 8, {10}, {1}) + "}}"},
                               {"model/data/weights/weight_0", std::string(80, '\0')}});
  ModelOptions dt;
  dt.weightsPath = dir / "dtype.pt2";
  e = errorOf([&] { Model::load(KILN_FAKE_MODEL_EXTERNAL, dt); });
  EXPECT_NE(std::string(e.what()).find("is f64 [10], but model"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("expects f32 [10]"), std::string::npos) << e.what();
}

TEST(Pt2Weights, HugeSizesWithoutStridesDoNotOverflow) {
  // An input fuzz-pt2-weights found (test/fuzz/regressions/fuzz-pt2-weights):
  // 'l.bias' has no strides and sizes [2^63-1, 2^63-1], whose contiguous
  // strides were computed with a signed overflow (UBSan, in this test's
  // sanitizer build); 'l.weight' after it has a nested size, the error.
  std::string path = std::string(KILN_FUZZ_REGRESSIONS) + "/fuzz-pt2-weights/strides-overflow.pt2";
  try {
    kiln::Pt2Weights w(path);
    for (const auto &[name, entry] : w.entries()) (void)w.read(name);
    FAIL() << "loaded";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("entry 'l.weight': \"tensor_meta.sizes\" holds a non-integer"),
              std::string::npos)
        << e.what();
  }
}
