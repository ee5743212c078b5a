// kiln runtime — the counter-based generator behind the eager random kernels (Random.cpp): Philox4x32-10
// keyed by the program's seed, counted by (element, the op's stream, the run's offset), as compiled programs
// draw (lib/Conversion/ATenToLinalg/Random.cpp), and the stream a random kernel draws from.
#pragma once

#include <array>
#include <cstdint>

namespace kiln::cpu {

/// Where a random op's numbers come from: the generator state [seed, offset] of the run and the
/// op's stream (its place among the program's random ops).
struct RandomStream {
  uint64_t seed = 0, offset = 0;
  uint32_t stream = 0;
};

/// The stream the calling thread's random kernels draw from, or null (none set: they refuse).
const RandomStream *currentRandomStream();

/// Sets the calling thread's random stream for the scope's life.
class RandomStreamScope {
public:
  explicit RandomStreamScope(const RandomStream *s);
  ~RandomStreamScope();
  RandomStreamScope(const RandomStreamScope &) = delete;
  RandomStreamScope &operator=(const RandomStreamScope &) = delete;

private:
  const RandomStream *previous_;
};

/// Philox4x32-10 of counter `c` under key `k`.
inline std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u, kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = (uint64_t)kMul0 * c[0], p1 = (uint64_t)kMul1 * c[2];
    c = {(uint32_t)(p1 >> 32) ^ c[1] ^ k[0], (uint32_t)p1, (uint32_t)(p0 >> 32) ^ c[3] ^ k[1], (uint32_t)p0};
    if (round < 9) {
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
  }
  return c;
}

/// The four words of element `index` of stream `s`.
inline std::array<uint32_t, 4> randomWords(const RandomStream &s, uint64_t index) {
  return philox({(uint32_t)index, (uint32_t)((index >> 32) & 0xffff) | (s.stream << 16), (uint32_t)s.offset,
                 (uint32_t)(s.offset >> 32)},
                {(uint32_t)s.seed, (uint32_t)(s.seed >> 32)});
}

} // namespace kiln::cpu
