// kiln tests — whether a function pointer type kiln declares itself has the
// shape of a vendor header's declaration (CudnnHeadersTest, HipHeadersTest).
#ifndef KILN_TEST_ABI_SHAPE_H
#define KILN_TEST_ABI_SHAPE_H

#include <cstddef>
#include <tuple>
#include <utility>

namespace kiln::test {

template <typename F> struct Sig;
template <typename R, typename... A> struct Sig<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
};

template <typename T, typename U, size_t... I>
constexpr bool sameSizes(std::index_sequence<I...>) {
  return ((sizeof(std::tuple_element_t<I, T>) == sizeof(std::tuple_element_t<I, U>)) && ...);
}

/// Same arity, and each parameter and the result of the same size (handles,
/// enums and int results are passed alike in the x86-64 ABI).
template <typename Kiln, typename Vendor> constexpr bool sameShape() {
  using K = Sig<Kiln>;
  using V = Sig<Vendor>;
  constexpr size_t n = std::tuple_size_v<typename K::Args>;
  if constexpr (n != std::tuple_size_v<typename V::Args>)
    return false;
  else
    return sizeof(typename K::Ret) == sizeof(typename V::Ret) &&
           sameSizes<typename K::Args, typename V::Args>(std::make_index_sequence<n>{});
}

} // namespace kiln::test

#endif // KILN_TEST_ABI_SHAPE_H
