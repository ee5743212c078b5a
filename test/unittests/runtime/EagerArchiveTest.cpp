// Tests of the eager interpreter's loader on archives with hostile JSON: each
// case comes from an input fuzz-eager-load found, rebuilt from a corpus archive
// with one field changed, and must be a clear kiln::Error, never undefined
// behaviour (the ASan+UBSan build runs these tests).
#include "TestUtil.h"
#include "ZipWriter.h"
#include "kiln/abi/archive.h"
#include "kiln/eager.h"
#include "kiln/ivalue.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using json = nlohmann::json;
using kiln::test::TempDir;
using kiln::test::writeZip;

namespace {

/// The corpus MLP's archive with its graph JSON passed through `edit`.
std::string editedMlp(const TempDir &dir, const std::function<void(json &)> &edit) {
  std::string src = std::string(KILN_TEST_CORPUS) + "/mlp/model.pt2";
  char *error = nullptr;
  kiln_archive *a = kiln_archive_open(src.c_str(), &error);
  EXPECT_NE(a, nullptr) << (error ? error : "");
  std::vector<std::pair<std::string, std::string>> members;
  for (size_t i = 0; i < kiln_archive_member_count(a); ++i) {
    std::string name = kiln_archive_member_name(a, i);
    char *data = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(kiln_archive_read(a, name.c_str(), 0, &data, &size, &error), 0);
    std::string bytes(data, size);
    kiln_archive_free(data);
    if (name.size() >= 17 && name.compare(name.size() - 17, 17, "models/model.json") == 0) {
      json j = json::parse(bytes);
      edit(j["graph_module"]["graph"]);
      bytes = j.dump();
    }
    members.emplace_back(name, bytes);
  }
  kiln_archive_close(a);
  std::string out = dir / "edited.pt2";
  writeZip(out, members);
  return out;
}

/// The error loading `path` gives, or else running it once on zeros of its
/// inputs' shapes (a dynamic dim at its smallest), as fuzz-eager-load does;
/// "" when both succeed.
std::string loadError(const std::string &path) {
  try {
    auto program = kiln::eager::Program::load(path);
    std::vector<kiln::Tensor> inputs;
    for (const kiln::eager::ValueSpec &s : program->inputs()) {
      std::vector<int64_t> sizes;
      for (size_t d = 0; d < s.sizes.size(); ++d)
        sizes.push_back(s.sizes[d] >= 0 ? s.sizes[d] : std::max<int64_t>(1, s.minSizes[d]));
      inputs.push_back(kiln::Tensor::zeros(sizes, s.dtype));
    }
    program->run(inputs);
  } catch (const kiln::Error &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(EagerArchive, ADtypeCodeThatIsNoIntIsAClearError) {
  // A tensor's dtype 1e308: a float no int holds (the complex-number rewrite
  // read it as an int before any check).
  TempDir dir;
  std::string path = editedMlp(dir, [](json &g) { g["tensor_values"].begin().value()["dtype"] = 1e308; });
  std::string err = loadError(path);
  EXPECT_NE(err.find("field \"dtype\" holds 1e+308, where torch.export writes an integer"), std::string::npos)
      << err;
  EXPECT_NE(err.find("models/model.json"), std::string::npos) << err;
}

TEST(EagerArchive, ASizeThatIsAFloatIsAClearError) {
  TempDir dir;
  std::string path = editedMlp(dir, [](json &g) {
    g["tensor_values"].begin().value()["sizes"][0]["as_int"] = -3.5e300;
  });
  std::string err = loadError(path);
  EXPECT_NE(err.find("field \"as_int\" holds -3.5e+300, where torch.export writes an integer"), std::string::npos)
      << err;
}

TEST(EagerArchive, FuzzRegressionsAreClearErrors) {
  // Inputs fuzz-eager-load found (test/fuzz/regressions/fuzz-eager-load):
  // each must load to a clear kiln::Error naming the problem.
  const std::pair<const char *, const char *> cases[] = {
      // Complex values become real pairs whose strides overflow int64.
      {"complex-strides-overflow.pt2", "overflow 64-bit strides"},
      // A weight's tensor_meta with 1e308 where an int belongs.
      // A complex subtraction whose node has no 'other' argument.
      {"complex-add-without-other.pt2", "on complex values: it has no 'other' argument"},
      // A complex value's stride of -2^63, doubled for its real pairs.
      {"complex-stride-doubling-overflow.pt2", "overflows as real pairs"},
      // A sym_size node asking for dim 7 of a rank-2 value (when run).
      {"sym-size-dim-out-of-range.pt2", "out of range for a tensor of rank"},
      // native_layer_norm with a weight whose shape is not normalized_shape's.
      {"layer-norm-weight-shape.pt2", "does not match normalized_shape"},
      // unflatten of a 0-d value (once read its dim 0 past the sizes).
      {"unflatten-0d.pt2", "a 0-d tensor has no dim to unflatten"},
      // Transposed convolutions whose output size arithmetic overflowed.
      {"conv-transpose-size-overflow.pt2", "would have more than 2^63 elements along a dim"},
      {"conv-transpose-channels-overflow.pt2", "output channels overflow int64"},
      {"weights-config-float-int.pt2", "model_weights_config.json: field \"as_int\" holds 1e+308"},
      // A view to [.., 2^63 - 1, 32, ..]: the product of its sizes overflowed int64.
      {"view-size-product-overflow.pt2", "its sizes' product overflows int64"},
      // A max pool with padding 2^62: twice the padding overflowed int64.
      {"max-pool-padding-overflow.pt2", "padding must be at most half of kernel_size"},
      // A convolution with padding 2^63 - 1: twice the padding overflowed int64.
      {"conv-padding-overflow.pt2", "the output of the convolution would have more than 2^63 elements"},
  };
  for (const auto &[file, message] : cases) {
    std::string err = loadError(std::string(KILN_FUZZ_REGRESSIONS) + "/fuzz-eager-load/" + file);
    EXPECT_NE(err.find(message), std::string::npos) << file << ": " << err;
  }
}

TEST(EagerArchive, AMaxPoolWindowWiderThanItsInputIsAnError) {
  // fuzz-eager-load timed out (over 100 s under ASan) on a max pool with a
  // 2^31-wide window over a 16-wide input: the output size was rounded
  // towards zero (1 instead of ATen's 0), and every tap was visited. The size
  // is floored now, so this is ATen's error; and a window only visits the
  // taps inside the input.
  std::string err = loadError(std::string(KILN_FUZZ_REGRESSIONS) + "/fuzz-eager-load/max-pool-window-in-padding.pt2");
  EXPECT_NE(err.find("output size is too small"), std::string::npos) << err;
}
