// Tests of registration, dispatch-key selection, fallthrough kernels,
// fallbacks, missing-kernel errors, typed calls and the autograd tape.
#include "kiln/library.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {
Tensor full(const std::vector<int64_t> &shape, float v, Device dev = {}) {
  Tensor t = Tensor::empty(shape, DType::Float32, dev);
  if (dev.type == DeviceType::CPU)
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = v;
  return t;
}
const Device kMeta{DeviceType::Meta, 0};

/// A boxed kernel that returns a tensor whose first element names the key.
KernelFunction tagKernel(float tag) {
  return makeKernel([tag](const OperatorHandle &, DispatchKeySet, Stack &s) {
    s.clear();
    s.emplace_back(full({1}, tag));
  });
}
float firstOf(const Stack &s) { return s.at(0).toTensor().data<float>()[0]; }
} // namespace

TEST(DispatchKeys, OrderAndNames) {
  // Autograd keys come before backend keys; Meta above CUDA above CPU.
  EXPECT_LT((int)DispatchKey::AutogradCPU, (int)DispatchKey::CPU);
  EXPECT_LT((int)DispatchKey::Meta, (int)DispatchKey::CPU);
  EXPECT_LT((int)DispatchKey::CUDA, (int)DispatchKey::CPU);
  EXPECT_TRUE(isAliasKey(DispatchKey::CompositeImplicitAutograd));
  EXPECT_FALSE(isAliasKey(DispatchKey::CPU));
  DispatchKey k;
  ASSERT_TRUE(parseDispatchKey("AutogradCUDA", k));
  EXPECT_EQ(k, DispatchKey::AutogradCUDA);
  EXPECT_STREQ(dispatchKeyName(DispatchKey::CompositeExplicitAutograd), "CompositeExplicitAutograd");
  DispatchKeySet ks;
  ks.add(DispatchKey::CPU).add(DispatchKey::AutogradCPU);
  EXPECT_EQ(ks.highest(), DispatchKey::AutogradCPU);
  EXPECT_EQ(ks.withoutAutograd().highest(), DispatchKey::CPU);
}

TEST(Dispatcher, KeyFromDevicesAndRequiresGrad) {
  Library def(Library::DEF, "ktkeys", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor a, Tensor? b=None) -> Tensor");
  Library cpu(Library::IMPL, "ktkeys", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", tagKernel(1));
  Library meta(Library::IMPL, "ktkeys", DispatchKey::Meta, __FILE__, __LINE__);
  meta.impl("f", tagKernel(2));
  Library ag(Library::IMPL, "ktkeys", DispatchKey::AutogradCPU, __FILE__, __LINE__);
  ag.impl("f", tagKernel(3));
  OperatorHandle op = Dispatcher::get().findOpOrThrow("ktkeys::f");

  Stack s{full({2}, 0)};
  EXPECT_EQ(op.keySetFor(s).highest(), DispatchKey::CPU);
  op.callBoxed(s);
  EXPECT_EQ(firstOf(s), 1);

  // A Meta tensor anywhere in the arguments wins over CPU.
  s = {full({2}, 0), full({2}, 0, kMeta)};
  op.callBoxed(s);
  EXPECT_EQ(firstOf(s), 2);

  // requires_grad selects the autograd key, unless grad mode is off.
  Tensor g = full({2}, 0);
  g.setRequiresGrad(true);
  s = {g};
  op.callBoxed(s);
  EXPECT_EQ(firstOf(s), 3);
  {
    AutoGradMode off(false);
    s = {g};
    op.callBoxed(s);
    EXPECT_EQ(firstOf(s), 1);
  }
}

TEST(Dispatcher, MissingKernelNamesOpKeyAndKeysWithKernels) {
  Library def(Library::DEF, "ktmissing", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor a) -> Tensor");
  Library meta(Library::IMPL, "ktmissing", DispatchKey::Meta, __FILE__, __LINE__);
  meta.impl("f", tagKernel(2));
  try {
    call<Tensor>("ktmissing::f", full({1}, 0));
    FAIL();
  } catch (const Error &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'ktmissing::f'"), std::string::npos) << m;
    EXPECT_NE(m.find("dispatch key CPU"), std::string::npos) << m;
    EXPECT_NE(m.find("kernels for: Meta"), std::string::npos) << m;
    // The dispatcher's errors are the runtime's one kiln::Error, internal at the C ABI.
    EXPECT_EQ(e.code(), KILN_STATUS_INTERNAL);
  }
}

TEST(Dispatcher, AliasKeysFillTheTable) {
  Library def(Library::DEF, "ktalias", std::nullopt, __FILE__, __LINE__);
  def.def("explicit(Tensor a) -> Tensor");
  def.def("implicit(Tensor a) -> Tensor");
  def.impl("explicit", DispatchKey::CompositeExplicitAutograd, tagKernel(5));
  def.impl("implicit", tagKernel(6)); // DEF library without key: CompositeImplicitAutograd
  OperatorHandle ex = Dispatcher::get().findOpOrThrow("ktalias::explicit");
  OperatorHandle im = Dispatcher::get().findOpOrThrow("ktalias::implicit");
  EXPECT_TRUE(ex.tableEntry(DispatchKey::CPU).fn);
  EXPECT_TRUE(ex.tableEntry(DispatchKey::Meta).fn);
  EXPECT_TRUE(ex.tableEntry(DispatchKey::AutogradCPU).isFallthrough); // default autograd fallback
  EXPECT_TRUE(im.tableEntry(DispatchKey::CPU).fn);
  EXPECT_TRUE(im.tableEntry(DispatchKey::AutogradCPU).fn); // implicit covers autograd too
  Tensor g = full({1}, 0);
  g.setRequiresGrad(true);
  EXPECT_EQ(call<Tensor>(ex, g).data<float>()[0], 5);
  EXPECT_EQ(call<Tensor>(im, g).data<float>()[0], 6);
  // A direct backend kernel takes precedence over the composite one.
  Library cpu(Library::IMPL, "ktalias", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("explicit", tagKernel(7));
  EXPECT_EQ(call<Tensor>(ex, full({1}, 0)).data<float>()[0], 7);
  EXPECT_EQ(call<Tensor>(ex, full({1}, 0, kMeta)).data<float>()[0], 5); // Meta still composite
}

TEST(Dispatcher, FallthroughSkipsToTheNextKey) {
  Library def(Library::DEF, "ktfall", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor a) -> Tensor");
  Library cpu(Library::IMPL, "ktfall", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", tagKernel(1));
  Library meta(Library::IMPL, "ktfall", DispatchKey::Meta, __FILE__, __LINE__);
  meta.impl("f", fallthrough());
  OperatorHandle op = Dispatcher::get().findOpOrThrow("ktfall::f");
  // Meta falls through to CPU (both keys are in the call's set).
  Stack s{full({1}, 0), };
  s = {full({1}, 0, kMeta)};
  DispatchKeySet ks;
  ks.add(DispatchKey::Meta).add(DispatchKey::CPU);
  op.redispatchBoxed(ks, s);
  EXPECT_EQ(firstOf(s), 1);
  // With nothing below, a fallthrough says so.
  s = {full({1}, 0, kMeta)};
  EXPECT_THROW(op.callBoxed(s), Error);
}

TEST(Dispatcher, FallbackForAWholeKey) {
  Library def(Library::DEF, "ktfb", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor a) -> Tensor");
  def.def("g(Tensor a) -> Tensor");
  Library cpu(Library::IMPL, "ktfb", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", tagKernel(1));
  // No kernel for g on CPU: error, until a CPU fallback exists.
  EXPECT_THROW(call<Tensor>("ktfb::g", full({1}, 0)), Error);
  std::string seen;
  {
    Library fb(Library::IMPL, "_", DispatchKey::CPU, __FILE__, __LINE__);
    fb.fallback([&seen](const OperatorHandle &op, DispatchKeySet, Stack &s) {
      seen = op.name();
      s.clear();
      s.emplace_back(full({1}, 9));
    });
    EXPECT_EQ(call<Tensor>("ktfb::g", full({1}, 0)).data<float>()[0], 9);
    EXPECT_EQ(seen, "ktfb::g");
    // Ops with their own kernel keep it.
    EXPECT_EQ(call<Tensor>("ktfb::f", full({1}, 0)).data<float>()[0], 1);
  }
  // The fallback went away with its library.
  EXPECT_THROW(call<Tensor>("ktfb::g", full({1}, 0)), Error);
}

TEST(Dispatcher, AutogradFallbackCanBeReplaced) {
  Library def(Library::DEF, "ktagfb", std::nullopt, __FILE__, __LINE__);
  def.def("f(Tensor a) -> Tensor");
  Library cpu(Library::IMPL, "ktagfb", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("f", tagKernel(1));
  int calls = 0;
  Library fb(Library::IMPL, "_", DispatchKey::Autograd, __FILE__, __LINE__);
  fb.fallback([&calls](const OperatorHandle &op, DispatchKeySet ks, Stack &s) {
    ++calls;
    op.redispatchBoxed(ks.withoutAutograd(), s);
  });
  Tensor g = full({1}, 0);
  g.setRequiresGrad(true);
  EXPECT_EQ(call<Tensor>("ktagfb::f", g).data<float>()[0], 1);
  EXPECT_EQ(calls, 1);
}

TEST(Registration, DefTwiceAndNamespaceTwiceAreErrors) {
  Library a(Library::DEF, "ktdup", std::nullopt, "a.cpp", 1);
  a.def("f(Tensor x) -> Tensor");
  try {
    Library b(Library::DEF, "ktdup", std::nullopt, "b.cpp", 2);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("namespace 'ktdup' is already defined"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a.cpp:1"), std::string::npos);
  }
  Library frag(Library::FRAGMENT, "ktdup", std::nullopt, "c.cpp", 3);
  frag.def("g(Tensor x) -> Tensor"); // a fragment adds to the namespace
  EXPECT_TRUE(Dispatcher::get().findOp("ktdup::g").valid());
  try {
    frag.def("f(Tensor x) -> Tensor");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("defined twice"), std::string::npos) << e.what();
  }
  // Another namespace's op cannot be defined here.
  EXPECT_THROW(frag.def("other::h(Tensor x) -> Tensor"), Error);
  // Bad schema: the parser's column message comes through.
  try {
    frag.def("h(Tensor x -> Tensor");
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("schema error at column"), std::string::npos);
  }
}

TEST(Registration, LibraryLifetimeAndImplBeforeDef) {
  {
    Library impl(Library::IMPL, "ktlife", DispatchKey::CPU, __FILE__, __LINE__);
    impl.impl("f", tagKernel(4)); // before the def: allowed
    EXPECT_FALSE(Dispatcher::get().findOp("ktlife::f").valid());
    {
      Library def(Library::DEF, "ktlife", std::nullopt, __FILE__, __LINE__);
      def.def("f(Tensor x) -> Tensor");
      EXPECT_EQ(call<Tensor>("ktlife::f", full({1}, 0)).data<float>()[0], 4);
    }
    EXPECT_FALSE(Dispatcher::get().findOp("ktlife::f").valid());
    // The namespace is free again.
    Library def2(Library::DEF, "ktlife", std::nullopt, __FILE__, __LINE__);
    def2.def("f(Tensor x) -> Tensor");
    EXPECT_TRUE(Dispatcher::get().findOp("ktlife::f.default").valid());
  }
  EXPECT_FALSE(Dispatcher::get().findOp("ktlife::f").valid());
}

TEST(Registration, TypedKernelsAndCalls) {
  Library def(Library::DEF, "kttyped", std::nullopt, __FILE__, __LINE__);
  def.def("scale(Tensor x, float s=2.0, *, bool neg=False) -> Tensor");
  def.def("pair(Tensor x, int[] dims, int? k=None) -> (Tensor, int)");
  Library cpu(Library::IMPL, "kttyped", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("scale", [](const Tensor &x, double s, bool neg) {
    Tensor o = x.clone();
    for (int64_t i = 0; i < o.numel(); ++i) o.data<float>()[i] *= (float)(neg ? -s : s);
    return o;
  });
  cpu.impl("pair", [](const Tensor &x, std::vector<int64_t> dims, std::optional<int64_t> k) {
    return std::make_tuple(x, (int64_t)dims.size() + k.value_or(100));
  });
  EXPECT_EQ(call<Tensor>("kttyped::scale", full({2}, 3)).data<float>()[1], 6);
  EXPECT_EQ(call<Tensor>("kttyped::scale", full({2}, 3), 0.5).data<float>()[0], 1.5);
  EXPECT_EQ(call<Tensor>("kttyped::scale", full({2}, 3), 1.0, true).data<float>()[0], -3);
  auto [t, n] = call<std::tuple<Tensor, int64_t>>("kttyped::pair", full({1}, 0),
                                                  std::vector<int64_t>{1, 2});
  EXPECT_EQ(n, 102);
  EXPECT_EQ(call<Stack>("kttyped::pair", full({1}, 0), std::vector<int64_t>{}, (int64_t)1)[1].toInt(), 1);
  // Argument checks: wrong type, missing argument, too many.
  EXPECT_THROW(call<Tensor>("kttyped::scale", 1.0), Error);
  EXPECT_THROW(call<Tensor>("kttyped::pair", full({1}, 0)), Error);
  EXPECT_THROW(call<Tensor>("kttyped::scale", full({1}, 0), 1.0, true, 4), Error);
  try {
    call<Tensor>("kttyped::nope", full({1}, 0));
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown op 'kttyped::nope'"), std::string::npos);
  }
}

TEST(Autograd, TapeRunsRegisteredFormulas) {
  // y = square(x) * 3 via two custom ops; dy/dx = 6x.
  Library def(Library::DEF, "ktgrad", std::nullopt, __FILE__, __LINE__);
  def.def("square(Tensor x) -> Tensor");
  def.def("triple(Tensor x) -> Tensor");
  auto mapf = [](const Tensor &x, float (*f)(float)) {
    Tensor o = x.clone();
    for (int64_t i = 0; i < o.numel(); ++i) o.data<float>()[i] = f(o.data<float>()[i]);
    return o;
  };
  Library cpu(Library::IMPL, "ktgrad", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("square", [mapf](const Tensor &x) { return mapf(x, [](float v) { return v * v; }); });
  cpu.impl("triple", [mapf](const Tensor &x) { return mapf(x, [](float v) { return 3 * v; }); });
  def.register_autograd("square", [](const AutogradContext &c, const std::vector<Tensor> &g) {
    return std::vector<Tensor>{call<Tensor>("aten::mul.Tensor",
                                            call<Tensor>("aten::add.Tensor", c.input(0), c.input(0)), g[0])};
  });
  def.register_autograd("triple", [](const AutogradContext &, const std::vector<Tensor> &g) {
    Tensor o = g[0].clone();
    for (int64_t i = 0; i < o.numel(); ++i) o.data<float>()[i] *= 3;
    return std::vector<Tensor>{o};
  });
  Tensor x = full({3}, 0);
  x.data<float>()[0] = 1;
  x.data<float>()[1] = -2;
  x.data<float>()[2] = 0.5f;
  x.setRequiresGrad(true);
  autograd::Tape tape;
  Tensor y = call<Tensor>("ktgrad::triple", call<Tensor>("ktgrad::square", x));
  EXPECT_TRUE(y.requiresGrad());
  EXPECT_EQ(tape.size(), 2u);
  Tensor dy = full({3}, 1);
  std::vector<Tensor> gx = tape.gradient({y}, {dy}, {x});
  ASSERT_TRUE(gx[0].defined());
  EXPECT_FLOAT_EQ(gx[0].data<float>()[0], 6);
  EXPECT_FLOAT_EQ(gx[0].data<float>()[1], -12);
  EXPECT_FLOAT_EQ(gx[0].data<float>()[2], 3);
}
