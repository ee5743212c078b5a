// Tests of the C query API the compiler asks the dispatcher through (kiln/abi/query.h).
#include "kiln/abi/query.h"

#include <gtest/gtest.h>
#include <string>

namespace {

/// The op's argument named `name`, or null.
const kiln_query_arg *argNamed(const kiln_query_op *op, const std::string &name) {
  for (int64_t i = 0; i < op->num_args; ++i)
    if (name == op->args[i].name) return &op->args[i];
  return nullptr;
}

bool hasKey(const kiln_query_op *op, const std::string &key) {
  for (int64_t i = 0; i < op->num_kernel_keys; ++i)
    if (key == op->kernel_keys[i]) return true;
  return false;
}

} // namespace

TEST(Query, Version) { EXPECT_EQ(kiln_query_version(), KILN_QUERY_VERSION); }

TEST(Query, PluginOpSchemaFakeAndBackward) {
  const char *err = nullptr;
  ASSERT_EQ(kiln_query_load_plugin(KILN_EXAMPLE_OPS, &err), 0) << (err ? err : "");
  kiln_query_op *op = nullptr;
  ASSERT_EQ(kiln_query_find_op("kilntest::scaled_gelu", &op), 0);
  ASSERT_NE(op, nullptr);
  EXPECT_STREQ(op->qualified_name, "kilntest::scaled_gelu");
  ASSERT_EQ(op->num_args, 2);
  EXPECT_STREQ(op->args[0].name, "x");
  EXPECT_STREQ(op->args[0].type, "Tensor");
  EXPECT_EQ(op->args[0].is_tensor, 1);
  EXPECT_EQ(op->args[0].default_kind, KILN_QUERY_NO_DEFAULT);
  EXPECT_STREQ(op->args[1].name, "scale");
  EXPECT_STREQ(op->args[1].type, "float");
  EXPECT_EQ(op->args[1].is_tensor, 0);
  EXPECT_EQ(op->num_returns, 1);
  EXPECT_EQ(op->all_returns_tensors, 1);
  EXPECT_EQ(op->has_fake, 1);
  EXPECT_EQ(op->has_backward, 1);
  EXPECT_TRUE(hasKey(op, "CPU"));
  kiln_query_op_free(op);
}

TEST(Query, Defaults) {
  kiln_query_op *op = nullptr;
  ASSERT_EQ(kiln_query_find_op("aten::topk", &op), 0);
  const kiln_query_arg *dim = argNamed(op, "dim"), *largest = argNamed(op, "largest");
  ASSERT_TRUE(dim && largest);
  EXPECT_EQ(dim->default_kind, KILN_QUERY_DEFAULT_INT);
  EXPECT_EQ(dim->i, -1);
  EXPECT_EQ(largest->default_kind, KILN_QUERY_DEFAULT_BOOL);
  EXPECT_EQ(largest->i, 1);
  EXPECT_EQ(op->num_returns, 2);
  kiln_query_op_free(op);

  ASSERT_EQ(kiln_query_find_op("aten::max_pool2d", &op), 0);
  const kiln_query_arg *stride = argNamed(op, "stride"), *dilation = argNamed(op, "dilation");
  ASSERT_TRUE(stride && dilation);
  EXPECT_EQ(stride->default_kind, KILN_QUERY_DEFAULT_INT_LIST);
  EXPECT_EQ(stride->count, 0);
  EXPECT_EQ(dilation->default_kind, KILN_QUERY_DEFAULT_INT_LIST);
  ASSERT_EQ(dilation->count, 2);
  EXPECT_EQ(dilation->ints[0], 1);
  EXPECT_EQ(dilation->ints[1], 1);
  kiln_query_op_free(op);

  ASSERT_EQ(kiln_query_find_op("aten::gelu", &op), 0);
  const kiln_query_arg *approx = argNamed(op, "approximate");
  ASSERT_TRUE(approx);
  EXPECT_EQ(approx->default_kind, KILN_QUERY_DEFAULT_STRING);
  EXPECT_STREQ(approx->str, "none");
  kiln_query_op_free(op);
}

TEST(Query, UnknownOpAndBadPlugin) {
  kiln_query_op *op = reinterpret_cast<kiln_query_op *>(1);
  EXPECT_NE(kiln_query_find_op("kilntest::no_such_op", &op), 0);
  EXPECT_EQ(op, nullptr);
  EXPECT_NE(kiln_query_find_op(nullptr, &op), 0);
  kiln_query_op_free(nullptr); // ignored
  const char *err = nullptr;
  EXPECT_NE(kiln_query_load_plugin("/nonexistent/libnothing.so", &err), 0);
  ASSERT_NE(err, nullptr);
  EXPECT_NE(std::string(err).find("/nonexistent/libnothing.so"), std::string::npos) << err;
}
