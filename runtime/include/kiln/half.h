// kiln runtime — float16 and bfloat16 bit patterns to and from float32: the
// one definition the runtime's kernels, loaders and tools share.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln {

inline float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

inline uint32_t floatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// An IEEE binary16 value (exact in float32).
inline float halfBitsToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {
    float f = std::ldexp((float)man, -24); // zero or subnormal
    return sign ? -f : f;
  }
  return bitsToFloat(exp == 31 ? sign | 0x7f800000u | (man << 13) : sign | ((exp + 112) << 23) | (man << 13));
}

/// float32 -> binary16, rounded to nearest even; NaN stays a (quiet) NaN,
/// beyond the largest half an infinity.
inline uint16_t floatToHalfBits(float f) {
  uint32_t b = floatToBits(f), sign = (b >> 16) & 0x8000;
  float a = std::fabs(f);
  if (std::isnan(f))
    return (uint16_t)(sign | 0x7e00);
  if (a >= 65520.0f)
    return (uint16_t)(sign | 0x7c00);
  if (a < 6.103515625e-05f) // subnormal half: multiples of 2^-24
    return (uint16_t)(sign | (uint32_t)std::nearbyint(std::ldexp(a, 24)));
  uint32_t ab = floatToBits(a);
  uint32_t man = ab & 0x7fffff, exp = (ab >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (man >> 13), rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return (uint16_t)(sign | h);
}

/// A bfloat16 value (the high half of a float32).
inline float bf16BitsToFloat(uint16_t b) { return bitsToFloat((uint32_t)b << 16); }

/// float32 -> bfloat16, rounded to nearest even; a NaN keeps its sign and
/// becomes quiet.
inline uint16_t floatToBF16Bits(float f) {
  uint32_t b = floatToBits(f);
  if (std::isnan(f))
    return (uint16_t)((b >> 16) | 0x40);
  b += 0x7fff + ((b >> 16) & 1);
  return (uint16_t)(b >> 16);
}

} // namespace kiln
