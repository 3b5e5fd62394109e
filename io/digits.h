// Decimal digits of integers, as std::to_chars prints them, written straight into a buffer: the
// CSV writer's cells (io/csv.h). Each write may store up to 8 bytes past the digits it
// returns the end of, so callers leave room for 24 bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace acme::digits {

static_assert(std::endian::native == std::endian::little, "digits are packed into words little-endian");

inline constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline constexpr std::uint64_t kPow10[] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
    10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
    1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
    10000000000000000000ULL};

// How many digits `v` has (0 for 0).
inline int count(std::uint64_t v) {
  const int n = (std::bit_width(v | 1) * 1233) >> 12;  // about log10: n or n + 1 digits
  return n + (v >= kPow10[n]);
}

// The 8 digits of v < 10^8, zero-padded, as the bytes of a word (its first byte the first digit).
// v / 10^6 as a fixed-point number with 32 fractional bits (James Edward Anhalt's itoa: the
// constant and the rounding make every v exact, which tests/io/test_csv.cpp checks for each v);
// each pair of digits is then the integer part of the fraction times 100.
inline std::uint64_t eight(std::uint32_t v) {
  std::uint64_t fixed = ((v * std::uint64_t{2251799815}) >> 19) + 4;
  std::uint64_t out = 0;
  for (int k = 0; k < 4; ++k) {
    std::uint16_t pair;
    std::memcpy(&pair, kPairs + 2 * (fixed >> 32), 2);
    out |= std::uint64_t{pair} << (16 * k);
    fixed = static_cast<std::uint32_t>(fixed) * std::uint64_t{100};
  }
  return out;
}

// Writes the digits of `v`, at least `min_digits` of them (zero-padded; 1 to 20); returns the end.
inline char* write(char* out, std::uint64_t v, int min_digits = 1) {
  if (v < 100 && min_digits == 1) {  // most counts in a row: one or two digits, not counted first
    std::memcpy(out, kPairs + 2 * v + (v < 10), 2);
    return out + 1 + (v >= 10);
  }
  const int n = std::max(count(v), min_digits);
  if (n <= 2) {  // the last n digits of the pair "0v" or "vv" (v < 100; said so for GCC's bounds check)
    std::memcpy(out, kPairs + 2 * (v % 100) + (2 - n), 2);
    return out + n;
  }
  if (n <= 4) {
    const auto high = static_cast<std::uint32_t>(v / 100), low = static_cast<std::uint32_t>(v % 100);
    std::uint16_t pairs[2];
    std::memcpy(&pairs[0], kPairs + 2 * high, 2);
    std::memcpy(&pairs[1], kPairs + 2 * low, 2);
    std::uint32_t word;
    std::memcpy(&word, pairs, 4);
    word >>= 8 * (4 - n);
    std::memcpy(out, &word, 4);
    return out + n;
  }
  if (n <= 8) {
    const std::uint64_t word = eight(static_cast<std::uint32_t>(v)) >> (8 * (8 - n));
    std::memcpy(out, &word, 8);
    return out + n;
  }
  if (n <= 10 && v < 10000000000ULL) {  // the same, said so that the compiler sees high < 100
    const auto high = static_cast<std::uint32_t>(v / 100000000);
    if (n == 10) std::memcpy(out, kPairs + 2 * high, 2);
    else *out = static_cast<char>('0' + high);
    const std::uint64_t word = eight(static_cast<std::uint32_t>(v - std::uint64_t{high} * 100000000));
    std::memcpy(out + n - 8, &word, 8);
    return out + n;
  }
  char* p = out + n;  // past 10 digits: rare (no time or count here has so many)
  for (; v >= 100; v /= 100) {
    p -= 2;
    std::memcpy(p, kPairs + 2 * (v % 100), 2);
  }
  if (v >= 10) {
    p -= 2;
    std::memcpy(p, kPairs + 2 * v, 2);
  } else {
    *--p = static_cast<char>('0' + v);
  }
  while (p > out) *--p = '0';
  return out + n;
}

// Writes `v` in decimal, '-' first if negative; returns the end.
inline char* write_integer(char* out, std::int64_t v) {
  if (v < 0) {
    *out++ = '-';
    return write(out, ~static_cast<std::uint64_t>(v) + 1);
  }
  return write(out, static_cast<std::uint64_t>(v));
}

}  // namespace acme::digits
